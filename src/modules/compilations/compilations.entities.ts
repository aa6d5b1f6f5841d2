import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** 001 §3 Compilation (docs/content.md "Compilations"); items_count kept with the row for the list cards. */
@Entity('compilations')
@Index('IDX_compilations_time', ['time_update', 'Id_compilation'])
export class CompilationEntity {
  @PrimaryGeneratedColumn() Id_compilation: number;
  @Column({ type: 'varchar', length: 255, default: '' }) meta_title: string;
  @Column({ type: 'text', nullable: true }) meta_description: string | null;
  @Column({ type: 'varchar', length: 255, default: '' }) meta_h1: string;
  @Column({ type: 'varchar', length: 255, default: '' }) title_short: string;
  @Column({ type: 'integer', default: 1 }) type: number;
  @Column({ type: 'text', nullable: true }) body_top: string | null;
  @Column({ type: 'text', nullable: true }) body_bottom: string | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) time_update: Date | null;
  @Column({ type: 'integer', default: 0 }) items_count: number;
}

/** 001 §3 item ids (id_compilation, item_id), with the position the list was saved in. */
@Entity('compilation_items')
@Index('IDX_compilation_items_pos', ['id_compilation', 'pos'])
export class CompilationItemEntity {
  @PrimaryColumn({ type: 'integer' }) id_compilation: number;
  @PrimaryColumn({ type: 'integer' }) item_id: number;
  @Column({ type: 'integer', default: 0 }) pos: number;
}

/** 001 §3 relays to categories. */
@Entity('compilation_relay')
@Index('IDX_compilation_relay_cat', ['Id_cat'])
export class CompilationRelayEntity {
  @PrimaryColumn({ type: 'integer' }) id_compilation: number;
  @PrimaryColumn({ type: 'integer' }) Id_cat: number;
}

/** 001 §3 history entries (Id, ts_update): the version a save replaced, as JSON. */
@Entity('compilation_history')
@Index('IDX_compilation_history_comp', ['Id_compilation', 'Id'])
export class CompilationHistoryEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) Id_compilation: number;
  @Column({ type: 'datetime', precision: 3, nullable: true }) ts_update: Date | null;
  @Column({ type: 'text' }) snapshot: string;
}

export const COMPILATION_ENTITIES = [CompilationEntity, CompilationItemEntity, CompilationRelayEntity, CompilationHistoryEntity];
