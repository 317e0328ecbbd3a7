// A fresh PostgreSQL database beside `base` (tests and the bench each get their own), dropped after.
import crypto from 'node:crypto';
import pg from 'pg';

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

export async function scratchDatabase(base: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  await run(base, `CREATE DATABASE ${name}`);
  const u = new URL(base);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => run(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
