import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageFileEntity } from './storage-file.entity.js';
import { StorageFilesService } from './storage-files.service.js';
import { StorageController } from './storage.controller.js';
import { StorageService } from './storage.service.js';

/**
 * The one storage service (docs/architecture.md "Storage"), its references table, the `network_info.Files.*`
 * methods and POST /api/storage/upload. Areas that keep uploaded images import this module and call
 * StorageService (put / putBase64 / remove / urlOf).
 */
@Module({
  imports: [TypeOrmModule.forFeature([StorageFileEntity])],
  controllers: [StorageController],
  providers: [StorageService, StorageFilesService],
  exports: [StorageService],
})
export class StorageModule {}
