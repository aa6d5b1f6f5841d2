import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col } from '../columns.js';

/**
 * Node agent (issue 12, docs/agent.md): `servers.agent_url`, the base URL of the node's agent; empty
 * means the default `http://{ip_local or ip}:{NODE_AGENT_PORT}`.
 */
export class Agent1795000000000 implements MigrationInterface {
  name = 'Agent1795000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('servers', new TableColumn(col.str('agent_url', 255, { default: "''" })));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('servers', 'agent_url');
  }
}
