// Builds a whole Anvil in-process for one test file, on SQLite (temp file) or PostgreSQL
// (a fresh database), and drives it as a client would through app.inject.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { closeContainer, createContainer } from '../../src/container.js';
import type { Container } from '../../src/domain/context.js';
import { bootstrapRoot } from '../../src/domain/users/bootstrap.js';
import { createUserRecord, type NewUserInput } from '../../src/domain/users/service.js';
import { createTokenForUsername } from '../../src/domain/tokens/cli.js';
import pino from 'pino';
import { sql } from 'kysely';
import { migratedScratchDatabase, scratchDatabase, type ScratchDatabase } from './postgres.js';
import { allRoutes } from '../../src/api/index.js';
import { openDatabase } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { SQLITE_FILE } from '../../src/db/schema_template.js';
import type { ApiRoute } from '../../src/http/route.js';

export type TestDialect = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when ANVIL_TEST_DATABASE_URL is set (as .ci/run does). */
export const DIALECTS: TestDialect[] = process.env.ANVIL_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export const ROOT_TOKEN = 'root-test-token-0123456789abcdef';
export const EXTERNAL_URL = 'http://anvil.test';

export interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw payload with its own content type (form, multipart, text). */
  payload?: string | Buffer;
  /** The client's address as the server sees it (default 127.0.0.1). */
  remoteAddress?: string;
}

export interface TestApp {
  dialect: TestDialect;
  app: FastifyInstance;
  c: Container;
  rootToken: string;
  request(method: string, url: string, opts?: RequestOptions): Promise<Res>;
  get(url: string, token?: string | null): Promise<Res>;
  /** Creates a user directly and returns it with a personal token (scopes default `api`). */
  createUser(input?: Partial<NewUserInput> & { scopes?: string[] }): Promise<{ id: number; username: string; token: string }>;
  close(): Promise<void>;
}

/** A client of `app`: requests go through app.inject, as root unless a token (or null) is given. */
function requester(app: FastifyInstance) {
  return async (method: string, url: string, opts: RequestOptions = {}): Promise<Res> => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const token = opts.token === undefined ? ROOT_TOKEN : opts.token;
    if (token) headers['private-token'] = token;
    let payload: string | Buffer | undefined = opts.payload;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method: method as any, url, headers, payload, remoteAddress: opts.remoteAddress });
    let body: any = undefined;
    if (String(res.headers['content-type'] ?? '').startsWith('application/json') && res.body !== '') body = JSON.parse(res.body);
    return { status: res.statusCode, headers: res.headers as any, body, text: res.body };
  };
}

export const freshPostgresUrl = (): Promise<ScratchDatabase> => scratchDatabase(process.env.ANVIL_TEST_DATABASE_URL!, 'anvil_t');
/** A database already migrated (a copy of a template): what test apps start on. */
const migratedPostgresUrl = (): Promise<ScratchDatabase> => migratedScratchDatabase(process.env.ANVIL_TEST_DATABASE_URL!, 'anvil_t');

let userSeq = 0;

let sqliteTemplate: Promise<string> | undefined;
/**
 * A migrated empty SQLite file, made once per test process and copied into each test app's data
 * dir (as the built server copies dist/schema.sqlite3): migrating each one was half its start.
 */
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-test-schema-'));
    const db = await openDatabase({ databaseUrl: null, dataDir: dir });
    const file = path.join(dir, 'schema.sqlite3');
    try {
      await migrateToLatest(db);
      await sql.raw(`VACUUM INTO '${file}'`).execute(db);
    } finally {
      await db.destroy();
    }
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    return file;
  })();
  return sqliteTemplate;
}

/** The first uid of this test process's sandboxed jobs (64 per process, away from real users). */
export const TEST_RUNNER_UID = 200_000 + (process.pid % 100_000) * 64;

export async function buildTestApp(
  dialect: TestDialect,
  env: Record<string, string> = {},
  opts: { extraRoutes?: ApiRoute<any>[]; log?: pino.Logger } = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-test-'));
  const pgDb = dialect === 'postgres' ? await migratedPostgresUrl() : null;
  if (dialect === 'sqlite' && !env.ANVIL_DATABASE_URL) fs.copyFileSync(await migratedSqliteFile(), path.join(dataDir, SQLITE_FILE));
  const config: Config = loadConfig({
    ANVIL_DATA_DIR: dataDir,
    ANVIL_EXTERNAL_URL: EXTERNAL_URL,
    ANVIL_ROOT_TOKEN: ROOT_TOKEN,
    ANVIL_LOG_LEVEL: 'silent',
    ANVIL_QUEUE_WORKERS: '0',
    // Test files run side by side: each process's sandboxed jobs get uids of their own.
    ANVIL_RUNNER_UID: String(TEST_RUNNER_UID),
    ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}),
    ...env,
  });
  const c = await createContainer(config, { log: opts.log ?? pino({ level: 'silent' }) });
  await bootstrapRoot(c);
  const app = await buildApp(c, opts.extraRoutes ? { routes: [...allRoutes, ...opts.extraRoutes] } : {});
  await app.ready();

  const request = requester(app);

  return {
    dialect,
    app,
    c,
    rootToken: ROOT_TOKEN,
    request,
    get: (url, token) => request('GET', url, { token }),
    async createUser(input = {}) {
      userSeq += 1;
      const username = input.username ?? `user${userSeq}_${crypto.randomBytes(3).toString('hex')}`;
      const u = await createUserRecord(c, {
        username,
        name: input.name ?? `User ${username}`,
        email: input.email ?? `${username}@example.com`,
        password: input.password ?? 'password123',
        ...input,
      });
      const token = await createTokenForUsername(c, username, { name: 'test', scopes: input.scopes ?? ['api'], expiresAt: null });
      return { id: u.id, username, token };
    },
    async close() {
      await app.close();
      await closeContainer(c);
      await pgDb?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Asserts an object has exactly these keys (a response carries the spec's fields, no more, no less). */
export function keysOf(o: object): string[] {
  return Object.keys(o).sort();
}

/**
 * Another server node on `t`'s database and data dir: its own container (so its own caches) and
 * app, as a second process would have. close() leaves the database to `t`.
 */
export async function buildOtherNode(t: TestApp): Promise<Pick<TestApp, 'app' | 'c' | 'request' | 'get' | 'close'>> {
  const c = await createContainer(t.c.config, { log: pino({ level: 'silent' }) });
  const app = await buildApp(c);
  await app.ready();
  const request = requester(app);
  return {
    app,
    c,
    request,
    get: (url, token) => request('GET', url, { token }),
    async close() {
      await app.close();
      await closeContainer(c);
    },
  };
}
