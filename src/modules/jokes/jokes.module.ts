import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JokesController } from './jokes.controller.js';
import { JokeCatEntity } from './jokes.entities.js';
import { JokesService } from './jokes.service.js';

/** Joke categories (issue 19, 001 §2 "/content/cat_jokes"). Decisions: docs/content.md "Q&A, joke categories, sonnik". */
@Module({
  imports: [TypeOrmModule.forFeature([JokeCatEntity])],
  controllers: [JokesController],
  providers: [JokesService],
  exports: [JokesService],
})
export class JokesModule {}
