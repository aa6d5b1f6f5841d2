import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run one after another as a single Express layer: what `app.use(a, b, c)` does, without the
 * router's per-layer bookkeeping for each (bootstrap.ts mounts one chain per branch of the request
 * path). An error passed to next(), or thrown, skips the rest and goes to the app's error handlers.
 */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let i = 0;
    const step = (err?: unknown) => {
      if (err) return done(err);
      const handler = handlers[i++];
      if (!handler) return done();
      try {
        handler(req, res, step);
      } catch (thrown) {
        done(thrown);
      }
    };
    step();
  };
}
