// Traces and artifacts in the domain: the trace writer (chunks, flushes, output limit), reading a
// trace while it runs and across the fold into a blob, erasing; artifacts of many jobs, erasing a
// job's, removing a pipeline's blobs; the expiry and keep_latest_artifact, and its queue job.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { waitFor } from '../helpers/queue.js';
import { findJobArtifact } from '../../src/db/repos/ci_artifacts.js';
import { traceChunksAfter } from '../../src/db/repos/ci_traces.js';
import {
  ARTIFACTS_EXPIRE_JOB, artifactsOfJobs, deletePipelineBlobs, eraseJobArtifacts, expireArtifacts, storeArtifact,
} from '../../src/domain/ci/artifacts.js';
import { unzipInto } from '../../src/domain/ci/dependencies.js';
import { eraseTrace, foldTrace, readTrace, traceBlobKey, TraceWriter } from '../../src/domain/ci/traces.js';
import type { JobRow } from '../../src/db/repos/ci_jobs.js';
import { jobsOf, makePipeline, plannedJob, repoProject, type RepoProject } from './runner_fixtures.js';
import { storedZip } from '../helpers/zip.js';

async function text(s: Readable | null): Promise<string | null> {
  if (!s) return null;
  const parts: Buffer[] = [];
  for await (const b of s) parts.push(b as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

const PAST = '2020-01-01T00:00:00.000Z';


describe('unpacking a dependency archive', () => {
  it('writes nothing outside the workspace: no .. or absolute paths, no writing through symlinks, no symlinks out', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-unzip-'));
    try {
      const ws = path.join(base, 'ws');
      const outside = path.join(base, 'outside');
      fs.mkdirSync(ws);
      fs.mkdirSync(outside);
      fs.symlinkSync(outside, path.join(ws, 'through')); // a symlink the checkout could hold
      const zip = path.join(base, 'a.zip');
      fs.writeFileSync(zip, storedZip([
        { name: 'ok/', mode: 0o040755 },
        { name: 'ok/file.txt', data: 'fine' },
        { name: 'ok/tool.sh', data: 'echo', mode: 0o100755 },
        { name: 'ok/link', data: 'file.txt', mode: 0o120777 },
        { name: '../evil.txt', data: 'evil' },
        { name: '/abs.txt', data: 'evil' },
        { name: 'through/x.txt', data: 'evil' },
        { name: 'out-link', data: '../outside', mode: 0o120777 },
      ]));
      const skipped = await unzipInto(zip, ws);
      assert.deepEqual(skipped.sort(), ['../evil.txt', '/abs.txt', 'out-link', 'through/x.txt']);
      assert.equal(fs.readFileSync(path.join(ws, 'ok/file.txt'), 'utf8'), 'fine');
      assert.equal(fs.statSync(path.join(ws, 'ok/tool.sh')).mode & 0o777, 0o755);
      assert.equal(fs.readlinkSync(path.join(ws, 'ok/link')), 'file.txt');
      assert.deepEqual(fs.readdirSync(outside), []);
      assert.equal(fs.existsSync(path.join(base, 'evil.txt')), false);
      assert.equal(fs.existsSync(path.join(ws, 'out-link')), false);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`CI traces and artifacts (${dialect})`, () => {
    let t: TestApp;
    let rp: RepoProject;
    before(async () => {
      t = await buildTestApp(dialect);
      rp = await repoProject(t);
    });
    after(async () => {
      await t.close();
    });

    /** Fresh jobs (pending; no runner here) in one new pipeline. */
    async function newJobs(n: number, ref = 'main'): Promise<JobRow[]> {
      const p = await makePipeline(t, rp, Array.from({ length: n }, (_, i) => plannedJob(`j${i}`)), { ref });
      return Object.values(await jobsOf(t, p.id));
    }

    it('the writer stores output in order, flushing by size and by time; readTrace shows it while running', async () => {
      const [job] = await newJobs(1);
      assert.equal(await readTrace(t.c, job!.id), null, 'no log yet');
      const w = await TraceWriter.open(t.c, job!.id, { flushMs: 50, flushBytes: 16 });
      w.write('0123456789');
      w.write('abcdefghij'); // 20 bytes waiting: over 16, stored at once (two rows of at most 16)
      await w.flush();
      const rows = await traceChunksAfter(t.c.db, job!.id, -1, 10);
      assert.deepEqual(rows.map((r) => r.seq), [0, 1]);
      assert.deepEqual(rows.map((r) => Buffer.from(r.data, 'base64').toString()), ['0123456789abcdef', 'ghij']);
      w.write('tail');
      await waitFor('the periodic flush', async () => (await traceChunksAfter(t.c.db, job!.id, 1, 10)).length === 1, 5000);
      assert.equal(await text(await readTrace(t.c, job!.id)), '0123456789abcdefghijtail');
      await w.close();
      w.write('after close is dropped');
      await new Promise((r) => setTimeout(r, 120));
      assert.equal(await text(await readTrace(t.c, job!.id)), '0123456789abcdefghijtail');
    });

    it('output over the limit is cut with the reference message; the runner lines still come', async () => {
      const [job] = await newJobs(1);
      const w = await TraceWriter.open(t.c, job!.id, { limitBytes: 10 });
      w.write('12345678');
      w.write('ABCDEFGH');
      w.write('never');
      w.note('Job succeeded');
      await w.close();
      const log = (await text(await readTrace(t.c, job!.id)))!;
      assert.ok(log.startsWith('12345678AB\n'), log);
      assert.match(log, /Job's log exceeded limit of 10 bytes\.\nJob execution will continue but no more output will be collected\./);
      assert.ok(!log.includes('never'));
      assert.ok(log.endsWith('Job succeeded\n'));
    });

    it('folding: chunks become one blob (trace artifact row), chunks go; folding again changes nothing', async () => {
      const [job] = await newJobs(1);
      const w = await TraceWriter.open(t.c, job!.id, { flushBytes: 4 });
      for (let i = 0; i < 10; i++) w.write(`line ${i}\n`);
      await w.close();
      await foldTrace(t.c, job!);
      const row = await findJobArtifact(t.c.db, job!.id, 'trace');
      assert.ok(row);
      assert.deepEqual([row.file_format, row.filename, row.blob_key], ['raw', 'job.log', traceBlobKey(job!.id)]);
      const expected = Array.from({ length: 10 }, (_, i) => `line ${i}\n`).join('');
      assert.equal(Number(row.size), expected.length);
      assert.deepEqual(await traceChunksAfter(t.c.db, job!.id, -1, 10), []);
      assert.equal(await text(await readTrace(t.c, job!.id)), expected);
      await foldTrace(t.c, job!);
      assert.equal(await text(await readTrace(t.c, job!.id)), expected);
    });

    it('a reader that started on the chunks finishes from the blob when the job ends meanwhile', async () => {
      const [job] = await newJobs(1);
      const w = await TraceWriter.open(t.c, job!.id, { flushBytes: 8 });
      const lines = Array.from({ length: 60 }, (_, i) => `chunk-${String(i).padStart(2, '0')}\n`); // 60 rows: several read pages
      for (const l of lines) w.write(l);
      await w.close();
      const stream = await readTrace(t.c, job!.id); // holds the first page of chunks
      await foldTrace(t.c, job!); // the job ended: the chunks are gone
      assert.deepEqual(await traceChunksAfter(t.c.db, job!.id, -1, 1), []);
      assert.equal(await text(stream), lines.join(''));
    });

    it('eraseTrace removes the log (chunks, row, blob)', async () => {
      const [done, running] = await newJobs(2);
      for (const j of [done!, running!]) {
        const w = await TraceWriter.open(t.c, j.id);
        w.write('some log\n');
        await w.close();
      }
      await foldTrace(t.c, done!);
      await eraseTrace(t.c, done!.id);
      await eraseTrace(t.c, running!.id);
      assert.equal(await readTrace(t.c, done!.id), null);
      assert.equal(await readTrace(t.c, running!.id), null);
      assert.equal(await findJobArtifact(t.c.db, done!.id, 'trace'), undefined);
      assert.equal(await t.c.storage.stat(traceBlobKey(done!.id)), null);
    });

    async function withArtifacts(job: JobRow, expireAt: string | null): Promise<void> {
      await storeArtifact(t.c, job, { fileType: 'archive', filename: 'artifacts.zip', body: Buffer.from('zip bytes'), expireAt });
      await storeArtifact(t.c, job, { fileType: 'metadata', filename: 'metadata.gz', body: Buffer.from('meta'), expireAt });
      await storeArtifact(t.c, job, { fileType: 'junit', filename: 'junit.xml.gz', body: Buffer.from('junit'), expireAt });
      const w = await TraceWriter.open(t.c, job.id);
      w.write(`log of ${job.id}\n`);
      await w.close();
      await foldTrace(t.c, job);
    }

    const typesOf = async (jobId: number) => ((await artifactsOfJobs(t.c, [jobId])).get(jobId) ?? []).map((r) => r.file_type).sort();

    it('artifactsOfJobs: every job\'s rows in one map; storing a type again replaces it', async () => {
      const [a, b, none] = await newJobs(3);
      await withArtifacts(a!, null);
      await withArtifacts(b!, null);
      await storeArtifact(t.c, a!, { fileType: 'archive', filename: 'renamed.zip', body: Buffer.from('new zip'), expireAt: null });
      const map = await artifactsOfJobs(t.c, [a!.id, b!.id, none!.id, a!.id]);
      assert.deepEqual([...map.keys()].sort((x, y) => x - y), [a!.id, b!.id]);
      assert.deepEqual(map.get(a!.id)!.map((r) => r.file_type).sort(), ['archive', 'junit', 'metadata', 'trace']);
      const archive = map.get(a!.id)!.find((r) => r.file_type === 'archive')!;
      assert.deepEqual([archive.filename, archive.file_format, Number(archive.size)], ['renamed.zip', 'zip', 7]);
      assert.deepEqual(map.get(b!.id)!.map((r) => r.file_format).sort(), ['gzip', 'gzip', 'raw', 'zip']);
      assert.equal((await artifactsOfJobs(t.c, [])).size, 0);
    });

    it('eraseJobArtifacts removes every artifact of the job, trace included, rows and blobs; others stay', async () => {
      const [a, b] = await newJobs(2);
      await withArtifacts(a!, null);
      await withArtifacts(b!, null);
      const keys = ((await artifactsOfJobs(t.c, [a!.id])).get(a!.id) ?? []).map((r) => r.blob_key);
      await eraseJobArtifacts(t.c, a!.id);
      assert.deepEqual(await typesOf(a!.id), []);
      for (const k of keys) assert.equal(await t.c.storage.stat(k), null, k);
      assert.equal(await readTrace(t.c, a!.id), null);
      assert.deepEqual(await typesOf(b!.id), ['archive', 'junit', 'metadata', 'trace']);
      assert.ok(await text(await readTrace(t.c, b!.id)));
    });

    it('deletePipelineBlobs removes the blobs of every job of the pipeline (in batches), not of other pipelines', async () => {
      const p = await makePipeline(t, rp, Array.from({ length: 5 }, (_, i) => plannedJob(`d${i}`)));
      const jobs = Object.values(await jobsOf(t, p.id));
      for (const j of jobs) await withArtifacts(j, null);
      const [other] = await newJobs(1);
      await withArtifacts(other!, null);
      const keys = [...(await artifactsOfJobs(t.c, jobs.map((j) => j.id))).values()].flat().map((r) => r.blob_key);
      assert.equal(keys.length, 20);
      await deletePipelineBlobs(t.c, p.id);
      for (const k of keys) assert.equal(await t.c.storage.stat(k), null, k);
      for (const r of (await artifactsOfJobs(t.c, [other!.id])).get(other!.id)!) assert.ok(await t.c.storage.stat(r.blob_key));
    });

    it('expiry removes expired artifacts but never traces; keep_latest_artifact keeps those of each ref\'s latest successful pipeline', async () => {
      // On main: an old success, the latest success, then a newer failed one; on feature: one success.
      const setStatus = (id: number, status: string) => t.c.db.updateTable('ci_pipelines').set({ status }).where('id', '=', id).execute();
      const [old] = await newJobs(1);
      const [latest] = await newJobs(1);
      const [newer] = await newJobs(1);
      const [feature] = await newJobs(1, 'feature');
      const [fresh] = await newJobs(1);
      await setStatus(old!.pipeline_id, 'success');
      await setStatus(latest!.pipeline_id, 'success');
      await setStatus(newer!.pipeline_id, 'failed');
      await setStatus(feature!.pipeline_id, 'success');
      await setStatus(fresh!.pipeline_id, 'failed');
      for (const j of [old!, latest!, newer!, feature!]) await withArtifacts(j, PAST);
      await withArtifacts(fresh!, new Date(Date.now() + 86_400_000).toISOString()); // not expired yet
      const oldKeys = ((await artifactsOfJobs(t.c, [old!.id])).get(old!.id) ?? []).filter((r) => r.file_type !== 'trace').map((r) => r.blob_key);

      const s = await t.request('PUT', '/api/v4/application/settings', { body: { keep_latest_artifact: true } });
      assert.equal(s.status, 200, s.text);
      // Other tests' expired artifacts count too, so only this test's jobs are checked.
      await expireArtifacts(t.c);
      assert.deepEqual(await typesOf(old!.id), ['trace'], 'an older pipeline of the ref loses its expired artifacts');
      for (const k of oldKeys) assert.equal(await t.c.storage.stat(k), null, k);
      assert.ok(await text(await readTrace(t.c, old!.id)), 'the trace stays');
      assert.deepEqual(await typesOf(latest!.id), ['archive', 'junit', 'metadata', 'trace'], 'the latest successful pipeline keeps them');
      assert.deepEqual(await typesOf(newer!.id), ['trace'], 'a newer failed pipeline is not the latest successful one');
      assert.deepEqual(await typesOf(feature!.id), ['archive', 'junit', 'metadata', 'trace'], 'each ref has its latest');
      assert.deepEqual(await typesOf(fresh!.id), ['archive', 'junit', 'metadata', 'trace']);

      const off = await t.request('PUT', '/api/v4/application/settings', { body: { keep_latest_artifact: false } });
      assert.equal(off.status, 200, off.text);
      try {
        await expireArtifacts(t.c);
        for (const j of [latest!, feature!]) assert.deepEqual(await typesOf(j.id), ['trace']);
        assert.deepEqual(await typesOf(fresh!.id), ['archive', 'junit', 'metadata', 'trace'], 'not expired yet');
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { keep_latest_artifact: true } });
      }
    });
  });

  describe(`CI artifacts expiry job (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, { ANVIL_QUEUE_WORKERS: '1' });
    });
    after(async () => {
      await t.close();
    });

    it('a node with workers queues the expiry; a run removes expired artifacts and queues the next run', async () => {
      const queued = () =>
        t.c.db.selectFrom('background_jobs').selectAll().where('kind', '=', ARTIFACTS_EXPIRE_JOB).where('state', '=', 'queued').execute();
      const initial = await queued();
      assert.equal(initial.length, 1, 'one run queued at start');
      assert.ok(Date.parse(initial[0]!.run_at) > Date.now(), 'in the future');

      const rp = await repoProject(t);
      const p = await makePipeline(t, rp, [plannedJob('x')]);
      const { x } = await jobsOf(t, p.id);
      await storeArtifact(t.c, x!, { fileType: 'archive', filename: 'artifacts.zip', body: Buffer.from('z'), expireAt: PAST });
      // Due now instead of in a minute.
      await t.c.db.updateTable('background_jobs').set({ run_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', initial[0]!.id).execute();
      t.c.queue.start();
      await waitFor('the expired archive to go', async () => (await findJobArtifact(t.c.db, x!.id, 'archive')) === undefined, 20_000);
      const next = await waitFor('the next run queued', async () => {
        const q = await queued();
        return q.length === 1 && q[0]!.id !== initial[0]!.id ? q[0] : null;
      }, 20_000);
      assert.ok(Date.parse(next.run_at) > Date.now() + 5 * 60_000, `the next run is minutes away: ${next.run_at}`);
    });
  });
}
