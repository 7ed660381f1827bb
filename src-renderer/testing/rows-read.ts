import { StewardDb } from '../db/db';

/** A request that reached IndexedDB for the watched table: rows by key (how many keys), a query (with its limit) or a cursor (unique or not). */
export type SeenRequest = { kind: 'get'; keys: number } | { kind: 'query'; limit: number | undefined } | { kind: 'cursor'; unique: boolean };

/**
 * Another connection to the database `name` that reports every row one table hands out (by query or by id), to
 * check what a read reads, not only what it returns; and, to `onRequest`, every query and cursor asked of that
 * table (a read by key included, with how many keys it asked). Open it before use, close it after.
 */
export function rowsReadDb<T>(name: string, table: string, onRow: (row: T) => void, onRequest: (request: SeenRequest) => void = () => undefined): StewardDb {
  const db = new StewardDb(name);
  db.use({
    stack: 'dbcore',
    name: 'rows-read',
    create: (down) => ({
      ...down,
      table: (tableName) => {
        const inner = down.table(tableName);
        if (tableName !== table) return inner;
        return {
          ...inner,
          getMany: async (req) => {
            onRequest({ kind: 'get', keys: req.keys.length });
            const rows = await inner.getMany(req);
            for (const r of rows) if (r !== undefined) onRow(r as T);
            return rows;
          },
          query: async (req) => {
            onRequest({ kind: 'query', limit: req.limit });
            const res = await inner.query(req);
            if (req.values) for (const r of res.result) onRow(r as T);
            return res;
          },
          openCursor: (req) => {
            onRequest({ kind: 'cursor', unique: req.unique === true });
            return inner.openCursor(req);
          },
        };
      },
    }),
  });
  return db;
}
