import { maskSecrets } from '../../src/core/audit/mask.js';
const bodies = [
  { title: 'x', target: 'https://a.example/' },
  { title: 'Осенняя распродажа', target: 'https://shop.example/sale', status: 0, rate: 25, description: 'Скидки\nдо 50%' },
  { title: 'Stopped one', target: 'http://b.example/' },
  { Idb: 2, status: 1 },
];
test.each(bodies.map((b, i) => [i, b]))('%s', (_i, b) => {
  const t0 = Date.now();
  maskSecrets(b, { maxString: 300, maxItems: 50, maxDepth: 6 });
  console.log(JSON.stringify(b), Date.now() - t0);
});
