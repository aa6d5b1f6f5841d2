import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SonnikCatEntity, SonnikPostEntity } from './sonnik.entities.js';
import { SonnikService } from './sonnik.service.js';

/** Sonnik (issue 19, 001 §2 "Sonnik"): RPC only (sonnik.*). Decisions: docs/content.md "Q&A, joke categories, sonnik". */
@Module({
  imports: [TypeOrmModule.forFeature([SonnikCatEntity, SonnikPostEntity])],
  providers: [SonnikService],
  exports: [SonnikService],
})
export class SonnikModule {}
