/**
 * docs/api.md lists every RPC method, REST route and socket message: its reference part is generated
 * from the registry and the route table. This test fails when the docs drift; `npm run docs:api`
 * rewrites the generated part.
 * One pass: compares docs/api.md with the registry; no database behaviour.
 */
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCS_END, DOCS_START, renderApiReference } from '../../src/core/api-docs.js';
import { listRoutes, listSocketMessages } from '../../src/core/http/route-table.js';
import { RpcRegistry } from '../../src/core/rpc/rpc.registry.js';
import { startApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => { t = await startApp(); });
afterAll(async () => { await t?.close(); });

test('docs/api.md lists every method, route and socket message', () => {
  const discovery = t.app.get(DiscoveryService);
  const scanner = t.app.get(MetadataScanner);
  const generated = renderApiReference(t.app.get(RpcRegistry).list(), listRoutes(discovery, scanner), listSocketMessages(discovery, scanner));
  const file = join(import.meta.dirname, '..', '..', 'docs', 'api.md');
  const doc = readFileSync(file, 'utf8');
  const start = doc.indexOf(DOCS_START);
  const end = doc.indexOf(DOCS_END);
  expect(start).toBeGreaterThanOrEqual(0);
  const current = doc.slice(start, end + DOCS_END.length);
  if (process.env.UPDATE_API_DOCS === '1' && current !== generated) {
    writeFileSync(file, doc.slice(0, start) + generated + doc.slice(end + DOCS_END.length));
    return;
  }
  expect(current).toBe(generated);
});
