// Helpers for the export/import tests: running the queued export and import jobs, posting an
// archive as a client does, and the reference's own fixture archive.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestApp, Res } from './build.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { multipart } from './project_resources.js';
import { testQueue, waitFor } from './queue.js';

const KINDS = ['project_export', 'project_export_upload', 'project_import'];

/** Runs the queued export and import jobs, as a node's workers would, until none is left. */
export async function runImportExportJobs(t: TestApp, timeoutMs = 60_000): Promise<void> {
  const queue = testQueue(t.c.db);
  registerBackgroundJobs({ ...t.c, queue }, KINDS);
  queue.start();
  try {
    await waitFor('export and import jobs to finish', async () => {
      const left = await t.c.db.selectFrom('background_jobs').select('id').where('kind', 'in', KINDS).where('state', 'in', ['queued', 'running']).execute();
      return left.length === 0;
    }, timeoutMs);
  } finally {
    await queue.stop();
  }
}

/** POST /projects/import with a multipart body (fields as python-gitlab sends them). */
export function postImport(t: TestApp, archive: Buffer, fields: [string, string][], token: string | null = t.rootToken): Promise<Res> {
  const m = multipart(fields, [{ name: 'file', filename: 'export.tar.gz', content: archive, type: 'application/gzip' }]);
  return t.request('POST', '/api/v4/projects/import', { token, payload: m.payload, headers: m.headers });
}


/** The reference's fixture tree as an archive, built by its own make-archive.sh. */
export function fixtureArchive(): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-fixture-'));
  try {
    const out = path.join(dir, 'reference-export.tar.gz');
    execFileSync('bash', [path.join(fixtureDir(), 'make-archive.sh'), out], { stdio: 'pipe' });
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** shared/ beside the checkout (a worktree or CI's fresh clone). */
export function fixtureDir(): string {
  for (let d = path.dirname(new URL(import.meta.url).pathname); d !== '/'; d = path.dirname(d)) {
    const candidate = path.join(d, 'shared', 'fixtures', 'reference-export');
    if (fs.existsSync(path.join(candidate, 'make-archive.sh'))) return candidate;
  }
  throw new Error('shared/fixtures/reference-export not found above the test folder');
}
