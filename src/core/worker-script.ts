/**
 * Where a worker thread's script is (used by every module that starts worker threads): compiled, the
 * `.js` beside the calling module (dist/src/...). Run from the TypeScript sources (ts-jest), there is
 * no .js beside it: the worker then starts from the `.ts` through a small module hook that transpiles
 * TypeScript with the `typescript` package (a dev dependency, present wherever the sources run); the
 * code that runs is the same.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HOOKS = (tsPath: string) => `
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
const ts = createRequire(${JSON.stringify(pathToFileURL(tsPath).href)})(${JSON.stringify(tsPath)});
const local = (s) => s.startsWith('./') || s.startsWith('../');
export async function resolve(specifier, context, next) {
  if (local(specifier) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const js = new URL(specifier, context.parentURL);
    const tsUrl = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (!existsSync(fileURLToPath(js)) && existsSync(fileURLToPath(tsUrl))) return { url: tsUrl.href, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const out = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, inlineSourceMap: true, inlineSources: true },
  });
  return { format: 'module', source: out.outputText, shortCircuit: true };
}
`;

/** The message of an error from any realm (worker errors are not `instanceof Error` under jest's VM). */
export const messageOf = (e: unknown) => (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e));

const dataUrl = (code: string) => new URL('data:text/javascript,' + encodeURIComponent(code));

/**
 * A worker script `name` (without extension) beside `base` (the caller's `import.meta.url`): the
 * compiled .js, else the .ts through a transpiling hook.
 */
export function resolveWorkerScript(name: string, base: string): URL {
  const js = new URL(`./${name}.js`, base);
  if (base.startsWith('file:') && existsSync(fileURLToPath(js))) return js;
  const ts = new URL(`./${name}.ts`, base);
  if (!base.startsWith('file:') || !existsSync(fileURLToPath(ts))) throw new Error(`${name} not found beside ${base} (run npm run build)`);
  let tsPath: string;
  try {
    tsPath = createRequire(base).resolve('typescript');
  } catch {
    throw new Error(`${name}: running from TypeScript sources needs the typescript package; run the compiled dist/ instead`);
  }
  const hooks = dataUrl(HOOKS(tsPath));
  return dataUrl(`import { register } from 'node:module';\nregister(${JSON.stringify(hooks.href)});\nawait import(${JSON.stringify(ts.href)});\n`);
}
