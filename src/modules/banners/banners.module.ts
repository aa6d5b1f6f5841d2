import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StorageModule } from '../../core/storage/storage.module.js';
import { InputStreamModule } from '../input-stream/input-stream.module.js';
import { BannersController } from './banners.controller.js';
import { BANNER_ENTITIES } from './banners.entities.js';
import { BannersService } from './banners.service.js';

/** Ad banners (issue 19; docs/content.md "Banners"): banners, their images (StorageService) and the counters the sites report. */
@Module({
  imports: [TypeOrmModule.forFeature(BANNER_ENTITIES), StorageModule, InputStreamModule],
  controllers: [BannersController],
  providers: [BannersService],
  exports: [BannersService],
})
export class BannersModule {}
