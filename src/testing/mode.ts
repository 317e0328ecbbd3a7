// Test mode's state for one app: named snapshots (the one taken after seeding is what a reset
// goes back to), the gate that keeps requests out while one is restored, and the background
// workers that a restore stops and starts afresh.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Container } from '../domain/context.js';
import { countDueJobs } from '../db/repos/background_jobs.js';
import { dropDatabaseSnapshot, restoreDatabase, saveDatabase, type DbSnapshot } from '../db/snapshots.js';
import { registerBackgroundJobs } from '../domain/background.js';
import { nowIso } from '../shared/time.js';
import { clockState, restoreClock, type ClockState } from '../shared/clock.js';
import { Queue } from '../queue/queue.js';
import { closeRepositoryReaders } from '../domain/repository/service.js';
import { forgetSettings } from '../domain/settings/service.js';
import { replaceQueue } from '../container.js';
import { RequestGate } from './gate.js';
import { DeliveryLog } from './deliveries.js';
import { RequestJournal } from './journal.js';
import { FaultRules } from './faults.js';

/** The snapshot a reset restores: the state right after start-up and seeding. */
export const SEEDED = 'seeded';

/** What runs in the background of a serving node (the queue's workers, the CI runner). */
export interface Workers {
  stop(): Promise<void>;
}

interface Snapshot {
  db: DbSnapshot;
  dir: string;
  /** Where the clock was: a reset puts it back where the seed left it. */
  clock: ClockState;
  /** A copy of the state dirs made ahead of time: a restore moves it into place instead of copying. */
  spare: Promise<string> | null;
}

/** The directories of the data dir that hold state besides the database. */
const STATE_DIRS = ['repositories', 'blobs'];

export class TestMode {
  readonly gate = new RequestGate();
  /** What was asked of this app (GET /-/test/requests). */
  readonly journal = new RequestJournal();
  /** Faults and latency for requests to this app (/-/test/faults). */
  readonly faults = new FaultRules('path');
  private readonly snapshots = new Map<string, Snapshot>();
  private seq = 0;
  private workers: Workers | null = null;
  private startWorkers: (() => Workers) | null = null;
  /** Copies and removals that run after a snapshot or a restore has answered. */
  private readonly chores = new Set<Promise<unknown>>();

  constructor(private readonly c: Container) {}

  get deliveries(): DeliveryLog {
    return this.c.outboundRecorder as DeliveryLog;
  }

  /** Starts the node's background work through `start`; a restore stops it and calls `start` again. */
  runWorkers(start: () => Workers): void {
    this.startWorkers = start;
    this.workers = start();
  }

  async stopWorkers(): Promise<void> {
    await this.workers?.stop();
    this.workers = null;
  }

  /** Applies a seed with the background work stopped, and makes the result what a reset goes back to. */
  async seed(apply: () => Promise<void>): Promise<void> {
    const restart = this.startWorkers !== null;
    await this.stopWorkers();
    try {
      await apply();
      await this.snapshot(SEEDED);
    } finally {
      if (restart) {
        replaceQueue(this.c);
        this.workers = this.startWorkers!();
      }
    }
  }

  has(name: string): boolean {
    return this.snapshots.has(name);
  }

  /** Saves the whole state (database, repositories, blobs) under `name`, replacing an older one. */
  snapshot(name: string): Promise<void> {
    return this.gate.exclusive(async () => {
      const old = this.snapshots.get(name);
      const n = ++this.seq;
      const dir = this.workDir(String(n));
      await fs.promises.mkdir(dir, { recursive: true });
      const where = this.c.dialect === 'sqlite' ? path.join(dir, 'database.sqlite') : `anvil_snapshot_${process.pid}_${n}`;
      const db = await saveDatabase(this.c.db, where);
      await copyStateDirs(this.c.config.dataDir, dir);
      const snap: Snapshot = { db, dir, clock: clockState(), spare: null };
      this.snapshots.set(name, snap);
      this.makeSpare(snap);
      if (old) await this.drop(old);
    });
  }

  /**
   * Puts back the state saved under `name`: no request is in flight meanwhile, the background
   * work of the state left (queued jobs, running CI jobs) is dropped, and what went out is forgotten.
   */
  restore(name: string): Promise<void> {
    const snap = this.snapshots.get(name);
    if (!snap) throw new Error(`no snapshot named "${name}"`);
    return this.gate.exclusive(async () => {
      const restart = this.startWorkers !== null;
      await this.workers?.stop();
      this.workers = null;
      closeRepositoryReaders(this.c);
      await restoreDatabase(this.c.db, snap.db);
      // The state dirs are swapped, not copied: the spare copy moves in, the live dirs move out,
      // and both the removal and the next spare happen after the answer.
      const spare = (await snap.spare?.catch(() => null)) ?? (await this.copyOf(snap));
      snap.spare = null;
      const trash = this.workDir(`trash-${++this.seq}`);
      await fs.promises.mkdir(trash, { recursive: true });
      for (const d of STATE_DIRS) {
        const live = path.join(this.c.config.dataDir, d);
        if (fs.existsSync(live)) await fs.promises.rename(live, path.join(trash, d));
        if (fs.existsSync(path.join(spare, d))) await fs.promises.rename(path.join(spare, d), live);
      }
      this.chore(Promise.all([remove(trash), remove(spare)]));
      this.makeSpare(snap);
      restoreClock(snap.clock);
      this.c.authCache.forgetAll();
      this.c.projectReads.forgetAll();
      forgetSettings(this.c);
      this.deliveries.clear();
      this.deliveries.inboxFaults.clear();
      this.journal.clear();
      this.faults.clear();
      if (restart) {
        replaceQueue(this.c);
        this.workers = this.startWorkers!();
      }
    });
  }

  /** Removes every snapshot (the process is ending). */
  async dropAll(): Promise<void> {
    while (this.chores.size) await Promise.all(this.chores);
    for (const s of this.snapshots.values()) await this.drop(s);
    this.snapshots.clear();
  }

  private async drop(s: Snapshot): Promise<void> {
    const spare = await s.spare?.catch(() => null);
    await dropDatabaseSnapshot(this.c.db, s.db);
    await Promise.all([remove(s.dir), spare ? remove(spare) : null]);
  }

  private workDir(name: string): string {
    return path.join(this.c.config.dataDir, 'test-snapshots', name);
  }

  /** A new copy of a snapshot's state dirs; its path. */
  private async copyOf(s: Snapshot): Promise<string> {
    const dir = this.workDir(`spare-${++this.seq}`);
    await copyStateDirs(s.dir, dir);
    return dir;
  }

  private makeSpare(s: Snapshot): void {
    s.spare = this.copyOf(s);
    this.chore(s.spare);
  }

  /** Work after the answer; a failed spare is made again by the restore that needs it. */
  private chore(p: Promise<unknown>): void {
    const done = p.then(
      () => undefined,
      (err) => this.c.log.warn({ err }, 'test mode: a copy or removal of state dirs failed'),
    );
    this.chores.add(done);
    void done.finally(() => this.chores.delete(done));
  }
}

const run = promisify(execFile);
const remove = (dir: string) => fs.promises.rm(dir, { recursive: true, force: true });

/** Copies the state dirs found in `from` into `to` (made); `cp -a` is many times quicker than fs.cp on a few thousand small files. */
async function copyStateDirs(from: string, to: string): Promise<void> {
  await fs.promises.mkdir(to, { recursive: true });
  for (const d of STATE_DIRS) {
    if (fs.existsSync(path.join(from, d))) await run('cp', ['-a', path.join(from, d), path.join(to, d)]);
  }
}

/** How often the queue is asked whether due work is left while it runs. */
const DUE_WORK_POLL_MS = 20;

/**
 * Runs the background work due now (a seed's ref-change announcements, imports, statistics) on a
 * queue of its own until none is left: a seeded state is then at rest, and a reset does not do
 * that work again each time.
 */
export async function runDueWork(c: Container, timeoutMs = 120_000): Promise<void> {
  const queue = new Queue(c.db, c.log, { workers: 2, pollMs: DUE_WORK_POLL_MS });
  registerBackgroundJobs({ ...c, queue });
  queue.start();
  try {
    const deadline = Date.now() + timeoutMs;
    while ((await countDueJobs(c.db, nowIso())) > 0) {
      if (Date.now() > deadline) throw new Error(`background work was still due after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, DUE_WORK_POLL_MS));
    }
  } finally {
    await queue.stop();
  }
}

const modes = new WeakMap<Container, TestMode>();

/** The test mode of `c` (made at first ask). */
export function testModeOf(c: Container): TestMode {
  let m = modes.get(c);
  if (!m) modes.set(c, (m = new TestMode(c)));
  return m;
}
