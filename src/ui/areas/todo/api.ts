/** Typed RPC methods of the todo area (declaration merging into the UI's RpcMethods; 001 §7 todo.get/insert/update). */
import type { TodoList, TodoSaved, TodoView } from '../../../contracts/todo.js';

export interface TodoSave {
  title?: string;
  text?: string;
  type?: number;
  alert_type?: string;
  ts_alert?: number;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'todo.get': { args: { Id?: number; status?: number; type?: number; mine?: 0 | 1; p_?: number; limit?: number }; result: TodoView | TodoList };
    'todo.insert': { args: TodoSave & { title: string }; result: TodoSaved };
    'todo.update': { args: TodoSave & { Id: number; status?: number }; result: TodoSaved };
  }
}
