import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InputStreamModule } from '../input-stream/input-stream.module.js';
import { CommentsController } from './comments.controller.js';
import { CommentDecisionEntity, CommentEntity } from './comments.entities.js';
import { CommentsService } from './comments.service.js';

/** /comments (issue 19; docs/content.md "Comments"): comments the sites report through the input stream, moderated by admins. */
@Module({
  imports: [TypeOrmModule.forFeature([CommentEntity, CommentDecisionEntity]), InputStreamModule],
  controllers: [CommentsController],
  providers: [CommentsService],
  exports: [CommentsService],
})
export class CommentsModule {}
