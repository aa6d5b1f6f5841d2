/** Typed RPC methods and REST calls of authors (declaration merging into the UI's RpcMethods). */
import type { Paged } from '../../../contracts/auth.js';
import { AUTHOR_MSG, type AuthorMergeView, type AuthorView } from '../../../contracts/authors.js';
import { rest } from '../../api/rest.js';

export interface AuthorRecordInput {
  Id_author: number;
  a_fio?: string;
  opublic?: number;
  new_relay?: string;
  not_relay?: string;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'author.merge': { args: { Id_author: number; ids?: number[] }; result: AuthorMergeView };
    'author.undoMerge': { args: { Id: number }; result: AuthorMergeView & { books_restored: number } };
    'author.mergeHistory': { args: { p_?: number; Id_author?: number }; result: Paged<AuthorMergeView> };
    'author.setBlock': { args: { Id_author: number; opublic: number }; result: { affectedRows: number; message: string } };
  }
}

/** GET /author/get_list (001 §7); a reply without a list is 'getAuthor list undefined' (001 §8). */
export async function getAuthorList(query: { page: number; limit: number; only_double?: 1; a_fio?: string }, signal?: AbortSignal): Promise<{ list: AuthorView[]; count: number }> {
  const r = await rest.get<{ list?: AuthorView[]; count?: number }>('/author/get_list', { ...query, getCount: 1 }, { signal });
  if (!r || !Array.isArray(r.list)) throw new Error(AUTHOR_MSG.listUndefined);
  return { list: r.list, count: r.count ?? r.list.length };
}

/** POST /author/update_list (001 §7): an array of author records. */
export const updateAuthorList = (list: AuthorRecordInput[]) => rest.post<{ message: string; saved: number }>('/author/update_list', list);
