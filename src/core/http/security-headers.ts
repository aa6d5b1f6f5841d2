import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/** A connect-style middleware on Node's own request and response (helmet's shape). */
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * A header middleware whose output does not depend on the request (helmet with fixed options: no CSP
 * nonce, no function directive), replayed from one recording: the middleware runs once at start on a
 * scratch response, and every request then gets exactly the headers it set, in its order, and loses
 * the ones it removed. helmet stays the source of truth for what the headers are; only its per-request
 * walk through a dozen small middlewares (bench/README.md "Platform") is saved. The result sets them on
 * a response (bootstrap.ts: every response, the API's and the site's).
 *
 * The recording is refused (an error at start, never a silently different header set) when the
 * middleware did not finish synchronously, failed, or read anything from the request: such a
 * middleware is not constant.
 */
export function constantHeaders(middleware: Middleware): (res: ServerResponse) => void {
  const message = new IncomingMessage(new Socket());
  const probe = new Proxy(message, {
    get(target, key, receiver) {
      if (key === 'headers' || key === 'url' || key === 'method' || key === 'path' || key === 'query') {
        throw new Error(`constantHeaders: the middleware reads req.${String(key)}, so its headers may depend on the request`);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const scratch = new ServerResponse(message);
  const removed: string[] = [];
  const remove = scratch.removeHeader.bind(scratch);
  scratch.removeHeader = (name: string) => { removed.push(name); remove(name); };
  let done = false;
  middleware(probe, scratch, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    done = true;
  });
  if (!done) throw new Error('constantHeaders: the middleware did not call next() synchronously');
  // As the middleware spelled them (Content-Security-Policy, not content-security-policy); Node has
  // getRawHeaderNames on every outgoing message, its types only on ClientRequest.
  const names = (scratch as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames();
  const headers = names.map((name) => [name, scratch.getHeader(name)!] as const);
  return (res) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of headers) res.setHeader(name, value);
  };
}
