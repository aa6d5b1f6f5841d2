import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { MSG } from '../../contracts/messages.js';
import { AppError } from '../errors.js';
import { AuditService } from '../audit/audit.service.js';
import { NoAudit, Public } from './actor.js';
import { clientIp, type AuthedRequest } from './auth.guard.js';
import { AuthService } from './auth.service.js';

@Controller('user')
export class AuthController {
  constructor(private readonly auth: AuthService, private readonly audit: AuditService) {}

  /** 000 §7 lists GET /user/auth with the key in the query; credentials never travel in a URL here. */
  @Public()
  @Get('auth')
  authByGet(): never {
    throw new AppError(405, 'Use POST /api/user/auth with {key}: credentials are never sent in a URL', 'http');
  }

  @Public()
  @NoAudit()
  @Post('auth')
  @HttpCode(200)
  async login(@Body() body: unknown, @Req() req: AuthedRequest) {
    const ip = clientIp(req);
    const started = Date.now();
    try {
      const { user, ...session } = await this.auth.login(body, ip, String(req.headers['user-agent'] ?? ''));
      await this.audit.record({ actor: { uid: user.uid, login: user.login }, method: 'user.auth', outcome: 'ok', started, ip });
      return session;
    } catch (err) {
      const login = typeof (body as { key?: unknown })?.key === 'string' ? this.safeLogin((body as { key: string }).key) : null;
      await this.audit.record({ actor: login ? { uid: 0, login } : null, method: 'user.auth', outcome: 'error', message: (err as Error).message, started, ip });
      throw err;
    }
  }

  private safeLogin(key: string): string | null {
    try { return this.auth.decodeKey(key).login.slice(0, 64) || null; } catch { return null; }
  }

  @Post('logout')
  @HttpCode(200)
  async logout(@Req() req: AuthedRequest) {
    await this.auth.logout(String(req.headers['user'] ?? ''));
    return { message: 'Signed out' };
  }

  @Public()
  @Post('register')
  @HttpCode(200)
  async register(@Body() body: unknown, @Req() req: AuthedRequest) {
    const r = await this.auth.register(body, clientIp(req));
    return { ...r, message: MSG.registered };
  }
}
