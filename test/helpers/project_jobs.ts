// Runs the project jobs that are due, as a node's queue workers would, then stops.
import type { TestApp } from './build.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { testQueue, waitFor } from './queue.js';

const KINDS = ['project_destroy', 'project_fork_repository'];

export async function runDueProjectJobs(t: TestApp): Promise<void> {
  const queue = testQueue(t.c.db);
  registerBackgroundJobs({ ...t.c, queue }, KINDS);
  queue.start();
  try {
    await waitFor('due project jobs to finish', async () => {
      const left = await t.c.db
        .selectFrom('background_jobs')
        .select('id')
        .where('kind', 'in', KINDS)
        .where('state', 'in', ['queued', 'running'])
        .where('run_at', '<=', new Date().toISOString())
        .execute();
      return left.length === 0;
    });
  } finally {
    await queue.stop();
  }
}

/** Makes every queued project job due now (as if its time had come). */
export async function makeProjectJobsDue(t: TestApp): Promise<void> {
  await t.c.db
    .updateTable('background_jobs')
    .set({ run_at: new Date(Date.now() - 1000).toISOString() })
    .where('kind', 'in', KINDS)
    .where('state', '=', 'queued')
    .execute();
}
