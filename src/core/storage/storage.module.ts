import { Module } from '@nestjs/common';
import { StorageService } from './storage.service.js';

/** The one storage service (docs/architecture.md "Storage"): areas that keep uploaded images import this module. */
@Module({ providers: [StorageService], exports: [StorageService] })
export class StorageModule {}
