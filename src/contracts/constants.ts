/** Business constants and limits from 000 §9 and 001 §9, verbatim where the spec names them. */
export const API_TIMEOUT_MS = 30_000;
export const TIMEOUT_MESSAGE = 'Time wait end';
export const TIMEOUT_STATUS = -1;

export const SOCKET_RECONNECT_MS = 3_000;
export const SOCKET_RECONNECT_ATTEMPTS = 10;
export const SOCKET_CLIENT_STATUS = 'moder';

export const MOBILE_BREAKPOINT_PX = 992;

export const NOTIFY_MIN_MS = 3_000;
export const NOTIFY_CHARS_PER_SECOND = 18;
export const NOTIFY_MAX_STACK = 5;
/** How long a notification stays: max(3000 ms, text length / 18 s). */
export const notifyDurationMs = (text: string) =>
  Math.max(NOTIFY_MIN_MS, Math.round((text.length / NOTIFY_CHARS_PER_SECOND) * 1000));

export const PAGE_PARAM = 'p_';
export const AUDIT_PAGE_SIZE = 50;
export const USERS_PAGE_SIZE = 50;

/** Login form and account bounds (000 §5 leaves them open; chosen here). */
export const LOGIN_MAX = 64;
export const NAME_MAX = 128;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/**
 * Failed sign-ins allowed in the window before 429 (docs/architecture.md, Security): per login from
 * one address, and per address over every login. Past LOGIN_FAILURES_SLOW_LOGIN failures of one login
 * from all addresses together, each address gets one failure for that login per window (it slows a
 * distributed guess; an address without failures still signs in).
 */
export const LOGIN_FAILURES_PER_LOGIN = 5;
export const LOGIN_FAILURES_PER_IP = 20;
export const LOGIN_FAILURES_SLOW_LOGIN = 100;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;

/** Registrations (POST /api/user/register) per address in the window, and inactive accounts waiting for an admin. */
export const REGISTRATIONS_PER_IP = 5;
export const REGISTRATION_WINDOW_MS = 60 * 60_000;
export const PENDING_ACCOUNTS_MAX = 50;

export const SSH_DEFAULT_PORT = 20001;
export const SSL_ALERT_DAYS = 5;
export const NGINX_UPSTREAM = { max_fails: 10, fail_timeout: '120s', weight: 5, ports: [443, 80] } as const;

export const CRON_LIST_DEBOUNCE_MS = 400;
