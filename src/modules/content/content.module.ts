import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { ContentController } from './content.controller.js';
import { CONTENT_ENTITIES } from './content.entities.js';
import { ContentService } from './content.service.js';

/** Content I (001 §2 "Books, categories, authors", issue 13). Decisions: docs/content.md. Exports its service only. */
@Module({
  imports: [TypeOrmModule.forFeature(CONTENT_ENTITIES), CfgConfigsModule],
  controllers: [ContentController],
  providers: [ContentService],
  exports: [ContentService],
})
export class ContentModule {}
