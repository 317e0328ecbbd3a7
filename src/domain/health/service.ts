// Readiness checks: can this process serve traffic right now? Each check answers in the
// reference's shape (`{status: 'ok'}` or `{status: 'failed', message}`) under its own name.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Container } from '../context.js';
import { pingDatabase } from '../../db/repos/health.js';

export interface CheckResult {
  status: 'ok' | 'failed';
  message?: string;
}

export interface Readiness {
  ok: boolean;
  checks: Record<string, CheckResult[]>;
}

/** A probe must answer even when the database hangs; the orchestrator's own timeout is usually ~1 s. */
const CHECK_TIMEOUT_MS = 2000;

// The probe is unauthenticated: the reason goes to the log, the answer only names the check.
async function run(c: Container, name: string, check: () => Promise<void>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS);
  });
  try {
    const r = await Promise.race([check().then(() => 'ok' as const), timeout]);
    return r === 'ok' ? { status: 'ok' } : { status: 'failed', message: `${name} check timed out` };
  } catch (err) {
    c.log.warn({ err, check: name }, 'readiness check failed');
    return { status: 'failed', message: `${name} check failed` };
  } finally {
    clearTimeout(timer);
  }
}

/** Writes and removes a small file: catches a missing, read-only or full data directory. */
async function dataDirWritable(dir: string): Promise<void> {
  const probe = path.join(dir, `.readiness-${process.pid}`);
  await fs.writeFile(probe, 'ok');
  await fs.unlink(probe);
}

export async function readiness(c: Container): Promise<Readiness> {
  const [db, dataDir] = await Promise.all([
    run(c, 'Database', () => pingDatabase(c.db)),
    run(c, 'Data directory', () => dataDirWritable(c.config.dataDir)),
  ]);
  const checks: Record<string, CheckResult[]> = { db_check: [db], data_dir_check: [dataDir] };
  // A node whose runner cannot run jobs (no sandbox) is not ready: the reason is the fix to make.
  const runner: CheckResult | null =
    c.runnerProblem === undefined ? null : c.runnerProblem === null ? { status: 'ok' } : { status: 'failed', message: `runner: ${c.runnerProblem}` };
  if (runner) checks.runner_check = [runner];
  return { ok: Object.values(checks).every((list) => list.every((r) => r.status === 'ok')), checks };
}
