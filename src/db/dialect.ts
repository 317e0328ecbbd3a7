// Everything that differs between SQLite and PostgreSQL lives here.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import fs from 'node:fs';
import path from 'node:path';
import {
  Kysely, PostgresDialect, SqliteDialect, PostgresAdapter, sql,
  type ColumnDefinitionBuilder, type CreateTableBuilder,
} from 'kysely';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

// int8 (count(*), sums) arrives as a string from pg; every number we store fits in a double.
pg.types.setTypeParser(20, (v) => Number(v));

export function openDatabase(opts: { databaseUrl: string | null; dataDir: string }): Kysely<DB> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection that the server terminates (restart, failover) is an 'error' event on the
    // pool; unhandled, it would crash the process. The pool drops that client; the next query reconnects.
    pool.on('error', () => {});
    return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, 'anvil.sqlite3');
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(db) }) });
}

/**
 * Kysely prepares every query anew; on SQLite preparing costs as much as running a small
 * query. Statements are reused per SQL text (bounded, oldest dropped first).
 */
function withStatementCache(db: SQLite.Database, max = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = db.prepare.bind(db);
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      }
      return (source: string) => {
        let stmt = cache.get(source);
        if (!stmt) {
          stmt = prepare(source);
          if (cache.size >= max) cache.delete(cache.keys().next().value!);
          cache.set(source, stmt);
        }
        return stmt;
      };
    },
  });
}

export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Adds an auto-increment integer primary key `id`. */
export function withId<T extends string>(tb: CreateTableBuilder<T, never>, dialect: Dialect): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? tb.addColumn('id', 'serial', (c) => c.primaryKey())
    : tb.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Case-insensitive LIKE on both dialects. */
export function ilike(db: Kysely<any>, column: string, pattern: string) {
  return dialectOf(db) === 'postgres'
    ? sql<boolean>`${sql.ref(column)} ILIKE ${pattern}`
    : sql<boolean>`${sql.ref(column)} LIKE ${pattern} ESCAPE '\\'`;
}

/** Escapes %, _ and \ for use inside a LIKE pattern. */
export function likeEscape(term: string): string {
  return term.replace(/[\\%_]/g, (m) => `\\${m}`);
}

export type ColumnBuilder = (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** True for a unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
