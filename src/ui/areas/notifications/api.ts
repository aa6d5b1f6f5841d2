/** Typed RPC methods of the notification list (notify.*; docs/todo.md "Notifications"). */
import type { NotificationList, NotifySettings } from '../../../contracts/notifications.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'notify.getList': { args: { unread?: 0 | 1; p_?: number; limit?: number }; result: NotificationList };
    'notify.markRead': { args: { Id?: number; all?: 0 | 1 }; result: { unread: number } };
    'notify.getSettings': { args: Record<string, never>; result: NotifySettings };
    'notify.saveSettings': { args: { email: string }; result: NotifySettings & { message: string } };
  }
}
