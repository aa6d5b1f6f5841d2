import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** 001 §3 Network host (migration 1808000000000-network-info.ts); `domain` unique. */
@Entity('net_hosts')
@Unique('UQ_net_hosts_domain', ['domain'])
export class NetHostEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 190 }) name: string;
  @Column({ type: 'varchar', length: 190 }) domain: string;
  @Column({ type: 'varchar', length: 64, default: '' }) code_in_storage: string;
}

/**
 * 001 §3 Page of a network host. `body` is LONGTEXT on MariaDB and TEXT on SQLite (the migration picks
 * by dialect); an entity has one type for both, so this table is left out of the schema builder's
 * comparison (`synchronize: false`) and test/api/network-info.e2e.ts checks its columns instead.
 */
@Entity({ name: 'net_pages', synchronize: false })
@Index('IDX_net_pages_host_date', ['host', 'date', 'Id'])
@Index('IDX_net_pages_date', ['date', 'Id'])
export class NetPageEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) host: number;
  @ManyToOne(() => NetHostEntity, { onDelete: 'RESTRICT', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'host', foreignKeyConstraintName: 'FK_net_pages_host' })
  hostRow?: NetHostEntity;
  @Column({ type: 'varchar', length: 255 }) title: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'varchar', length: 255, default: '' }) h1: string;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Column({ type: 'text', nullable: true }) keys_relay: string | null;
  @Column({ type: 'integer', default: 1 }) storage: number;
  @Column({ type: 'varchar', length: 32, default: '' }) cover: string;
  @Column({ type: 'datetime', precision: 3, nullable: true }) date: Date | null;
  @Column({ type: 'datetime', precision: 3, nullable: true }) date_update: Date | null;
}

/** 001 §3 Category (network) of a host. */
@Entity('net_cats')
@Index('IDX_net_cats_host', ['host', 'Id'])
export class NetCatEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 255 }) title: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'varchar', length: 255, default: '' }) h1: string;
  @Column({ type: 'text', nullable: true }) body_bottom: string | null;
  @Column({ type: 'integer' }) host: number;
  @ManyToOne(() => NetHostEntity, { onDelete: 'RESTRICT', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'host', foreignKeyConstraintName: 'FK_net_cats_host' })
  hostRow?: NetHostEntity;
  @Column({ type: 'integer', default: 1 }) storage: number;
  @Column({ type: 'varchar', length: 32, default: '' }) cover: string;
}

/** The page<->category relation (Cats.setRelayCatAndPage, a page's categoriesRelay). */
@Entity('net_cat_page')
@Index('IDX_net_cat_page_page', ['Id_page'])
export class NetCatPageEntity {
  @PrimaryColumn({ type: 'integer' }) Id_cat: number;
  @PrimaryColumn({ type: 'integer' }) Id_page: number;
  @ManyToOne(() => NetCatEntity, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'Id_cat', foreignKeyConstraintName: 'FK_net_cat_page_cat' })
  cat?: NetCatEntity;
  @ManyToOne(() => NetPageEntity, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'Id_page', foreignKeyConstraintName: 'FK_net_cat_page_page' })
  page?: NetPageEntity;
}

export const NET_ENTITIES = [NetHostEntity, NetPageEntity, NetCatEntity, NetCatPageEntity];
