import type { INestApplication } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AccessLogStore } from '../../src/modules/firewall/worker/access-log.store.js';
import { parseChunk } from '../../src/modules/firewall/worker/log-parser.js';

/**
 * Stores nginx log lines as the firewall worker does: parsed by the real parser and committed by the
 * store with a cursor move of a (made-up) proxy. Every line must parse.
 */
export async function seedLines(app: INestApplication, lines: string[], proxyId: number, proxyAddr: string): Promise<void> {
  const path = '/var/log/nginx/access.log';
  await app.get<DataSource>(getDataSourceToken()).query('INSERT INTO fw_log_cursors (proxy_id, path, inode, pos, `lines`, bad_lines) VALUES (?, ?, ?, ?, ?, ?)', [proxyId, path, '1', 0, 0, 0]);
  const { batch } = parseChunk(Buffer.from(lines.join('\n') + '\n'));
  if (batch.length !== lines.length) throw new Error(`${lines.length - batch.length} of ${lines.length} seeded lines did not parse`);
  await app.get(AccessLogStore).commit({ proxy_id: proxyId, proxy_addr: proxyAddr }, batch, { inode: '1', pos: 0 }, { inode: '1', pos: batch.endOffset, path }, 0, null);
}
