// A fresh SQLite database made from a copy of an already migrated empty one: running every
// migration was a fifth of an ephemeral start (a new data dir each time). The built server keeps
// the copy beside its bundle (dist/schema.sqlite3), written by the first start that migrated an
// empty database (the build's own warm-up start does); a new build removes it (scripts/bundle.mjs).
// Migrations are still checked after the copy, so a copy that lacks a newer one is brought up to date.
// Running from src/ (the tests) there is no copy: every database is migrated as before.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';

/** Set by scripts/bundle.mjs; undefined when running src/. */
declare const ANVIL_BUILD_COMMIT: string | undefined;

const TEMPLATE = 'schema.sqlite3';
/** The database file of a data dir (src/db/dialect.ts opens it). */
export const SQLITE_FILE = 'anvil.sqlite3';

export interface SchemaTemplate {
  /** The database was created from the template. */
  copied: boolean;
  /** The database did not exist before: once migrated it may become the template. */
  fresh: boolean;
  file: string;
}

/** Before opening `dataDir`'s SQLite database: a missing one is made from the template, when the built server has one. */
export function fromSchemaTemplate(dataDir: string): SchemaTemplate | null {
  if (typeof ANVIL_BUILD_COMMIT !== 'string') return null;
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), TEMPLATE);
  const db = path.join(dataDir, SQLITE_FILE);
  if (fs.existsSync(db)) return { copied: false, fresh: false, file };
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.copyFileSync(file, db, fs.constants.COPYFILE_EXCL);
    return { copied: true, fresh: true, file };
  } catch {
    return { copied: false, fresh: true, file }; // no template yet (or another process made the database)
  }
}

/** After migrating a database that started empty: keeps a copy of it as the template, if there is none. */
export async function keepSchemaTemplate(db: Kysely<any>, t: SchemaTemplate | null): Promise<void> {
  if (!t || t.copied || !t.fresh || fs.existsSync(t.file)) return;
  const tmp = `${t.file}.${process.pid}`;
  try {
    await sql.raw(`VACUUM INTO '${tmp.replace(/'/g, "''")}'`).execute(db);
    fs.renameSync(tmp, t.file); // whole or not at all: several servers may start at once
  } catch {
    fs.rmSync(tmp, { force: true }); // a read-only install starts without it
  }
}
