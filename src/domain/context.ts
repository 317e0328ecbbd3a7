// What the domain receives: the parts one app is wired from (src/container.ts builds it). Types
// only, so the domain depends on no wiring at run time.
import type { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { SandboxHost } from '../ci/sandbox/index.js';
import type { RecentReads } from '../shared/recent_reads.js';
import type { PatWithUser } from '../db/repos/tokens.js';
import type { ProjectWithContext } from '../db/repos/project_context.js';
import type { Dialect } from '../db/dialect.js';
import type { DB } from '../db/schema.js';
import type { Resolver } from '../outbound/request.js';
import type { OutboundRecorder } from '../outbound/record.js';
import type { Queue } from '../queue/queue.js';
import type { BlobStorage } from '../storage/blob.js';

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
  /** Personal access tokens with their users, by digest (src/shared/recent_reads.ts says why it is safe). */
  authCache: RecentReads<PatWithUser>;
  /** Projects with their context for a caller, as GET /projects/:id reads them (src/shared/recent_reads.ts). */
  projectReads: RecentReads<ProjectWithContext>;
  /**
   * Set by this node's built-in runner once it has tried the job sandbox: why it runs no jobs, or
   * null when it runs them; unset without a runner. /-/readiness reports it.
   */
  runnerProblem?: string | null;
  /** What the job sandbox found on this host (its network, its bounds), once the runner tried it. */
  runnerSandboxHost?: SandboxHost;
  /** Name lookups of outbound requests (src/outbound/); tests map names wherever they like. */
  resolver?: Resolver;
  /** Test mode: what went out is recorded here (src/outbound/record.ts). */
  outboundRecorder?: OutboundRecorder;
}
