/** Typed RPC methods of the books area (declaration merging into the UI's RpcMethods). */
import type { BookDetail, BookListRow, BookView, FoundLink, ImportResult, ItemView, LinkPattern, PageView } from '../../../contracts/content.js';

export interface BlockAnswer { affectedRows: number; books: number; skipped: number }

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'book.getList': { args: { p_?: number; limit?: number; Id_book?: number; book_title?: string; public?: number; sort?: string }; result: { list: BookListRow[]; count: number } };
    'book.get': { args: { Id_book: number }; result: BookDetail };
    'book.update': { args: Partial<BookView> & { Id_book: number }; result: { message: string; book: BookView } };
    'book.getPages': { args: { Id: number; num?: number }; result: PageView };
    'book.updatePage': { args: { bid: number; num: number; body: string }; result: { message: string } };
    'book.deleteBook': { args: { Id_book: number }; result: { message: string } };
    'book.blocked': { args: { ids: (number | string)[]; range: number; mail_body?: string }; result: BlockAnswer };
    'author.blocked': { args: { ids: (number | string)[]; range: number; mail_body?: string }; result: BlockAnswer };
    'book.blocked_id': { args: { ids: (number | string)[]; range: number; mail_body?: string }; result: BlockAnswer };
    'author.blocked_id': { args: { ids: (number | string)[]; range: number; mail_body?: string }; result: BlockAnswer };
    'content.linkPatterns': { args: { variant?: 'block' | 'git' }; result: LinkPattern[] };
    'item.getItemsByItem': { args: { variant: 'block' | 'git'; mail_body: string }; result: { links: FoundLink[]; items: ItemView[] } };
    'content.import': { args: { entity: string; rows: unknown[]; all_or_none?: number }; result: ImportResult };
  }
}
