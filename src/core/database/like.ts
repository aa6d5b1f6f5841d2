/**
 * Portable LIKE filters: every pattern built from a user's text goes through here, so % and _ (and the
 * escape character) match themselves on SQLite and MariaDB alike. The escape character is '!', named
 * in the SQL (`ESCAPE '!'`): SQLite has no default one and MariaDB reads a backslash as a string escape.
 * - raw SQL with positional parameters: `column ${LIKE_CONTAINS}` with `containsPattern(text)` (or a
 *   pattern of your own from `likeEscape`);
 * - TypeORM query builders: `likeNamed('a.method', 'm')` with `{m: containsPattern(text)}`;
 * - TypeORM find options: `{column: Raw((alias) => likeNamed(alias, 'p'), {p: containsPattern(text)})}`.
 * No imports: worker threads (firewall features) use it too.
 */

export const LIKE_CONTAINS = "LIKE ? ESCAPE '!'";
/** The text with %, _ and ! escaped for a pattern used with ESCAPE '!'. */
export const likeEscape = (s: string) => s.replace(/[!%_]/g, (c) => '!' + c);
/** "contains the text". */
export const containsPattern = (s: string) => `%${likeEscape(s)}%`;
/** "starts with the text". */
export const prefixPattern = (s: string) => `${likeEscape(s)}%`;
/** `column LIKE :param ESCAPE '!'` for a query builder. */
export const likeNamed = (column: string, param: string) => `${column} LIKE :${param} ESCAPE '!'`;
