// Everything that differs between SQLite and PostgreSQL lives here.
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  Kysely, PostgresDialect, SqliteDialect, PostgresAdapter, sql,
  type ColumnDefinitionBuilder, type CreateTableBuilder,
} from 'kysely';
import type { ArrayResult, ArrayStatement } from './pg_statement.js';
import type { DB } from './schema.js';
import { SQLITE_FILE } from './schema_template.js';

export type Dialect = 'sqlite' | 'postgres';

const WRAPPED = Symbol('wrappedClient');
const MATCHING = /^\s*(select|update|delete|with)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback)\b/i;
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * The names of repeated statements. PostgreSQL parses and plans an unnamed statement on every
 * run: for the joined project read that is 3 ms of a 0.1 ms query. A named one is prepared once
 * per connection and its plan kept. A text is named the second time it is seen, and at most
 * MAX_NAMED texts are, so one-off texts neither take names nor pile up as statements on the server.
 */
class StatementNames {
  static readonly MAX_NAMED = 300;
  private readonly named = new Map<string, string>();
  private seenOnce = new Set<string>();
  private next = 0;

  nameOf(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= StatementNames.MAX_NAMED || !NAMEABLE.test(text)) return name;
    if (!this.seenOnce.has(text)) {
      if (this.seenOnce.size >= 5_000) this.seenOnce = new Set();
      this.seenOnce.add(text);
      return undefined;
    }
    this.seenOnce.delete(text);
    return this.rename(text);
  }

  /** A fresh name for a text, when its prepared form no longer fits the table behind it. */
  rename(text: string): string {
    const name = `anvil_${++this.next}`;
    this.named.set(text, name);
    return name;
  }
}

/**
 * Rows made here from pg's arrays, by one object literal per statement (rowMaker): pg's own rows
 * are copies of a prototype object filled one key at a time, dearer to build and to collect on a
 * page of 50-column projects. Same keys in the same order, the last of a repeated name winning.
 */
function plainRows(): (text: string, result: ArrayResult) => pg.QueryResult {
  const makers = new Map<string, { names: string[]; make: (values: unknown[]) => Record<string, unknown> }>();
  return (text, result) => {
    let maker = makers.get(text);
    // A statement's columns change when a migration changes its table (`*`): made again then.
    if (!maker || maker.names.length !== result.fields.length || result.fields.some((f, i) => f.name !== maker!.names[i])) {
      const names = result.fields.map((f) => f.name);
      if (makers.size >= 1_000) makers.clear();
      makers.set(text, (maker = { names, make: rowMaker(names) }));
    }
    return { command: result.command, rowCount: result.rowCount, oid: 0, fields: result.fields as pg.FieldDef[], rows: result.rows.map(maker.make) };
  };
}

/** PostgreSQL's answer when a table changed under a prepared statement (a newer node migrated it). */
const isStalePlan = (e: unknown) => (e as { code?: string }).code === '0A000' && /cached plan/.test(String((e as Error).message));

/**
 * Every query of the pool goes through here:
 * - repeated statements run by name (StatementNames);
 * - an integer parameter beyond its column's range (an id such as 2147483648 in a URL) matches no
 *   row, as SQLite and the reference's own database layer answer: a read, change or delete of
 *   nothing (then a 404), never PostgreSQL's "out of range" as a 500. Inserts still fail loudly.
 */
function wrapQueries(pool: pg.Pool, run: DriverRuns, Statement: typeof ArrayStatement): pg.Pool {
  const names = new StatementNames();
  const rowsOf = plainRows();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as any).connect = async () => {
    const client = await connect();
    if (!(client as any)[WRAPPED]) {
      (client as any)[WRAPPED] = true;
      const query = client.query.bind(client) as (submittable: ArrayStatement) => unknown;
      (client as any).query = async (text: string, values: unknown[] = []) => {
        run.statements += 1;
        // once the transaction has ended, whether it ended well or not
        if (TRANSACTION_END.test(text)) return ended(run, query(text as never) as Promise<unknown>);
        try {
          try {
            return rowsOf(text, await new Statement(text, values, names.nameOf(text)).run(query));
          } catch (e) {
            // Prepared before the table changed: prepare it again under a new name (outside a transaction this succeeds).
            if (!isStalePlan(e)) throw e;
            return rowsOf(text, await new Statement(text, values, names.rename(text)).run(query));
          }
        } catch (e) {
          if ((e as { code?: string }).code === '22003' && MATCHING.test(text)) {
            return { rows: [], rowCount: 0, command: text.trim().split(/\s/)[0].toUpperCase(), fields: [], oid: 0 };
          }
          throw e;
        }
      };
    }
    return client;
  };
  return pool;
}

/**
 * better-sqlite3's compiled module, named by its path: found by the driver itself (the `bindings`
 * package), a start tried a dozen paths and made a stack trace to find it. undefined: let it look.
 */
function sqliteAddon(): string | undefined {
  try {
    const file = path.join(path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build/Release/better_sqlite3.node');
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string }): Promise<Kysely<DB>> {
  if (opts.databaseUrl) {
    // Loaded only for PostgreSQL: a SQLite start-up skips its module loading (about 25 ms).
    const [{ default: pg }, { ArrayStatement }] = await Promise.all([import('pg'), import('./pg_statement.js')]);
    // int8 (count(*), sums) arrives as a string from pg; every number we store fits in a double.
    pg.types.setTypeParser(20, (v) => Number(v));
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection that the server terminates (restart, failover) is an 'error' event on the
    // pool; unhandled, it would crash the process. The pool drops that client; the next query reconnects.
    pool.on('error', () => {});
    const run: DriverRuns = {
      statements: 0,
      transactionEnds: [],
      async read(text, parameters) {
        const client = await pool.connect();
        try {
          return (await client.query(text, parameters as unknown[])).rows;
        } finally {
          client.release();
        }
      },
    };
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: wrapQueries(pool, run, ArrayStatement) }) });
    drivers.set(db.getExecutor().adapter, run);
    return db;
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, SQLITE_FILE);
  const db = new SQLite(file, { nativeBinding: sqliteAddon() });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const run: DriverRuns = {
    statements: 0,
    transactionEnds: [],
    // Inside another caller's transaction (between its awaits) a read must wait its turn, as Kysely's queue makes it.
    read: (text, parameters) => (db.inTransaction ? null : cached.prepare(text).all(...parameters)),
    image: () => (db.inTransaction ? null : db.serialize()),
    exec: (script) => void db.exec(script),
  };
  const cached = withStatementCache(db, run);
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: cached }) });
  drivers.set(kysely.getExecutor().adapter, run);
  return kysely;
}

/**
 * What runs on a database's driver beside Kysely, found by the Kysely adapter, which an instance
 * shares with the instances made from it (plugins, transactions):
 * - `read`: a read run straight on the driver, without Kysely's executor (its connection queue,
 *   plugins and several promises per statement: a tenth of a cached project GET). null when it
 *   cannot run now: the caller then goes through Kysely.
 * - `statements`: how many statements the driver has run, whichever way they came (the
 *   statement-count tests read it).
 */
interface DriverRuns {
  read: (sql: string, parameters: readonly unknown[]) => Promise<unknown[]> | unknown[] | null;
  statements: number;
  /** Called when a transaction has ended (onTransactionEnd). */
  transactionEnds: (() => void)[];
  /** SQLite: the whole database as the bytes of one file, read at one instant; null inside another caller's transaction. */
  image?: () => Buffer | null;
  /** SQLite: runs a script of several statements in one call. */
  exec?: (script: string) => void;
}
const drivers = new WeakMap<object, DriverRuns>();
const driverOf = (db: Kysely<any>): DriverRuns | undefined => drivers.get(db.getExecutor().adapter);

/** Runs a compiled read on the driver itself when `db` is no transaction; null: run it through Kysely. */
export function readDirectly(db: Kysely<any>, sql: string, parameters: readonly unknown[]): Promise<unknown[]> | unknown[] | null {
  if (db.isTransaction) return null;
  return driverOf(db)?.read(sql, parameters) ?? null;
}

/** The SQLite database as a file's bytes (a copy far quicker than VACUUM INTO); null: not now, or not SQLite. */
export function databaseImage(db: Kysely<any>): Buffer | null {
  if (db.isTransaction) return null;
  return driverOf(db)?.image?.() ?? null;
}

/**
 * Runs a script of several statements on a SQLite database in one call (a test-mode restore: a
 * hundred statements, each a round of Kysely's executor otherwise). The caller holds the connection.
 */
export function execSqliteScript(db: Kysely<any>, script: string): void {
  const exec = driverOf(db)?.exec;
  if (!exec) throw new Error('not a SQLite database');
  exec(script);
}

/** Calls `fn` each time a transaction on `db`'s database has ended, committed or rolled back. */
export function onTransactionEnd(db: Kysely<any>, fn: () => void): void {
  driverOf(db)?.transactionEnds.push(fn);
}

async function ended<T>(run: DriverRuns, end: Promise<T>): Promise<T> {
  try {
    return await end;
  } finally {
    for (const fn of run.transactionEnds) fn();
  }
}

/** The number of statements run on `db`'s database so far (transaction control included). */
export const statementsRun = (db: Kysely<any>): number => driverOf(db)?.statements ?? 0;

/**
 * Kysely prepares every query anew; on SQLite preparing costs as much as running a small
 * query. Statements are reused per SQL text (bounded, oldest dropped first).
 */
function withStatementCache(db: SQLite.Database, run: DriverRuns, max = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  // Kysely's driver (and the direct read) prepare each statement they run, so this counts them.
  const prepare = (source: string): SQLite.Statement => {
    run.statements += 1;
    // SQLite runs it at once, on its one connection: no read comes between this and the end
    if (TRANSACTION_END.test(source)) for (const fn of run.transactionEnds) fn();
    let stmt = cache.get(source);
    if (!stmt) {
      stmt = withPlainRows(db.prepare(source));
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(source, stmt);
    }
    return stmt;
  };
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'prepare') return prepare;
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/**
 * A statement whose rows (all, iterate: what Kysely calls) are built here from better-sqlite3's
 * raw arrays. Its own row objects cost about a microsecond per column and are slow to read (hash
 * tables); a project row has some 50 columns. Same keys in the same order, same values, and a
 * repeated column name keeps its last value, as better-sqlite3's own objects do.
 */
function withPlainRows(stmt: SQLite.Statement): SQLite.Statement {
  if (!stmt.reader) return stmt;
  let width = -1;
  let make: (values: unknown[]) => Record<string, unknown> = () => ({});
  const toRow = (values: unknown[]): Record<string, unknown> => {
    // SQLite prepares a cached statement again after a migration changes its table: `*` may then
    // name more or fewer columns.
    if (values.length !== width) {
      const names = stmt.columns().map((c) => c.name);
      width = names.length;
      make = rowMaker(names);
    }
    return make(values);
  };
  stmt.raw(true);
  // What Kysely's SQLite driver uses of a reader: `reader`, all() and iterate() (run() is for writes).
  const plain = {
    reader: true,
    all: (...params: unknown[]) => (stmt.all(...params) as unknown[][]).map(toRow),
    *iterate(...params: unknown[]) {
      for (const values of stmt.iterate(...params) as IterableIterator<unknown[]>) yield toRow(values);
    },
  };
  return plain as unknown as SQLite.Statement;
}

/**
 * A function that makes a row from its values as one object literal with these keys: V8 then
 * builds the object with its final shape at once, several times faster than adding 50 keys one by
 * one. Names are quoted as JSON strings, so any column name is a plain key.
 */
function rowMaker(names: string[]): (values: unknown[]) => Record<string, unknown> {
  return new Function('v', `return ${objectLiteral(names, (_, i) => `v[${i}]`)};`) as (values: unknown[]) => Record<string, unknown>;
}

/** The source of `{ "name": <its value>, … }`: names quoted as JSON strings, so any column name is a plain key. */
export function objectLiteral(names: readonly string[], valueOf: (name: string, i: number) => string): string {
  return `{ ${names.map((name, i) => `${JSON.stringify(name)}: ${valueOf(name, i)}`).join(', ')} }`;
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
