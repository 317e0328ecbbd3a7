// Helpers for the queue tests: waiting on a condition, a second "node" on the same database,
// and the child-process worker of test/queue/fixtures/worker.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { Kysely } from 'kysely';
import pino from 'pino';
import type { Config } from '../../src/config.js';
import { openDatabase } from '../../src/db/dialect.js';
import type { DB } from '../../src/db/schema.js';
import { Queue, type QueueOptions } from '../../src/queue/queue.js';

export const silent = pino({ level: 'silent' });

/** A queue with test-friendly timings; options override them. */
export function testQueue(db: Kysely<DB>, opts: Partial<QueueOptions> = {}): Queue {
  return new Queue(db, silent, { workers: 2, pollMs: 20, leaseMs: 2000, backoffBaseMs: 50, stopTimeoutMs: 5000, ...opts });
}

/** Polls until fn returns a truthy value; fails after timeoutMs. */
export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** Another connection (pool) to the test's database: a second node. */
export const openSecondDb = (config: Config): Promise<Kysely<DB>> => openDatabase(config);

export interface ChildWorker {
  child: ChildProcess;
  /** Resolves with the first stdout line matching re. */
  line(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a worker fixture (default test/queue/fixtures/worker.ts) in its own node process against the test's database. */
export function spawnWorker(config: Config, env: Record<string, string>, fixturePath = '../queue/fixtures/worker.ts'): ChildWorker {
  const fixture = path.resolve(path.dirname(new URL(import.meta.url).pathname), fixturePath);
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: {
      ...process.env,
      ANVIL_DATA_DIR: config.dataDir,
      ANVIL_DATABASE_URL: config.databaseUrl ?? '',
      ANVIL_LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  readline.createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const w of waiters.splice(0)) w();
    }));
  return {
    child,
    exited,
    line(re, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`child never printed ${re}; got ${JSON.stringify(lines)}`)), timeoutMs);
        const check = () => {
          for (const l of lines) {
            const m = l.match(re);
            if (m) {
              clearTimeout(timer);
              return resolve(m);
            }
          }
          if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            return reject(new Error(`child exited before printing ${re}; got ${JSON.stringify(lines)}`));
          }
          waiters.push(check);
        };
        check();
      });
    },
  };
}
