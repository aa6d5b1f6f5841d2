/**
 * A portable "contains" filter: `column LIKE ? ESCAPE '!'` with the value from `containsPattern`, so a
 * user's % and _ match themselves on SQLite and MariaDB alike ('!' rather than backslash, which MariaDB
 * reads as a string escape).
 */
export const LIKE_CONTAINS = "LIKE ? ESCAPE '!'";
export const containsPattern = (s: string) => `%${s.replace(/[!%_]/g, (c) => '!' + c)}%`;
