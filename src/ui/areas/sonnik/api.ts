/** Typed RPC methods of the sonnik (declaration merging into the UI's RpcMethods). */
import type { Paged } from '../../../contracts/auth.js';
import type { SonnikCatRow, SonnikCatView, SonnikLetter, SonnikPostView } from '../../../contracts/sonnik.js';

export type SonnikCatList = Paged<SonnikCatRow> & { letters: SonnikLetter[] };

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'sonnik.getCat': { args: { Id?: number; p_?: number; limit?: number; letter?: string }; result: SonnikCatView | SonnikCatList };
    'sonnik.getPosts': { args: { Id_cat: number; p_?: number }; result: Paged<SonnikPostView> };
    'sonnik.updateCat': { args: Partial<Omit<SonnikCatView, 'Id'>> & { Id: number }; result: { Id: number; message: string; cat: SonnikCatView } };
  }
}
