// An import job that runs more than once: two runs at once (a lease that ran out while its worker
// was busy hands the job to a second worker), a run whose worker lost the lease mid-way, and runs
// after the import ended. Whatever the order, the import lands once, ends as it should, and no run
// finds its files removed by another.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { postImport } from '../helpers/import_export.js';
import { rawTarGz, type RawEntry } from '../helpers/tar.js';
import { findImport } from '../../src/db/repos/project_import_export.js';
import { runImport } from '../../src/domain/import_export/import.js';

const SHA = 'a'.repeat(40);
const pipeline = (iid: number, jobs: string[]) => ({
  iid, ref: 'main', sha: SHA, status: 'success', source: 'push', created_at: '2026-01-01T00:00:00.000Z',
  stages: [{ name: 'test', position: 0, builds: jobs.map((name) => ({ name, stage: 'test', status: 'success', type: 'Ci::Build' })) }],
});
const ndjson = (relation: string, records: unknown[]): RawEntry => ({ name: `tree/project/${relation}.ndjson`, body: records.map((r) => JSON.stringify(r)).join('\n') });
// enough records that a run takes a while, so two runs really overlap
const archive = (): Buffer => rawTarGz([
  { name: 'VERSION', body: '0.2.4' },
  { name: 'tree/project.json', body: JSON.stringify({ description: 'imported twice' }) },
  ndjson('ci_pipelines', Array.from({ length: 300 }, (_, i) => pipeline(i + 1, ['build', 'test']))),
  ndjson('custom_attributes', [{ key: 'origin', value: 'archive' }]),
]);

for (const dialect of DIALECTS) {
  describe(`an import job that runs more than once (${dialect})`, () => {
    let t: TestApp;
    before(async () => { t = await buildTestApp(dialect); });
    after(async () => { await t.close(); });

    async function requested(name: string, body = archive()) {
      const who = await t.createUser();
      const r = await postImport(t, body, [['path', name]], who.token);
      assert.equal(r.status, 201, r.text);
      return { id: r.body.id as number, token: who.token };
    }
    const status = async (id: number, token: string) => (await t.get(`/api/v4/projects/${id}/import`, token)).body;
    const counts = async (id: number) => ({
      pipelines: Number((await t.c.db.selectFrom('ci_pipelines').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', id).executeTakeFirstOrThrow()).n),
      jobs: Number((await t.c.db.selectFrom('ci_jobs').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', id).executeTakeFirstOrThrow()).n),
      attributes: Number((await t.c.db.selectFrom('custom_attributes').select((eb) => eb.fn.countAll().as('n')).where('kind', '=', 'project').where('subject_id', '=', id).executeTakeFirstOrThrow()).n),
    });
    const workDir = (id: number) => path.join(t.c.config.dataDir, 'tmp', `import-${id}`);

    it('two runs at once: the import lands once and ends finished; no run finds its files gone', async () => {
      const { id, token } = await requested(`twice-${dialect}`);
      // the second run starts while the first works, as a second worker does once the lease ran out
      const results = await Promise.allSettled([
        runImport(t.c, { projectId: id }, { attempts: 1, maxAttempts: 3 }),
        new Promise((r) => setTimeout(r, 30)).then(() => runImport(t.c, { projectId: id }, { attempts: 2, maxAttempts: 3 })),
      ]);
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled']);
      const st = await status(id, token);
      assert.deepEqual([st.import_status, st.import_error], ['finished', null]);
      assert.deepEqual(await counts(id), { pipelines: 300, jobs: 600, attributes: 1 });
      assert.deepEqual(st.failed_relations, []);
      assert.equal(fs.existsSync(workDir(id)), false, 'no working folder left');
      const imp = (await findImport(t.c.db, id))!;
      assert.equal(imp.archive_key, null, 'the archive is gone once the import ended');
      assert.ok(imp.ended_at);
    });

    it('a run after the import finished, or failed, does nothing: the outcome stays as it was', async () => {
      const { id, token } = await requested(`again-${dialect}`);
      await runImport(t.c, { projectId: id }, { attempts: 1, maxAttempts: 3 });
      assert.equal((await status(id, token)).import_status, 'finished');
      // the queue ran the job again (its worker died after the import ended, before the job was marked done)
      await runImport(t.c, { projectId: id }, { attempts: 2, maxAttempts: 3 });
      await runImport(t.c, { projectId: id }, { attempts: 3, maxAttempts: 3 });
      const st = await status(id, token);
      assert.deepEqual([st.import_status, st.import_error], ['finished', null]);
      assert.deepEqual(await counts(id), { pipelines: 300, jobs: 600, attributes: 1 });

      const bad = await requested(`again-bad-${dialect}`, rawTarGz([{ name: 'VERSION', body: '0.2.4' }]));
      await runImport(t.c, { projectId: bad.id }, { attempts: 1, maxAttempts: 3 });
      const failed = await status(bad.id, bad.token);
      assert.deepEqual([failed.import_status, failed.import_error], ['failed', 'Project tree file tree/project.json is missing']);
      await runImport(t.c, { projectId: bad.id }, { attempts: 2, maxAttempts: 3 });
      assert.deepEqual(await status(bad.id, bad.token), failed);
    });

    it('a run whose worker lost the lease mid-way stops without failing the import; the next run lands it', async () => {
      const { id, token } = await requested(`lease-lost-${dialect}`);
      const lease = new AbortController();
      const first = runImport(t.c, { projectId: id }, { attempts: 1, maxAttempts: 3, signal: lease.signal });
      // the lease runs out while the first run works
      for (let i = 0; i < 500 && (await status(id, token)).import_status !== 'started'; i++) await new Promise((r) => setTimeout(r, 2));
      lease.abort(new Error('lease lost'));
      const outcome = await first.then(() => 'finished', (err: Error) => err.message);
      const mid = await status(id, token);
      if (outcome === 'finished') {
        // it had already landed before the lease was lost: nothing else to check but the outcome
        assert.equal(mid.import_status, 'finished');
      } else {
        assert.equal(outcome, 'lease lost');
        assert.equal(mid.import_status, 'started', 'a lost lease does not fail the import');
        assert.deepEqual(await counts(id), { pipelines: 0, jobs: 0, attributes: 0 });
      }
      await runImport(t.c, { projectId: id }, { attempts: 2, maxAttempts: 3 });
      const st = await status(id, token);
      assert.deepEqual([st.import_status, st.import_error], ['finished', null]);
      assert.deepEqual(await counts(id), { pipelines: 300, jobs: 600, attributes: 1 });
      assert.equal(fs.existsSync(workDir(id)), false, 'no working folder left');
    });
  });
}
