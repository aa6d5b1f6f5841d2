import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BookCatEntity } from '../content/content.entities.js';
import { CategoriesController } from './categories.controller.js';
import { CategoriesService } from './categories.service.js';

/** Book categories (issue 13 part B): part of the content area, on the book_cats table the ContentModule owns. */
@Module({
  imports: [TypeOrmModule.forFeature([BookCatEntity])],
  controllers: [CategoriesController],
  providers: [CategoriesService],
  exports: [CategoriesService],
})
export class CategoriesModule {}
