/**
 * The steps the reference ant works (docs/ant.md "Steps"; 001 §3 step descriptions):
 *   8 sitemap → 1 category links → 2 items of category → 4 page scan → 20 queue uniqueness task →
 *   3 uniqueness check → 21 write uniqueness marks → 22 uniqueness result.
 * Each returns what the task produced (AntTaskOutput); the hub applies it with the completion.
 */
import {
  ANT_IMPLEMENTED_STEPS, ANT_SIMILARITY_THRESHOLD, ANT_STEP_REFUSED, antShingles, jaccard,
  type AntBookShingles, type AntLeasedTask, type AntTaskOutput,
} from '../contracts/ant.js';
import { FetchError, type Fetcher } from './fetcher.js';
import { parsePage, parseSitemap } from './html.js';

/** At most this many marks a page (the best ones) travel to step 21. */
const MAX_MARKS = 20;
/** A page with fewer words is not checked for uniqueness. */
const MIN_WORDS = 8;

export interface StepContext {
  fetcher: Fetcher;
  signal: AbortSignal;
  /** The books' shingles (from the hub, cached by version). */
  books: () => Promise<AntBookShingles[]>;
  log: (line: string) => void;
}

const sameHost = (a: string, b: string) => new URL(a).host === new URL(b).host;

export async function runStep(task: AntLeasedTask, ctx: StepContext): Promise<AntTaskOutput> {
  if (!ANT_IMPLEMENTED_STEPS.includes(task.step)) throw new FetchError(ANT_STEP_REFUSED(task.step), false, true);
  const get = (url: string) => ctx.fetcher.get(url, task.proxy, ctx.signal);
  switch (task.step) {
    case 8: {
      const r = await get(task.item);
      const map = parseSitemap(r.body, r.url);
      ctx.log(`sitemap ${r.url}: ${map.urls.length} ${map.index ? 'sitemaps' : 'pages'}`);
      return { tasks: map.urls.map((item) => ({ step: map.index ? 8 : 1, item })) };
    }
    case 1: {
      const r = await get(task.item);
      const page = parsePage(r.body, r.url);
      const cats = page.links.filter((l) => sameHost(l.url, r.url) && (l.chrome || /\b(category|tag)\b/.test(l.rel))).map((l) => l.url);
      // A page without category links is itself a category (the sitemap listed it).
      const list = [...new Set(cats.length ? cats : [r.url])];
      ctx.log(`category links of ${r.url}: ${list.length}`);
      return { tasks: list.map((item) => ({ step: 2, item })) };
    }
    case 2: {
      const r = await get(task.item);
      const page = parsePage(r.body, r.url);
      const self = new URL(r.url).toString();
      const items = page.links
        .filter((l) => sameHost(l.url, r.url) && !l.chrome && !/\b(category|tag|next|prev)\b/.test(l.rel) && l.url !== self)
        .map((l) => l.url);
      const tasks = [...new Set(items)].map((item) => ({ step: 4, item }));
      if (page.next && sameHost(page.next, r.url)) tasks.push({ step: 2, item: page.next });
      ctx.log(`items of ${r.url}: ${items.length}${page.next ? ' (and a next page)' : ''}`);
      return { tasks };
    }
    case 4: {
      const r = await get(task.item);
      const page = parsePage(r.body, r.url);
      ctx.log(`scanned ${r.url}: ${page.text.length} characters`);
      return { page: { url: task.item, title: page.title, text: page.text }, tasks: [{ step: 20, item: task.item }] };
    }
    case 20:
      return { tasks: [{ step: 3, item: task.item }] };
    case 3: {
      const text = task.data?.text;
      if (text === undefined) throw new FetchError(`${task.item}: not scanned (no step 4 result)`, false, true);
      const mine = antShingles(text);
      if (mine.length < MIN_WORDS) {
        ctx.log(`${task.item}: too short to check`);
        return {};
      }
      const marks: { Id_book: number; similarity: number }[] = [];
      for (const b of await ctx.books()) {
        let best = 0;
        for (const p of b.pages) best = Math.max(best, jaccard(mine, p.shingles));
        if (best >= ANT_SIMILARITY_THRESHOLD) marks.push({ Id_book: b.Id_book, similarity: Math.round(best * 1e6) / 1e6 });
      }
      marks.sort((a, b) => b.similarity - a.similarity);
      ctx.log(`uniqueness of ${task.item}: ${marks.length} book(s) at or above ${ANT_SIMILARITY_THRESHOLD}`);
      return { tasks: [{ step: 21, item: JSON.stringify({ url: task.item, marks: marks.slice(0, MAX_MARKS) }) }] };
    }
    case 21: {
      const v = parseMarks(task.item);
      return { marks: v.marks.map((m) => ({ url: v.url, ...m })), tasks: [{ step: 22, item: v.url }] };
    }
    case 22:
      return { result: { url: task.item } };
  }
  throw new FetchError(ANT_STEP_REFUSED(task.step), false, true);
}

function parseMarks(item: string): { url: string; marks: { Id_book: number; similarity: number }[] } {
  try {
    const v = JSON.parse(item) as { url?: unknown; marks?: unknown };
    if (typeof v.url === 'string' && Array.isArray(v.marks)) {
      return {
        url: v.url,
        marks: v.marks
          .filter((m): m is { Id_book: number; similarity: number } => !!m && Number.isInteger(m.Id_book) && typeof m.similarity === 'number')
          .map((m) => ({ Id_book: m.Id_book, similarity: Math.max(0, Math.min(1, m.similarity)) })),
      };
    }
  } catch {
    /* below */
  }
  throw new FetchError('step 21: the item is not {url, marks}', false, true);
}
