/** Typed RPC methods of compilations (declaration merging into the UI's RpcMethods); the REST rows are called with `rest`. */
import type { CompilationBook, CompilationHistoryEntry } from '../../../contracts/compilations.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'compilation.history': { args: { Id_compilation: number }; result: CompilationHistoryEntry[] };
    'compilation.restore': { args: { Id: number }; result: { Id_compilation: number; message: string } };
    'compilation.items': { args: { ids: number[] }; result: { found: CompilationBook[]; unknown: number[] } };
    'compilation.auto': { args: { days: number; mode: 'new' | 'top'; Id_cat?: number }; result: { list: CompilationBook[]; message: string } };
  }
}
