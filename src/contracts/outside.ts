/**
 * Outside services, shared by the server and the UI (docs/architecture.md "Outside services"). "Not
 * configured" is answered one way: a method whose service has no configuration here answers
 * `{configured: false}` (the screen says so plainly), and with one `{configured: true, ...}`. A client
 * called anyway throws an OutsideError with reason `config` (src/core/outside/outside-error.ts).
 */
export interface NotConfigured {
  configured: false;
}

export type Configured<T extends object> = NotConfigured | ({ configured: true } & T);

export const NOT_CONFIGURED: NotConfigured = Object.freeze({ configured: false as const });

/** What a settings answer shows of a service: whether it is configured and where it points, secrets masked. */
export interface OutsideServiceView {
  service: string;
  configured: boolean;
  /** The address it talks to, credentials masked (`smtp://alerts:***@mail.example.org:587`); '' when unset. */
  target: string;
  /** A credential, answered only as set or not set. */
  credential?: 'set' | 'not set';
  /** The environment variables that configure it. */
  env: string[];
  /** Other settings worth showing (never a secret). */
  details?: Record<string, string | number | null>;
}
