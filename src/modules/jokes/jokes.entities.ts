import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Joke category of 001 §3 (migration 1804000000000-content-extra.ts); cat_body is sanitised HTML. */
@Entity('joke_cats')
export class JokeCatEntity {
  @PrimaryGeneratedColumn() cid: number;
  @Column({ type: 'varchar', length: 255, default: '' }) title: string;
  @Column({ type: 'varchar', length: 255, default: '' }) meta_title: string;
  @Column({ type: 'varchar', length: 255, default: '' }) meta_h1: string;
  @Column({ type: 'text', nullable: true }) meta_description: string | null;
  @Column({ type: 'text', nullable: true }) cat_body: string | null;
}
