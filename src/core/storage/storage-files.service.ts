import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { Role } from '../../contracts/roles.js';
import {
  FilesByCodeArgs, FilesRemoveArgs, FilesSendArgs, STORAGE_MSG, STORAGE_PAGE, STORAGE_PAGE_MAX,
  type StorageCodeFiles, type StorageRemoved, type StoredImage,
} from '../../contracts/storage.js';
import { auditTarget } from '../audit/audit-target.js';
import { notFound } from '../errors.js';
import { Rpc, type RpcContext } from '../rpc/rpc.decorator.js';
import { StorageService } from './storage.service.js';

/**
 * The storage methods of 001 §7 (`network_info.Files.*`) and the REST "Storage upload" row: uploads,
 * a code's images, and dropping a reference (docs/architecture.md "Storage"). Admins only: network info
 * is an admin area (001 §6). The work is StorageService's; this is the wire.
 */
@Injectable()
export class StorageFilesService {
  constructor(private readonly storage: StorageService) {}

  @Rpc('network_info.Files.send', {
    role: Role.admin, write: true, input: FilesSendArgs,
    summary: '{server?, code_in_storage, domain, file_name, file_data (base64 or a data URL: JPEG, PNG, WebP or GIF by content, at most STORAGE_MAX_MB), alias?}: '
      + 'checks, re-encodes (metadata dropped) and stores the image for the code; answers [{alias, url, size, width, height, type}] (alias = MD5 hex of the stored bytes). '
      + '`alias`: this upload replaces that image of the code (its reference is dropped after the new one is stored). `server` is accepted and ignored (one backend). Also POST /api/storage/upload',
  })
  async send(a: z.output<typeof FilesSendArgs>, ctx?: RpcContext): Promise<StoredImage[]> {
    const stored = await this.storage.putBase64(a.file_data, { code: a.code_in_storage, domain: a.domain, fileName: a.file_name, uid: ctx?.actor?.uid ?? null }, 'file_data');
    auditTarget('storage image', `${a.code_in_storage}/${stored.alias}`);
    if (a.alias && a.alias !== stored.alias) await this.storage.remove(a.alias, a.code_in_storage);
    return [stored];
  }

  @Rpc('network_info.Files.getUrlStorageByCode', {
    role: Role.admin, input: FilesByCodeArgs,
    summary: `{code_in_storage, p_?, limit? (${STORAGE_PAGE}, at most ${STORAGE_PAGE_MAX})}: {code_in_storage, url (the base URL: \`\${url}/<alias>\` is an image), files: [{alias, url, size, width, height, type, domain, file_name, created_at}] newest first, count, page, limit}`,
  })
  async getUrlStorageByCode(a: z.output<typeof FilesByCodeArgs>): Promise<StorageCodeFiles> {
    const page = a.p_ ?? 1;
    const limit = a.limit ?? STORAGE_PAGE;
    const { rows, count } = await this.storage.list(a.code_in_storage, page, limit);
    return {
      code_in_storage: a.code_in_storage,
      url: this.storage.publicBase,
      files: rows.map((r) => ({
        alias: r.alias, url: this.storage.publicUrlOf(r.alias), size: r.size, width: r.width, height: r.height, type: r.type,
        domain: r.domain, file_name: r.file_name, created_at: r.created_at.toISOString(),
      })),
      count, page, limit,
    };
  }

  @Rpc('network_info.Files.remove', {
    role: Role.admin, write: true, input: FilesRemoveArgs,
    summary: `{code_in_storage, alias}: drops the code's reference to the image; the file is deleted when no other reference is left. Answers {alias, code_in_storage, file_removed, message: '${STORAGE_MSG.deleteOk}'}; an alias the code does not hold: 404 '${STORAGE_MSG.notFound}'`,
  })
  async remove(a: z.output<typeof FilesRemoveArgs>): Promise<StorageRemoved> {
    const r = await this.storage.remove(a.alias, a.code_in_storage);
    if (!r.removed) throw notFound(STORAGE_MSG.notFound);
    auditTarget('storage image', `${a.code_in_storage}/${a.alias}`);
    return { alias: a.alias, code_in_storage: a.code_in_storage, file_removed: r.fileRemoved, message: STORAGE_MSG.deleteOk };
  }
}
