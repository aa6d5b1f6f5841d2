import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { MONEY_MSG } from '../../contracts/money.js';
import { Role } from '../../contracts/roles.js';
import type { Actor } from '../../core/auth/actor.js';
import { forbidden, notFound } from '../../core/errors.js';
import type { Row } from './money-store.js';

/** A box as read for a caller, with how the caller holds it. */
export interface BoxAccess {
  row: Row;
  /** Admin, or the box's owner: may edit, share (admins) and delete the box itself. */
  manage: boolean;
  /** Shared with the caller (not the owner). */
  shared: boolean;
}

/**
 * Who may use a box (issue 21 "Roles"; docs/money.md "Who sees a box"): its owner, the users an admin
 * shared it with, and admins. Everyone else is answered 404 'Box not found', the same as for a box
 * that does not exist, so an id tells nothing about other users' boxes. Every money method goes
 * through here on the server (the menu item is not the check).
 */
@Injectable()
export class MoneyAccess {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  isAdmin = (actor: Actor) => actor.role <= Role.admin;

  /** The box for reading and writing its transactions and rules; `manage` for the box itself (edit, delete). */
  async box(actor: Actor, bid: number, need: 'use' | 'manage' = 'use'): Promise<BoxAccess> {
    const [row] = await this.db.query('SELECT b.*, u.name AS owner FROM money_boxes b LEFT JOIN users u ON u.uid = b.uid WHERE b.bid = ?', [bid]);
    if (!row) throw notFound(MONEY_MSG.boxNotFound);
    const own = Number(row.uid) === actor.uid;
    let shared = false;
    if (!own) {
      const [s] = await this.db.query('SELECT 1 AS x FROM money_box_users WHERE bid = ? AND uid = ?', [bid, actor.uid]);
      shared = !!s;
    }
    if (!own && !shared && !this.isAdmin(actor)) throw notFound(MONEY_MSG.boxNotFound);
    const manage = own || this.isAdmin(actor);
    if (need === 'manage' && !manage) throw forbidden('Only the owner of the box or an admin can change or delete the box itself');
    return { row, manage, shared: shared && !own };
  }

  /**
   * SQL limiting `column` (a box id) to the boxes the caller sees: none for admins (every box), else
   * owned or shared with them.
   */
  scope(actor: Actor, column: string): { sql: string; params: unknown[] } {
    if (this.isAdmin(actor)) return { sql: '1 = 1', params: [] };
    return {
      sql: `${column} IN (SELECT bid FROM money_boxes WHERE uid = ? UNION SELECT bid FROM money_box_users WHERE uid = ?)`,
      params: [actor.uid, actor.uid],
    };
  }
}
