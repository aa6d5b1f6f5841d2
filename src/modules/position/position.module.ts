import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutsideModule } from '../../core/outside/outside.module.js';
import { PositionCheckService } from './position-check.service.js';
import { PositionController } from './position.controller.js';
import { POSITION_ENTITIES } from './position.entities.js';
import { PositionService } from './position.service.js';
import { POSITION_SOURCES, type PositionSource } from './sources/source.js';
import { YandexPositionSource } from './sources/yandex.source.js';

/**
 * Search positions (issue 23; 001 §2 "Position tracking"; docs/position.md): projects and queries,
 * checks through position sources (the first: Yandex Search API v2), the check job's work.
 * A second engine: one more source class in `POSITION_SOURCES` below.
 */
@Module({
  imports: [TypeOrmModule.forFeature(POSITION_ENTITIES), OutsideModule],
  controllers: [PositionController],
  providers: [
    YandexPositionSource,
    { provide: POSITION_SOURCES, useFactory: (...sources: PositionSource[]) => sources, inject: [YandexPositionSource] },
    PositionService,
    PositionCheckService,
  ],
  exports: [PositionService, PositionCheckService],
})
export class PositionModule {}
