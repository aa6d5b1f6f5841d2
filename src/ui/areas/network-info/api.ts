/** Typed RPC methods of network info (declaration merging into the UI's RpcMethods; 001 §7 network_info.Host/Page/Cats.*). */
import type { Paged } from '../../../contracts/auth.js';
import type { NetCat, NetHost, NetPage } from '../../../contracts/network-info.js';

type Read = { select?: string; Id?: number; host?: number; joinHosh?: 0 | 1; joinCatRelay?: 0 | 1; p_?: number; limit?: number };
type Insert = { insertId: number; message: string };
type Update = { Id: number; message: string };
export type PageSave = Partial<Omit<NetPage, 'Id' | 'date' | 'date_update' | 'categoriesRelay' | 'storage' | 'host'>> & {
  host?: number | string; storage?: number | string; categoriesRelay?: number[];
};
export type CatSave = Partial<Omit<NetCat, 'Id' | 'pages' | 'pages_count' | 'storage' | 'host'>> & { host?: number | string; storage?: number | string };

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'network_info.Host.get': { args: Omit<Read, 'host' | 'joinHosh' | 'joinCatRelay'>; result: Partial<NetHost> | Paged<Partial<NetHost>> };
    'network_info.Host.insert': { args: { name: string; domain: string; code_in_storage?: string }; result: Insert };
    'network_info.Host.update': { args: { Id: number; name?: string; domain?: string; code_in_storage?: string }; result: Update };
    'network_info.Page.get': { args: Read; result: Partial<NetPage> | Paged<Partial<NetPage>> };
    'network_info.Page.insert': { args: PageSave; result: Insert };
    'network_info.Page.update': { args: PageSave & { Id: number }; result: Update };
    'network_info.Cats.get': { args: Read; result: Partial<NetCat> | Paged<Partial<NetCat>> };
    'network_info.Cats.insert': { args: CatSave; result: Insert };
    'network_info.Cats.update': { args: CatSave & { Id: number }; result: Update };
    'network_info.Cats.setRelayCatAndPage': { args: { page: number; cats: number[] }; result: { page: number; cats: number[]; message: string } };
  }
}
