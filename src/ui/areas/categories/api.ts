/** Typed RPC methods of book categories (declaration merging into the UI's RpcMethods). */
import type { Paged } from '../../../contracts/auth.js';
import type { CatBook, CategoryView, CatSort, CatWeightItem } from '../../../contracts/categories.js';

export interface CatFilter {
  p_?: number;
  limit?: number;
  cat_title?: string;
  Id_cat?: number;
  sort?: CatSort;
}
export type CatEditable = Partial<Pick<CategoryView, 'cat_title' | 'cat_short_title' | 'cat_description' | 'cat_body' | 'cat_h1' | 'meta_title' | 'meta_h1' | 'meta_description' | 'codeShow' | 'codeClick'>>;

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'book_cats.get': { args: CatFilter; result: Paged<CategoryView> };
    'cat.get': { args: CatFilter; result: CategoryView | Paged<CategoryView> };
    'cat.read': { args: { Id_cat: number; p_?: number }; result: { cat: CategoryView; list: CatBook[]; count: number; page: number; limit: number } };
    'cat.update': { args: CatEditable & { Id_cat?: number }; result: { Id_cat: number; message: string } };
    'cat.getWeights': { args: Record<string, never>; result: CatWeightItem[] };
    'cat.setWeights': { args: { ids: number[] }; result: { count: number; message: string } };
  }
}
