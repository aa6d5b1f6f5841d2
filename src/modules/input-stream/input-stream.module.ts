import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InputStreamIngestController, StatsController } from './input-stream.controller.js';
import { StreamBatchEntity, StreamSiteEntity } from './input-stream.entities.js';
import { InputStreamService } from './input-stream.service.js';

/** Input stream: site tokens, batch ingestion, hour/day aggregates and the reads behind /input_stream. */
@Module({
  imports: [TypeOrmModule.forFeature([StreamSiteEntity, StreamBatchEntity])],
  controllers: [InputStreamIngestController, StatsController],
  providers: [InputStreamService],
  exports: [InputStreamService],
})
export class InputStreamModule {}
