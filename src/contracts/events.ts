/**
 * Every server-to-client socket event, typed in one map. Areas add their events here; the server's
 * RealtimeService and the UI's socket client both read it.
 */
export interface ServerEvents {
  /** A message refused by the guard or failed in its handler. */
  exception: { status: 'error'; message: string };
}

/** Rooms every socket joins on connect: `min:1` holds admins, `min:10` content and stronger, ... */
export const ROLE_ROOM_LEVELS = [1, 10, 100] as const;
export const roleRoom = (level: number) => `min:${level}`;
