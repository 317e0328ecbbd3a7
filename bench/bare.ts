// The ceiling: a bare Fastify server that, per request, does the one read a minimal plan would do
// (an indexed read for a single resource, a 20-row range read for a list) on the same seeded
// database Anvil uses, then answers the exact bytes and headers Anvil answered (recorded). No
// auth, no hooks, no presenting. Run as its own process, like Anvil.
//   node --import tsx bench/bare.ts <fixtures.json> <port> <sqlite file | postgres:// URL>
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';

/** The read a minimal server does before answering: SQL with `?` parameters, and how many rows it must find. */
export interface CeilingRead {
  sql: string;
  params: (string | number)[];
  rows: number;
}

export interface Fixture {
  /** Path and query, and the token sent: scenarios on one URL as different users get their own answers. */
  url: string;
  token: string | null;
  status: number;
  headers: Record<string, string>;
  body: string; // base64
  /** null: bytes only (the answer does not come from the database, e.g. branches read from git). */
  read: CeilingRead | null;
}

type Query = (read: CeilingRead) => Promise<number>; // resolves with the number of rows read

/** Prepared once per statement, as the fastest server on this stack would. */
function openReader(target: string): Query {
  if (target.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: target, max: 10 });
    const names = new Map<string, string>();
    return async (read) => {
      let n = 0;
      const text = read.sql.replace(/\?/g, () => `$${++n}`);
      let name = names.get(read.sql);
      if (!name) names.set(read.sql, (name = `ceiling_${names.size}`));
      return (await pool.query({ name, text, values: read.params })).rowCount ?? 0;
    };
  }
  const db = new SQLite(target, { readonly: true, fileMustExist: true });
  const statements = new Map<string, SQLite.Statement>();
  return async (read) => {
    let st = statements.get(read.sql);
    if (!st) statements.set(read.sql, (st = db.prepare(read.sql)));
    return st.all(...read.params).length;
  };
}

const [file, port, target] = process.argv.slice(2);
const fixtures = JSON.parse(fs.readFileSync(file, 'utf8')) as Fixture[];
const query = openReader(target);
const keyOf = (url: string, token: string | null | undefined) => `${token ?? ''} ${url}`;
const answers = new Map(fixtures.map((f) => [keyOf(f.url, f.token), { ...f, bytes: Buffer.from(f.body, 'base64') }]));

// A ceiling that reads nothing would flatter Anvil's ratio: each read must find what Anvil showed.
for (const f of fixtures) {
  if (!f.read) continue;
  const found = await query(f.read);
  if (found !== f.read.rows) throw new Error(`ceiling read for ${f.url} found ${found} rows, expected ${f.read.rows}: ${f.read.sql}`);
}

const app = Fastify({ logger: false });
for (const path of new Set(fixtures.map((f) => f.url.split('?')[0]))) {
  app.get(path, async (req, reply) => {
    const f = answers.get(keyOf(req.url, req.headers['private-token'] as string | undefined))!;
    if (f.read) await query(f.read);
    reply.code(f.status).headers(f.headers).send(f.bytes);
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write(`bare listening on ${port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
