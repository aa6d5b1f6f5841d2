import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Sonnik category of 001 §3 (migration 1804000000000-content-extra.ts); body is sanitised HTML. */
@Entity('sonnik_cats')
@Index('IDX_sonnik_cats_letter', ['letter', 'Id'])
export class SonnikCatEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 8, default: '' }) letter: string;
  @Column({ type: 'varchar', length: 190, default: '' }) uri: string;
  @Column({ type: 'varchar', length: 255, default: '' }) name: string;
  @Column({ type: 'text', nullable: true }) body: string | null;
}

/** Sonnik post of 001 §3, in the category Id_cat. */
@Entity('sonnik_posts')
@Index('IDX_sonnik_posts_cat', ['Id_cat', 'Id'])
export class SonnikPostEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer', default: 0 }) Id_cat: number;
  @Column({ type: 'integer', default: 0 }) views: number;
  @Column({ type: 'varchar', length: 255, default: '' }) title: string;
  @Column({ type: 'varchar', length: 255, default: '' }) title_ai: string;
}
