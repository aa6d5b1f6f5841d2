import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { FilesSendArgs } from '../../contracts/storage.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../auth/actor.js';
import type { AuthedRequest } from '../auth/auth.guard.js';
import { parseInput } from '../errors.js';
import { StorageFilesService } from './storage-files.service.js';

/** 001 §7 "Storage upload": POST /api/storage/upload, the same body and answer as `network_info.Files.send`. */
@Controller('storage')
@RequireRole(Role.admin)
export class StorageController {
  constructor(private readonly files: StorageFilesService) {}

  /** Body {server?, code_in_storage, domain, file_name, file_data, alias?}: [{alias, url, size, width, height, type}]. */
  @Post('upload')
  @HttpCode(200)
  upload(@Body() body: unknown, @Req() req: AuthedRequest) {
    return this.files.send(parseInput(FilesSendArgs, body ?? {}), { actor: req.actor! });
  }
}
