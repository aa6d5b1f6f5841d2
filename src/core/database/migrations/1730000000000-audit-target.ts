import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/** Audit: the object an entry acted on (`target`, e.g. "server web-1 (#3)"), named by the service that knows it. */
export class AuditTarget1730000000000 implements MigrationInterface {
  name = 'AuditTarget1730000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('audit_log', new TableColumn(col.str('target', 190, { isNullable: true })));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('audit_log', 'target');
  }
}
