// Wires the parts one app needs. No global singletons: a test builds its own container.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { dialectOf, openDatabase, type Dialect } from './db/dialect.js';
import { migrateToLatest } from './db/migrations/index.js';
import type { DB } from './db/schema.js';
import { registerBranchJobs } from './domain/branches/service.js';
import { registerPushPipelineJobs } from './domain/ci/push_pipelines.js';
import { registerArtifactsExpiryJob } from './domain/ci/artifacts.js';
import { registerEventJobs } from './domain/events/service.js';
import { registerExportJobs } from './domain/import_export/export.js';
import { registerImportJobs } from './domain/import_export/import.js';
import { Queue } from './queue/queue.js';
import { registerProjectJobs } from './domain/projects/jobs.js';
import { registerRefChangeJobs } from './domain/repository/ref_changes.js';
import { registerRepositoryStatisticsJob } from './domain/repository/statistics.js';
import type { BlobStorage } from './storage/blob.js';
import { LocalBlobStorage } from './storage/local.js';
import { S3BlobStorage } from './storage/s3.js';

export interface Container {
  config: Config;
  db: Kysely<DB>;
  dialect: Dialect;
  log: Logger;
  /** Durable background work; workers run only after queue.start() (main.ts `serve`). */
  queue: Queue;
  storage: BlobStorage;
  /**
   * In-process CI signals to the runner of this node ('pending': a job became pending;
   * 'canceled' (jobId): stop it now). Runners on other nodes notice by polling.
   */
  ciSignals: EventEmitter;
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

/** `dest` defaults to stdout; tests pass a stream to read the lines. */
export function createLogger(config: Config, dest?: pino.DestinationStream): Logger {
  const opts = { level: config.logLevel, redact: { paths: LOG_REDACT, censor: '[REDACTED]' } };
  return dest ? pino(opts, dest) : pino(opts);
}

export async function createContainer(config: Config, opts: { log?: Logger } = {}): Promise<Container> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const db = openDatabase(config);
  await migrateToLatest(db);
  const log = opts.log ?? createLogger(config);
  const c: Container = {
    config,
    db,
    dialect: dialectOf(db),
    log,
    queue: new Queue(db, log, { workers: config.queueWorkers }),
    storage: config.blobStore.kind === 's3' ? new S3BlobStorage(config.blobStore) : new LocalBlobStorage(path.join(config.dataDir, 'blobs')),
    ciSignals: new EventEmitter(),
  };
  // Job handlers, by area: every node can run every job.
  registerProjectJobs(c);
  registerBranchJobs(c);
  registerRepositoryStatisticsJob(c);
  registerRefChangeJobs(c);
  registerPushPipelineJobs(c);
  await registerEventJobs(c);
  await registerArtifactsExpiryJob(c);
  await registerExportJobs(c);
  registerImportJobs(c);
  return c;
}

export async function closeContainer(c: Container): Promise<void> {
  await c.queue.stop(); // workers finish (bounded) before their database goes away
  await c.db.destroy();
}
