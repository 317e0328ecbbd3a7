// Wires the parts one app needs. No global singletons: a test builds its own container.
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { dialectOf, openDatabase, type Dialect } from './db/dialect.js';
import { migrateToLatest } from './db/migrations/index.js';
import type { DB } from './db/schema.js';

export interface Container {
  config: Config;
  db: Kysely<DB>;
  dialect: Dialect;
  log: Logger;
}

/** Tokens and passwords never reach a log line. */
export const LOG_REDACT = [
  'req.headers["private-token"]',
  'req.headers.authorization',
  'req.headers["job-token"]',
  'req.headers.cookie',
  'req.query.private_token',
  'req.query.access_token',
  'req.query.job_token',
];

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, redact: { paths: LOG_REDACT, censor: '[REDACTED]' } });
}

export async function createContainer(config: Config, opts: { log?: Logger } = {}): Promise<Container> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const db = openDatabase(config);
  await migrateToLatest(db);
  return { config, db, dialect: dialectOf(db), log: opts.log ?? createLogger(config) };
}

export async function closeContainer(c: Container): Promise<void> {
  await c.db.destroy();
}
