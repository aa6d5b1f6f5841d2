import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { COMPILATION_ENTITIES } from './compilations.entities.js';
import { CompilationsController } from './compilations.controller.js';
import { CompilationsService } from './compilations.service.js';

/**
 * Compilations (issue 19; docs/content.md "Compilations"): part of the content area. Reads the books
 * and categories the ContentModule owns and the input stream's day rows (the auto compilation).
 */
@Module({
  imports: [TypeOrmModule.forFeature(COMPILATION_ENTITIES)],
  controllers: [CompilationsController],
  providers: [CompilationsService],
  exports: [CompilationsService],
})
export class CompilationsModule {}
