/**
 * Search positions (issue 23 "Tests and figures": 10,000 queries checked in a day within the service's
 * limits, on a simulated clock; docs/position.md "Checking").
 *
 * 1. Simulated days: 10,000 queries (50 projects x 200, daily schedule, depth 100), all new at the start
 *    (due at once), run through the scheduler's own rules (src/modules/position/schedule.ts:
 *    tickBudget, TickBudget reservations of the worst case, nextCheckAt slots, pagesFor) one tick a
 *    simulated minute for three days; each request is placed on the simulated clock at the pacer's
 *    per-second spacing. A query's place is drawn once (40 % on page one, 35 % on pages 2-5, 25 % not in
 *    the top 100: 10 requests). Checked: every query checked on each day after the first catch-up, no
 *    more than 10 requests in any second and 10,000 in any hour (Yandex Search API v2 quotas for
 *    synchronous requests), and how evenly the checks spread over the hours of a day.
 * 2. The console's own cost per check: the real app (SQLite), a local Yandex Search API
 *    (test/helpers/fakes/yandex-search.ts) and PositionCheckService.tick() with the quotas raised out of
 *    the way, over 1,000 due queries: checks per second of wall time (database writes, XML decoding,
 *    answer cache), far above what the quota allows (about 2.8 requests a second on average).
 *
 * Run: `npm run bench -- position`.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import { PositionCheckService } from '../src/modules/position/position-check.service.js';
import { nextCheckAt, pagesFor, TickBudget, tickBudget, TICK_MS } from '../src/modules/position/schedule.js';
import { serp, startFakeYandex } from '../test/helpers/fakes/yandex-search.js';
import { machine, percentile, startBenchApp, writeSection } from './lib.js';

const LIMITS = { perSecond: 10, perHour: 10_000 };
const N = 10_000;
const DEPTH = 100;
const DAYS = 3;
const DAY = 86_400_000;

/** A deterministic pseudo-random number in [0, 1) per id. */
const rnd = (id: number) => ((Math.imul(id ^ 0x9e3779b9, 0x85ebca6b) >>> 0) % 1_000_003) / 1_000_003;

function requestsOf(id: number): number {
  const r = rnd(id);
  if (r < 0.4) return 1;
  if (r < 0.75) return 2 + Math.floor(rnd(id * 7 + 1) * 4); // pages 2-5
  return pagesFor(DEPTH); // not in the top 100
}

function simulate() {
  const t0 = Date.UTC(2026, 0, 5, 0, 0, 0);
  const queries = Array.from({ length: N }, (_, i) => ({ id: i + 1, next: 0, checks: [] as number[] }));
  const requests: number[] = [];
  const spacing = 1000 / LIMITS.perSecond;
  let clock = t0; // the pacer's next free slot
  for (let tick = t0; tick < t0 + DAYS * DAY; tick += TICK_MS) {
    const budget = new TickBudget(tickBudget(LIMITS));
    const due = queries.filter((q) => q.next <= tick).sort((a, b) => a.next - b.next || a.id - b.id);
    for (const q of due) {
      const worst = pagesFor(DEPTH);
      if (!budget.reserve(worst)) break;
      const used = requestsOf(q.id);
      let at = Math.max(clock, tick);
      for (let k = 0; k < used; k++) {
        requests.push(at);
        at += spacing;
      }
      clock = at;
      budget.settle(worst, used);
      q.checks.push(at);
      q.next = nextCheckAt(at, q.id, 24);
    }
  }
  // windows: the most requests in any second and in any hour (two pointers over the sorted times)
  const maxIn = (ms: number) => {
    let best = 0;
    for (let i = 0, j = 0; i < requests.length; i++) {
      while (requests[i] - requests[j] >= ms) j++;
      best = Math.max(best, i - j + 1);
    }
    return best;
  };
  const perDay = Array.from({ length: DAYS }, (_, d) => {
    const from = t0 + d * DAY;
    const ids = new Set<number>();
    let checks = 0;
    for (const q of queries) for (const c of q.checks) if (c >= from && c < from + DAY) { ids.add(q.id); checks++; }
    const reqs = requests.filter((r) => r >= from && r < from + DAY).length;
    return { day: d + 1, queries: ids.size, checks, requests: reqs };
  });
  const firstPassDone = Math.max(...queries.map((q) => q.checks[0] ?? Infinity)) - t0;
  const hours = new Array(24).fill(0);
  for (const q of queries) for (const c of q.checks) if (c >= t0 + DAY && c < t0 + 2 * DAY) hours[Math.floor((c - t0 - DAY) / 3_600_000)]++;
  const everyDay = queries.every((q) => [1, 2].every((d) => q.checks.filter((c) => c >= t0 + d * DAY && c < t0 + (d + 1) * DAY).length === 1));
  return { maxSecond: maxIn(1000), maxHour: maxIn(3_600_000), perDay, firstPassMin: firstPassDone / 60_000, hours, everyDay, budget: tickBudget(LIMITS) };
}

async function realCost() {
  const fake = await startFakeYandex();
  const COUNT = 1000;
  for (let i = 1; i <= COUNT; i++) {
    const r = rnd(i);
    fake.state.serps[`query ${i}`] = serp('bench.example', r < 0.4 ? 1 + (i % 10) : r < 0.75 ? 11 + (i % 40) : 0);
  }
  const b = await startBenchApp({ YANDEX_SEARCH_URL: fake.url, YANDEX_SEARCH_API_KEY: fake.state.key, YANDEX_SEARCH_FOLDER_ID: fake.state.folderId, YANDEX_SEARCH_PER_SECOND: '1000', YANDEX_SEARCH_PER_HOUR: '10000000' });
  try {
    const rpc = async (method: string, args: unknown) => {
      const r = await fetch(`${b.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: b.hash }, body: JSON.stringify({ methods: [method], args: [args], host: 0 }) });
      return ((await r.json()) as Array<{ result: any }>)[0].result;
    };
    const { id_project } = await rpc('position.saveProject', { name: 'Bench', domain: 'bench.example' });
    await rpc('position.saveQueries', { id_project, queries: Array.from({ length: COUNT }, (_, i) => `query ${i + 1}`) });
    const checks = b.app.get(PositionCheckService);
    const ds = b.app.get<DataSource>(getDataSourceToken());
    const load = loadavg()[0];
    const started = Date.now();
    let checked = 0;
    let requests = 0;
    const tickMs: number[] = [];
    while (checked < COUNT) {
      const s = Date.now();
      const r = await checks.tick(Date.now());
      tickMs.push(Date.now() - s);
      if (!r.checked) break;
      checked += r.checked;
      requests += r.requests;
    }
    const wall = (Date.now() - started) / 1000;
    const [{ n }] = (await ds.query('SELECT COUNT(*) AS n FROM position_history')) as Array<{ n: number }>;
    tickMs.sort((a, z) => a - z);
    return { checked, requests, wall, load, perSecond: checked / wall, history: Number(n), tickP50: percentile(tickMs, 50), fakeRequests: fake.requests.length };
  } finally {
    await b.close();
    await fake.close();
  }
}

const sim = simulate();
console.log(JSON.stringify(sim, null, 1));
const real = await realCost();
console.log(JSON.stringify(real));

const ok = sim.maxSecond <= LIMITS.perSecond && sim.maxHour <= LIMITS.perHour && sim.everyDay;
writeSection('position', `## Search positions: 10,000 queries a day within the Yandex Search API quotas

Simulated clock (src/modules/position/schedule.ts rules, one tick a minute, three days), then the real app on SQLite. ${machine()}. Run: \`npm run bench -- position\`.

| measure | value |
|---|---|
| queries (50 projects x 200, daily, depth 100) | ${N} |
| tick budget (10/s, 10,000/h, 90 %) | ${sim.budget} requests a minute |
| first pass of all 10,000 new queries done after | ${sim.firstPassMin.toFixed(0)} min |
| per day: queries checked / checks / requests | ${sim.perDay.map((d) => `day ${d.day}: ${d.queries} / ${d.checks} / ${d.requests}`).join('; ')} |
| every query checked exactly once on day 2 and day 3 | ${sim.everyDay ? 'yes' : 'NO'} |
| most requests in any second / any hour (quota 10 / 10,000) | ${sim.maxSecond} / ${sim.maxHour} |
| checks per hour on day 2: min / max | ${Math.min(...sim.hours)} / ${Math.max(...sim.hours)} |
| real app, 1,000 due queries, quotas lifted: checks/s of wall time | ${real.perSecond.toFixed(0)} (${real.checked} checks, ${real.requests} requests, ${real.wall.toFixed(1)} s; one tick; load average ${real.load.toFixed(1)} at the start: other work shared the cores) |

${ok ? 'Within the quotas.' : 'OUTSIDE THE QUOTAS: see above.'} Day 1 is the catch-up of 10,000 queries added at once (all due at once: they are checked as fast as the budget allows, and those checked more than half a day before their slot are checked again at it, which is why day 1 has more checks than queries; about ${Math.round(sim.budget / (sim.perDay[0].requests / Math.max(1, sim.perDay[0].checks)))} queries a minute at this mix); from then on each query has its own slot in the day (a hash of its id), so checks spread evenly over the hours instead of bunching at midnight. The mix: 40 % on page one (1 request), 35 % on pages 2-5 (2-5 requests), 25 % not in the top 100 (10 requests), about ${(sim.perDay[1].requests / Math.max(1, sim.perDay[1].checks)).toFixed(1)} requests a check. The console's own cost per check (database writes, XML decoding, the answer cache) is far below what the quota allows, so the quota, not the console, bounds a day's checks: at this mix about ${Math.floor((LIMITS.perHour * 24 * 0.9) / Math.max(1, sim.perDay[1].requests / Math.max(1, sim.perDay[1].checks))).toLocaleString('en')} queries a day fit in 10,000 requests an hour.
`);
process.exit(ok ? 0 : 1);
