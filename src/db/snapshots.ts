// Test mode's database snapshots: every table's rows and every id counter, saved and put back
// whole. SQLite: a copy of the database file (its bytes read at one instant), put back by
// attaching it and copying each table in one transaction. PostgreSQL: a schema of its own holding a copy of each table and
// the sequences' values, put back in one transaction (every table emptied, then filled again in
// foreign-key order, then the sequences). Either way the connection stays open and no id is reused.
import { sql, type Kysely } from 'kysely';
import fs from 'node:fs';
import { databaseImage, dialectOf, execSqliteScript } from './dialect.js';

/** Where one snapshot's database copy lives: a file (SQLite) or a schema (PostgreSQL). */
export interface DbSnapshot {
  /** The SQLite file, or the PostgreSQL schema's name. */
  where: string;
  /** The tables in an order that inserts parents before children. */
  tables: string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

async function sqliteTables(db: Kysely<any>): Promise<string[]> {
  const r = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND (name NOT LIKE 'sqlite_%' OR name = 'sqlite_sequence') ORDER BY name`.execute(db);
  return r.rows.map((x) => x.name);
}

/** The tables of the current schema, parents before children where foreign keys allow. */
async function postgresTables(db: Kysely<any>): Promise<string[]> {
  const tables = (await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`.execute(db)).rows.map((x) => x.name);
  const edges = (await sql<{ child: string; parent: string }>`
    SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE k.contype = 'f' AND n.nspname = current_schema() AND c.relname <> p.relname`.execute(db)).rows;
  const parents = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const e of edges) parents.get(e.child)?.add(e.parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (t: string) => {
    if (placed.has(t) || visiting.has(t)) return; // a cycle is left to the deferred checks
    visiting.add(t);
    for (const p of parents.get(t) ?? []) place(p);
    visiting.delete(t);
    placed.add(t);
    ordered.push(t);
  };
  for (const t of tables) place(t);
  return ordered;
}

/** Saves the whole database under `where` (a new file path for SQLite, a new schema name for PostgreSQL). */
export async function saveDatabase(db: Kysely<any>, where: string): Promise<DbSnapshot> {
  if (dialectOf(db) === 'sqlite') {
    const image = databaseImage(db);
    if (image) await fs.promises.writeFile(where, image);
    else await sql.raw(`VACUUM INTO ${literal(where)}`).execute(db);
    return { where, tables: await sqliteTables(db) };
  }
  const tables = await postgresTables(db);
  const s = quote(where);
  // One implicit transaction: the tables and the sequences are read at the same instant.
  await sql.raw([
    `CREATE SCHEMA ${s}`,
    ...tables.map((t) => `CREATE TABLE ${s}.${quote(t)} AS SELECT * FROM ${quote(t)}`),
    `CREATE TABLE ${s}.anvil_sequences AS SELECT sequencename AS name, last_value FROM pg_sequences WHERE schemaname = current_schema()`,
  ].join(';\n')).execute(db);
  return { where, tables };
}

/** Puts the database back as `snap` saved it, in one transaction. */
export async function restoreDatabase(db: Kysely<any>, snap: DbSnapshot): Promise<void> {
  if (dialectOf(db) === 'sqlite') {
    // On the connection Kysely hands out, so no other statement runs meanwhile; as one script.
    await db.connection().execute(async (conn) => {
      const run = (script: string[]) => execSqliteScript(conn, script.join(';\n'));
      // Foreign keys off while the rows go back (SQLite's count of deferred violations goes wrong
      // over a whole-table swap); the rows are a consistent copy, and checked before the commit.
      run(['PRAGMA foreign_keys = OFF', `ATTACH DATABASE ${literal(snap.where)} AS anvil_snapshot`]);
      try {
        run([
          'BEGIN',
          ...snap.tables.map((t) => `DELETE FROM main.${quote(t)}`),
          ...snap.tables.map((t) => `INSERT INTO main.${quote(t)} SELECT * FROM anvil_snapshot.${quote(t)}`),
        ]);
        try {
          const broken = await sql.raw('PRAGMA main.foreign_key_check').execute(conn);
          if (broken.rows.length) throw new Error('the snapshot breaks foreign keys');
          run(['COMMIT']);
        } catch (err) {
          run(['ROLLBACK']);
          throw err;
        }
      } finally {
        run(['DETACH DATABASE anvil_snapshot', 'PRAGMA foreign_keys = ON']);
      }
    });
    return;
  }
  const s = quote(snap.where);
  await sql.raw([
    // First a statement that is not a query, so that the driver never makes this script a
    // prepared statement (one command each); then DELETE, children first, rather than TRUNCATE:
    // on small tables it is tens of times quicker.
    'SET CONSTRAINTS ALL DEFERRED',
    ...[...snap.tables].reverse().map((t) => `DELETE FROM ${quote(t)}`),
    ...snap.tables.map((t) => `INSERT INTO ${quote(t)} OVERRIDING SYSTEM VALUE SELECT * FROM ${s}.${quote(t)}`),
    `SELECT setval(quote_ident(current_schema()) || '.' || quote_ident(name), coalesce(last_value, 1), last_value IS NOT NULL) FROM ${s}.anvil_sequences`,
  ].join(';\n')).execute(db);
}

/** Removes a snapshot's schema (PostgreSQL; a SQLite snapshot is a file its owner removes). */
export async function dropDatabaseSnapshot(db: Kysely<any>, snap: DbSnapshot): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql.raw(`DROP SCHEMA IF EXISTS ${quote(snap.where)} CASCADE`).execute(db);
}
