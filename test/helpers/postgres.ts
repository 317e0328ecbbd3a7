// A fresh PostgreSQL database beside `base` (tests and the bench each get their own), dropped after.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrations/index.js';

export interface ScratchDatabase {
  url: string;
  drop: () => Promise<void>;
}

async function run(connectionString: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const withDatabase = (base: string, name: string): string => {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
};

/** An empty database (`template`: a copy of that database instead). */
export async function scratchDatabase(base: string, prefix: string, template?: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  await run(base, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  return { url: withDatabase(base, name), drop: () => run(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** The migrations' source, so that a changed or added migration makes a template of its own. */
function migrationsDigest(): string {
  const dir = path.join(path.dirname(new URL(import.meta.url).pathname), '../../src/db/migrations');
  const h = crypto.createHash('sha256');
  for (const f of fs.readdirSync(dir).sort()) h.update(f).update(fs.readFileSync(path.join(dir, f)));
  return h.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A database with every migration run, as a server would leave it before its first start: a copy
 * of a template migrated once for all test processes (migrating each test's database was two
 * seconds of each PostgreSQL test app). The template is built under a different name and renamed
 * when whole, under an advisory lock, so test processes starting at once build it once.
 */
export function migratedScratchDatabase(base: string, prefix: string): Promise<ScratchDatabase> {
  template ??= (async () => {
    const name = `anvil_tpl_${migrationsDigest()}`;
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock(4242001)');
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!rowCount) {
        const building = await scratchDatabase(base, `${name}_b`);
        const db = await openDatabase({ databaseUrl: building.url, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-tpl-')) });
        try {
          await migrateToLatest(db);
        } finally {
          await db.destroy();
        }
        await client.query(`ALTER DATABASE ${new URL(building.url).pathname.slice(1)} RENAME TO ${name}`);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(4242001)').catch(() => {});
      await client.end();
    }
    return name;
  })();
  return template.then((name) => scratchDatabase(base, prefix, name));
}
