// Test mode's state for one app: named snapshots (the one taken after seeding is what a reset
// goes back to), the gate that keeps requests out while one is restored, and the background
// workers that a restore stops and starts afresh.
import fs from 'node:fs';
import path from 'node:path';
import type { Container } from '../domain/context.js';
import { dropDatabaseSnapshot, restoreDatabase, saveDatabase, type DbSnapshot } from '../db/snapshots.js';
import { closeRepositoryReaders } from '../domain/repository/service.js';
import { forgetSettings } from '../domain/settings/service.js';
import { replaceQueue } from '../container.js';
import { RequestGate } from './gate.js';
import { DeliveryLog } from './deliveries.js';

/** The snapshot a reset restores: the state right after start-up and seeding. */
export const SEEDED = 'seeded';

/** What runs in the background of a serving node (the queue's workers, the CI runner). */
export interface Workers {
  stop(): Promise<void>;
}

interface Snapshot {
  db: DbSnapshot;
  dir: string;
}

/** The directories of the data dir that hold state besides the database. */
const STATE_DIRS = ['repositories', 'blobs'];

export class TestMode {
  readonly gate = new RequestGate();
  private readonly snapshots = new Map<string, Snapshot>();
  private seq = 0;
  private workers: Workers | null = null;
  private startWorkers: (() => Workers) | null = null;

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
      const dir = path.join(this.c.config.dataDir, 'test-snapshots', String(n));
      await fs.promises.mkdir(dir, { recursive: true });
      const where = this.c.dialect === 'sqlite' ? path.join(dir, 'database.sqlite') : `anvil_snapshot_${process.pid}_${n}`;
      const db = await saveDatabase(this.c.db, where);
      for (const d of STATE_DIRS) await copyIfThere(path.join(this.c.config.dataDir, d), path.join(dir, d));
      this.snapshots.set(name, { db, dir });
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
      for (const d of STATE_DIRS) {
        const live = path.join(this.c.config.dataDir, d);
        await fs.promises.rm(live, { recursive: true, force: true });
        await copyIfThere(path.join(snap.dir, d), live);
      }
      this.c.authCache.forgetAll();
      this.c.projectReads.forgetAll();
      forgetSettings(this.c);
      this.deliveries.clear();
      if (restart) {
        replaceQueue(this.c);
        this.workers = this.startWorkers!();
      }
    });
  }

  /** Removes every snapshot (the process is ending). */
  async dropAll(): Promise<void> {
    for (const s of this.snapshots.values()) await this.drop(s);
    this.snapshots.clear();
  }

  private async drop(s: Snapshot): Promise<void> {
    await dropDatabaseSnapshot(this.c.db, s.db);
    await fs.promises.rm(s.dir, { recursive: true, force: true });
  }
}

async function copyIfThere(from: string, to: string): Promise<void> {
  if (fs.existsSync(from)) await fs.promises.cp(from, to, { recursive: true });
}

const modes = new WeakMap<Container, TestMode>();

/** The test mode of `c` (made at first ask). */
export function testModeOf(c: Container): TestMode {
  let m = modes.get(c);
  if (!m) modes.set(c, (m = new TestMode(c)));
  return m;
}
