import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AskController } from './ask.controller.js';
import { AskAnswerEntity, AskEntity } from './ask.entities.js';
import { AskService } from './ask.service.js';

/** Q&A (issue 19, 001 §2 "/content/ask"). Decisions: docs/content.md "Q&A, joke categories, sonnik". */
@Module({
  imports: [TypeOrmModule.forFeature([AskEntity, AskAnswerEntity])],
  controllers: [AskController],
  providers: [AskService],
  exports: [AskService],
})
export class AskModule {}
