import { SetMetadata } from '@nestjs/common';

/** Who is calling: attached to the request (REST, RPC) or the socket (realtime) by the auth guard. */
export interface Actor {
  uid: number;
  login: string;
  name: string;
  role: number;
  ip?: string;
  sessionId?: number;
}

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_ROLE = 'auth:role';
export const NO_AUDIT = 'audit:skip';

/** Reachable without a session (auth, register, health). Everything else needs one: deny by default. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
/** The weakest role allowed (lower is stronger). Without it, any signed-in user. */
export const RequireRole = (role: number) => SetMetadata(REQUIRED_ROLE, role);
/** A state-changing route that records its own audit entry (or must not be recorded twice). */
export const NoAudit = () => SetMetadata(NO_AUDIT, true);
