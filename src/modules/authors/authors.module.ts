import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthorEntity } from '../content/content.entities.js';
import { AuthorIndexService } from './author-index.service.js';
import { AUTHOR_MERGE_ENTITIES } from './author-merge.entity.js';
import { AuthorsController } from './authors.controller.js';
import { AuthorsService } from './authors.service.js';

/**
 * Authors and their merge (issue 13 part B; docs/authors.md). Part of the content area: it reads and
 * writes the content tables (authors, books) the ContentModule owns, and keeps its merge history.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuthorEntity, ...AUTHOR_MERGE_ENTITIES])],
  controllers: [AuthorsController],
  providers: [AuthorsService, AuthorIndexService],
  exports: [AuthorsService],
})
export class AuthorsModule {}
