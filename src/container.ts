// Wires the parts one app needs. No global singletons: a test builds its own container.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { dialectOf, openDatabase } from './db/dialect.js';
import { watchWrites } from './db/watch_writes.js';
import { RecentReads } from './shared/recent_reads.js';
import { PROJECT_CONTEXT_TABLES, type ProjectWithContext } from './db/repos/project_context.js';
import { migrateToLatest } from './db/migrations/index.js';
import { sealPlainRegistrationTokens } from './domain/runners/registration_tokens.js';
import { fromSchemaTemplate, keepSchemaTemplate } from './db/schema_template.js';
import { registerBackgroundJobs, scheduleRecurringJobs } from './domain/background.js';
import { closeRepositoryReaders } from './domain/repository/service.js';
import type { Container } from './domain/context.js';
import type { PatWithUser } from './db/repos/tokens.js';
import { Queue } from './queue/queue.js';
import { LocalBlobStorage } from './storage/local.js';
import { DeliveryLog } from './testing/deliveries.js';
import { enableTestClock } from './shared/clock.js';

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

/** `dest` defaults to stdout; tests pass a stream to read the lines. */
export function createLogger(config: Config, dest?: pino.DestinationStream): Logger {
  const opts = { level: config.logLevel, redact: { paths: LOG_REDACT, censor: '[REDACTED]' } };
  // Asynchronous writes to stdout: a line per request written synchronously costs a system call
  // each; this way lines written while one write is in flight go out together. pino flushes what
  // is left when the process exits.
  return pino(opts, dest ?? pino.destination({ dest: 1, sync: false }));
}

export async function createContainer(config: Config, opts: { log?: Logger } = {}): Promise<Container> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  if (config.testMode && config.testClock) enableTestClock();
  const authCache = new RecentReads<PatWithUser>();
  const projectReads = new RecentReads<ProjectWithContext>();
  // The tables each kind of kept read comes from: a change made here forgets them at once.
  const template = config.databaseUrl ? null : fromSchemaTemplate(config.dataDir);
  const watched = watchWrites(await openDatabase(config), ['personal_access_tokens', 'users'], () => authCache.forgetAll());
  const db = watchWrites(watched, PROJECT_CONTEXT_TABLES, () => projectReads.forgetAll(), { inserts: true });
  await migrateToLatest(db);
  await keepSchemaTemplate(db, template);
  const log = opts.log ?? createLogger(config);
  const c: Container = {
    config,
    db,
    dialect: dialectOf(db),
    log,
    queue: new Queue(db, log, { workers: config.queueWorkers }),
    outboundRecorder: config.testMode ? new DeliveryLog() : undefined,
    // The S3 SDK is loaded only when blobs live in S3: it is a large part of the code to start.
    storage: config.blobStore.kind === 's3'
      ? new (await import('./storage/s3.js')).S3BlobStorage(config.blobStore)
      : new LocalBlobStorage(path.join(config.dataDir, 'blobs')),
    ciSignals: new EventEmitter(),
    authCache,
    projectReads,
  };
  // Every node can run every job.
  registerBackgroundJobs(c);
  await scheduleRecurringJobs(c);
  await sealPlainRegistrationTokens(c);
  return c;
}

/** A new queue in place of a stopped one (test mode's reset drops the old one's work). */
export function replaceQueue(c: Container): void {
  c.queue = new Queue(c.db, c.log, { workers: c.config.queueWorkers });
  registerBackgroundJobs(c);
}

export async function closeContainer(c: Container): Promise<void> {
  await c.queue.stop(); // workers finish (bounded) before their database goes away
  closeRepositoryReaders(c);
  await c.db.destroy();
}
