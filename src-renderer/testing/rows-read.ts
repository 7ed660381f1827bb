import { StewardDb } from '../db/db';

/**
 * Another connection to the database `name` that reports every row one table hands out (by query or by id), to
 * check what a read reads, not only what it returns. Open it before use, close it after.
 */
export function rowsReadDb<T>(name: string, table: string, onRow: (row: T) => void): StewardDb {
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
            const rows = await inner.getMany(req);
            for (const r of rows) if (r !== undefined) onRow(r as T);
            return rows;
          },
          query: async (req) => {
            const res = await inner.query(req);
            if (req.values) for (const r of res.result) onRow(r as T);
            return res;
          },
        };
      },
    }),
  });
  return db;
}
