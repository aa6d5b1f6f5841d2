/**
 * The console's notification list (issue 21: todo alerts arrive in the console): what a user was told
 * while or before they were looking, with an unread count, shown from the top bar's bell. Shapes and
 * input schemas shared by the server and the UI. Decisions: docs/todo.md "Notifications".
 */
import { z } from 'zod';
import { flag, id, int, INT_MAX, text } from './fields.js';

export const NOTIFY_PAGE = 20;
export const NOTIFY_LIMIT_MAX = 100;
export const NOTIFY_EMAIL_MAX = 254;

export const NOTIFY_MSG = {
  notFound: 'Notification not found',
  saved: 'Save ok!',
  badEmail: 'email must be an e-mail address',
} as const;

export type NotificationLevel = 'info' | 'warning';

export interface NotificationView {
  Id: number;
  /** What sent it: 'todo.alert'. */
  kind: string;
  level: NotificationLevel;
  title: string;
  body: string;
  /** A screen of the console it is about ('/todo/show/5'), or ''. */
  link: string;
  /** Unix seconds. */
  ts: number;
  /** Unix seconds it was marked read; 0 while unread. */
  read_at: number;
}

export interface NotificationList {
  list: NotificationView[];
  count: number;
  unread: number;
  page: number;
  limit: number;
}

/** notify.getSettings: where the user's alerts go by e-mail. */
export interface NotifySettings {
  /** The user's own address for alert e-mail ('' none: ALERT_MAIL_TO is used). */
  email: string;
  /** SMTP_URL is set. */
  mail_configured: boolean;
  /** ALERT_MAIL_TO is set (the addresses themselves are not answered). */
  alert_to_set: boolean;
}

export const NotifyListArgs = z.object({
  unread: flag('unread').optional(),
  p_: int(1, INT_MAX, 'p_').optional(),
  limit: int(1, NOTIFY_LIMIT_MAX, 'limit').optional(),
});

/** notify.markRead: one notification by Id, or every unread one (`all: 1`). */
export const NotifyMarkReadArgs = z.object({
  Id: id('Id').optional(),
  all: flag('all').optional(),
});

export const NotifySaveSettingsArgs = z.object({
  email: text('email', NOTIFY_EMAIL_MAX).refine((v) => v === '' || z.email().safeParse(v).success, NOTIFY_MSG.badEmail),
});
