/**
 * What the reference ant reads out of a page (docs/ant.md "Steps"): links with where they stand
 * (inside nav/header/footer, their rel), the title and the main text (article, else main, else body,
 * without script, style, nav, header, footer).
 */
import { Parser } from 'htmlparser2';

export interface PageLink {
  url: string;
  rel: string;
  /** Inside <nav>, <header> or <footer>. */
  chrome: boolean;
}

export interface ParsedPage {
  title: string;
  text: string;
  links: PageLink[];
  /** <link rel="next"> or <a rel="next">. */
  next: string | null;
}

const CHROME = new Set(['nav', 'header', 'footer']);
const SKIP = new Set(['script', 'style', 'noscript', 'template']);
const BLOCK = new Set(['p', 'div', 'br', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'section', 'article', 'main']);

export function parsePage(html: string, base: string): ParsedPage {
  const links: PageLink[] = [];
  let next: string | null = null;
  let title = '';
  let h1 = '';
  const texts = { article: [] as string[], main: [] as string[], body: [] as string[] };
  const stack: string[] = [];
  const count = (tag: string) => stack.reduce((n, t) => n + (t === tag ? 1 : 0), 0);
  const abs = (href: string) => {
    try {
      const u = new URL(href, base);
      u.hash = '';
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
    } catch {
      return null;
    }
  };
  const p = new Parser({
    onopentag(name, attrs) {
      stack.push(name);
      if (BLOCK.has(name)) for (const k of Object.keys(texts) as (keyof typeof texts)[]) texts[k].push('\n');
      const rel = (attrs.rel ?? '').toLowerCase();
      if ((name === 'a' || name === 'link') && attrs.href) {
        const url = abs(attrs.href);
        if (!url) return;
        if (rel.split(/\s+/).includes('next')) next = url;
        if (name === 'a') links.push({ url, rel, chrome: stack.some((t) => CHROME.has(t)) });
      }
    },
    ontext(data) {
      if (stack.some((t) => SKIP.has(t))) return;
      if (stack.includes('title')) title += data;
      if (stack.includes('h1')) h1 += data;
      if (stack.some((t) => CHROME.has(t)) || stack.includes('head')) return;
      if (count('article')) texts.article.push(data);
      if (count('main')) texts.main.push(data);
      if (count('body') || !stack.includes('html')) texts.body.push(data);
    },
    onclosetag(name) {
      const i = stack.lastIndexOf(name);
      if (i >= 0) stack.length = i;
    },
  }, { decodeEntities: true, lowerCaseTags: true });
  p.write(html);
  p.end();
  const pick = texts.article.join('').trim() ? texts.article : texts.main.join('').trim() ? texts.main : texts.body;
  const text = pick.join('').replace(/[ \t\f\v\r]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
  return { title: (title || h1).replace(/\s+/g, ' ').trim(), text, links, next };
}

/** The <loc> URLs of a sitemap and whether it is a sitemap index. */
export function parseSitemap(xml: string, base: string): { index: boolean; urls: string[] } {
  const index = /<sitemapindex[\s>]/i.test(xml);
  const urls: string[] = [];
  for (const m of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) {
    try {
      urls.push(new URL(m[1].replace(/&amp;/g, '&'), base).toString());
    } catch {
      /* not a URL */
    }
  }
  return { index, urls: [...new Set(urls)] };
}
