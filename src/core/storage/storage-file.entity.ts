import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * One reference to a stored image (docs/architecture.md "Storage"): the image `alias` (the MD5 hex of
 * the stored bytes) is used by the owner `code` (a site's `code_in_storage`, or an area of the console
 * such as 'abs' for banners). One row per (alias, code): the same image uploaded twice for one code is
 * one reference; the file goes when its last reference is removed. `file_name` is the uploader's name,
 * for display only (files are named by their alias); the other columns describe the stored bytes.
 */
@Entity('storage_files')
@Unique('UQ_storage_files_alias_code', ['alias', 'code'])
@Index('IDX_storage_files_code_created', ['code', 'created_at'])
export class StorageFileEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'varchar', length: 32 }) alias: string;
  @Column({ type: 'varchar', length: 64 }) code: string;
  @Column({ type: 'varchar', length: 190 }) domain: string;
  @Column({ type: 'varchar', length: 190 }) file_name: string;
  /** The stored content type: image/jpeg, image/png, image/webp or image/gif. */
  @Column({ type: 'varchar', length: 32 }) type: string;
  @Column({ type: 'integer' }) size: number;
  @Column({ type: 'integer' }) width: number;
  @Column({ type: 'integer' }) height: number;
  /** Who uploaded it (null: the console itself, e.g. the demo seeder). */
  @Column({ type: 'integer', nullable: true }) uid: number | null;
  @Column({ type: 'datetime', precision: 3 }) created_at: Date;
}
