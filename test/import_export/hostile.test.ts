// Hostile import archives, each built here byte by byte, imported through the API and run by the
// import job: a huge relation line, a pipeline of 300,000 jobs, values the API never produces,
// a javascript: badge, 100,001 empty files, a bundle whose refs git drops, files where folders
// belong. Each ends as the reference would (a failed relation, or a failed import with a message
// that names no server path), and the process memory stays bounded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { postImport, runImportExportJobs } from '../helpers/import_export.js';
import { rawTarGz, type RawEntry } from '../helpers/tar.js';
import { DEFAULT_LIMITS } from '../../src/import_export/reader.js';
import { MAX_LINE_BYTES } from '../../src/import_export/ndjson.js';
import { MAX_PIPELINE_JOBS } from '../../src/domain/import_export/relations.js';
import { importFailures } from '../../src/db/repos/project_import_export.js';

const SHA = 'a'.repeat(40);
const base = (project: object = {}): RawEntry[] => [
  { name: 'VERSION', body: '0.2.4' },
  { name: 'tree/project.json', body: JSON.stringify({ description: 'hostile', ...project }) },
];
const ndjson = (relation: string, records: unknown[]): RawEntry => ({ name: `tree/project/${relation}.ndjson`, body: records.map((r) => JSON.stringify(r)).join('\n') });
const pipeline = (iid: number | string, jobs: object[], extra: object = {}) => ({
  iid, ref: 'main', sha: SHA, status: 'success', source: 'push', created_at: '2026-01-01T00:00:00.000Z',
  stages: [{ name: 'test', position: 0, builds: jobs }], ...extra,
});
const job = (name: string, extra: object = {}) => ({ name, stage: 'test', status: 'success', type: 'Ci::Build', ...extra });

/** Peak RSS growth (MB) while `fn` runs, sampled every 20 ms. */
async function peakRssGrowth(fn: () => Promise<void>): Promise<number> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return (Math.max(peak, process.memoryUsage().rss) - start) / 1024 / 1024;
}

/** A git bundle of one commit whose ref names are replaced by `names`. */
function bundleNamed(work: string, names: string[]): Buffer {
  const src = path.join(work, `src-${names.length}-${Math.random().toString(36).slice(2)}`);
  execFileSync('git', ['init', '-q', '-b', 'main', src]);
  execFileSync('git', ['-C', src, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'one']);
  const file = path.join(work, 'b.bundle');
  execFileSync('git', ['-C', src, 'bundle', 'create', '-q', file, 'main']);
  const raw = fs.readFileSync(file);
  const end = raw.indexOf('\n\n');
  const sha = raw.subarray(0, end).toString().split('\n')[1]!.split(' ')[0]!;
  return Buffer.concat([Buffer.from(['# v2 git bundle', ...names.map((n) => `${sha} ${n}`)].join('\n')), raw.subarray(end)]);
}

for (const dialect of DIALECTS) {
  describe(`hostile import archives (${dialect})`, () => {
    let t: TestApp;
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-hostile-'));
    before(async () => { t = await buildTestApp(dialect); });
    after(async () => {
      await t.close();
      fs.rmSync(work, { recursive: true, force: true });
    });

    /** Imports the archive as a fresh user and runs the job; the import status as the API shows it. */
    async function importOf(entries: RawEntry[], name: string, timed?: (cpuSeconds: number) => void) {
      const who = await t.createUser();
      const r = await postImport(t, rawTarGz(entries), [['path', name]], who.token);
      assert.equal(r.status, 201, r.text);
      const cpu = process.cpuUsage();
      await runImportExportJobs(t, 300_000);
      const used = process.cpuUsage(cpu);
      timed?.((used.user + used.system) / 1e6);
      const st = (await t.get(`/api/v4/projects/${r.body.id}/import`, who.token)).body;
      // never a server path, never a JS error text
      assert.ok(!String(st.import_error ?? '').includes(t.c.config.dataDir), st.import_error);
      assert.doesNotMatch(String(st.import_error ?? ''), /is not a function|Cannot read prop|ENOTDIR|EISDIR|ENOENT/);
      // the reference never sends exception_message; what was kept is read where it is kept
      const kept = await importFailures(t.c.db, r.body.id, st.correlation_id, 100);
      const failures = kept.map((f) => [f.relation_key, f.relation_index, f.exception_class, f.exception_message]).sort((a, b) => String(a).localeCompare(String(b)));
      return { id: r.body.id as number, token: who.token, st, failures };
    }

    it('a ci_pipelines line of 50 MB (2.5 million jobs): refused with a clear error, memory bounded', async () => {
      // names that vary, so the archive compresses like a real one (about 18 MB) rather than a bomb
      const line = JSON.stringify(pipeline(1, Array.from({ length: 2_500_000 }, (_, i) => ({ name: ((i * 2654435761) >>> 0).toString(36) }))));
      assert.ok(line.length > MAX_LINE_BYTES);
      let out!: Awaited<ReturnType<typeof importOf>>;
      const mb = await peakRssGrowth(async () => { out = await importOf([...base(), { name: 'tree/project/ci_pipelines.ndjson', body: line }], `huge-line-${dialect}`); });
      assert.equal(out.st.import_status, 'failed');
      assert.equal(out.st.import_error, `A line of tree/project/ci_pipelines.ndjson is longer than ${MAX_LINE_BYTES} bytes`);
      assert.ok(mb < 400, `the process grew ${mb.toFixed(0)} MB`);
      console.log(`# 50 MB line: peak RSS growth ${mb.toFixed(0)} MB`);
    });

    it('a pipeline of 300,000 jobs: a failed relation, the other pipeline lands; memory bounded', async () => {
      const big = pipeline(1, Array.from({ length: 300_000 }, (_, i) => ({ name: `j${i}` })));
      let out!: Awaited<ReturnType<typeof importOf>>;
      const mb = await peakRssGrowth(async () => { out = await importOf([...base(), ndjson('ci_pipelines', [big, pipeline(2, [job('ok')])])], `many-jobs-${dialect}`); });
      assert.equal(out.st.import_status, 'finished', out.st.import_error);
      assert.deepEqual(out.failures, [['ci_pipelines', 0, 'ActiveRecord::RecordInvalid', `Validation failed: Pipeline has more than ${MAX_PIPELINE_JOBS} jobs`]]);
      assert.deepEqual(out.st.failed_relations.map((f: any) => [f.relation_name, f.line_number, f.exception_class]), [['ci_pipelines', 0, 'ActiveRecord::RecordInvalid']]);
      const pipelines = (await t.get(`/api/v4/projects/${out.id}/pipelines`, out.token)).body;
      assert.deepEqual(pipelines.map((p: any) => p.iid), [2]);
      assert.ok(mb < 400, `the process grew ${mb.toFixed(0)} MB`);
      console.log(`# 300,000 jobs: peak RSS growth ${mb.toFixed(0)} MB`);
    });

    it('values the API never produces are failed relations; the valid rows land unchanged', async () => {
      const out = await importOf([...base(), ndjson('ci_pipelines', [
        pipeline('1e300', [job('a')]),
        pipeline(-5, [job('b')]),
        pipeline(1e300, [job('c')]),
        pipeline(3, [job('d', { duration: 1e308 })]),
        pipeline(4, [job('e\u0000x')]),
        pipeline(5, [job('f', { duration: 12.5, queued_duration: 1 })], { duration: 13 }),
      ]), ndjson('custom_attributes', [{ key: 'a\u0000b', value: 'x' }, { key: 'ok', value: 'v\u0000' }, { key: 'good', value: 'yes' }]),
      ndjson('protected_branches', [{ name: 'rel\u0000ease' }, { name: 'main' }])], `values-${dialect}`);
      assert.equal(out.st.import_status, 'finished', out.st.import_error);
      assert.deepEqual(out.failures.map(([relation, line, , message]) => [relation, line, message]), [
        ['ci_pipelines', 0, 'Validation failed: Iid must be a whole number greater than 0'],
        ['ci_pipelines', 1, 'Validation failed: Iid must be a whole number greater than 0'],
        ['ci_pipelines', 2, 'Validation failed: Iid must be a whole number greater than 0'],
        ['ci_pipelines', 3, 'Validation failed: Duration must be a number from 0 to 31622400'],
        ['ci_pipelines', 4, 'Validation failed: a value contains a NUL byte'],
        ['custom_attributes', 0, 'Validation failed: a value contains a NUL byte'],
        ['custom_attributes', 1, 'Validation failed: a value contains a NUL byte'],
        ['protected_branches', 0, 'Validation failed: a value contains a NUL byte'],
      ]);
      const pipelines = (await t.get(`/api/v4/projects/${out.id}/pipelines`, out.token)).body;
      assert.deepEqual(pipelines.map((p: any) => [p.iid]), [[5]]);
      const jobs = (await t.get(`/api/v4/projects/${out.id}/pipelines/${pipelines[0].id}/jobs`, out.token)).body;
      assert.deepEqual(jobs.map((j: any) => [j.name, j.duration, j.queued_duration]), [['f', 12.5, 1]]);
      const attrs = (await t.get(`/api/v4/projects/${out.id}/custom_attributes`)).body;
      assert.deepEqual(attrs, [{ key: 'good', value: 'yes' }]);
      const branches = (await t.get(`/api/v4/projects/${out.id}/protected_branches`, out.token)).body;
      assert.deepEqual(branches.map((b: any) => b.name), ['main']);
    });

    it('a badge with a javascript: link is refused as the API refuses it; a good one lands', async () => {
      const out = await importOf([...base(), ndjson('project_badges', [
        { name: 'xss', link_url: 'javascript:alert(document.cookie)', image_url: 'https://img.example/x.svg' },
        { name: 'img', link_url: 'https://ok.example/', image_url: 'data:image/svg+xml,<svg/onload=alert(1)>' },
        { name: 'good', link_url: 'https://ok.example/%{project_path}', image_url: 'https://img.example/b.svg' },
      ])], `badges-${dialect}`);
      assert.equal(out.st.import_status, 'finished', out.st.import_error);
      assert.deepEqual(out.failures.map(([relation, line, , message]) => [relation, line, message]), [
        ['project_badges', 0, 'Validation failed: Link url is blocked: Only allowed schemes are http, https'],
        ['project_badges', 1, 'Validation failed: Image url is blocked: Only allowed schemes are http, https'],
      ]);
      // the API refuses the same badge with the same words
      const api = await t.request('POST', `/api/v4/projects/${out.id}/badges`, { token: out.token, body: { link_url: 'javascript:alert(1)', image_url: 'https://img.example/x.svg' } });
      assert.deepEqual([api.status, api.body], [400, { message: { link_url: ['is blocked: Only allowed schemes are http, https'] } }]);
      const badges = (await t.get(`/api/v4/projects/${out.id}/badges`, out.token)).body;
      assert.deepEqual(badges.map((b: any) => [b.name, b.link_url]), [['good', 'https://ok.example/%{project_path}']]);
    });

    it('100,001 empty files: refused before a file is written, quickly', async () => {
      const entries = [...base(), ...Array.from({ length: DEFAULT_LIMITS.maxEntries + 1 }, (_, i) => ({ name: `uploads/${i}`, body: '' }))];
      let seconds = 0;
      const out = await importOf(entries, `many-files-${dialect}`, (s) => { seconds = s; });
      assert.equal(out.st.import_status, 'failed');
      assert.equal(out.st.import_error, `The archive has more than ${DEFAULT_LIMITS.maxEntries} entries`);
      // CPU time of this process for the job (the machine's load does not count): writing the
      // files first cost minutes; reading the headers costs seconds
      assert.ok(seconds < 60, `took ${seconds} s of CPU`);
      console.log(`# 100,001 files refused after ${seconds.toFixed(1)} s of CPU`);
      assert.equal(fs.existsSync(path.join(t.c.config.dataDir, 'tmp', `import-${out.id}`)), false, 'no working folder left');
    });

    it('a bundle whose refs git drops: nothing arrived fails the import; some dropped are reported beside what arrived', async () => {
      const none = await importOf([...base(), { name: 'project.bundle', body: bundleNamed(work, ['refs/heads/bad..name', 'refs/heads/x.lock', 'refs/tags/a b']) }], `refs-none-${dialect}`);
      assert.equal(none.st.import_status, 'failed');
      assert.equal(none.st.import_error, 'Nothing of the repository arrived: git refused all 3 branch and tag names of the bundle ("refs/heads/bad..name", "refs/heads/x.lock", "refs/tags/a b")');

      const some = await importOf([...base(), { name: 'project.bundle', body: bundleNamed(work, ['refs/heads/main', 'refs/heads/bad..name', 'refs/tags/v1~1', 'HEAD']) }], `refs-some-${dialect}`);
      assert.equal(some.st.import_status, 'finished', some.st.import_error);
      assert.deepEqual(some.failures.map(([relation, , cls, message]) => [relation, cls, message]), [
        ['repository', 'Gitlab::ImportExport::Error', 'Ref "refs/heads/bad..name" was not imported: git refuses its name'],
        ['repository', 'Gitlab::ImportExport::Error', 'Ref "refs/tags/v1~1" was not imported: git refuses its name'],
      ]);
      const branches = (await t.get(`/api/v4/projects/${some.id}/repository/branches`, some.token)).body;
      assert.deepEqual(branches.map((b: any) => b.name), ['main']);
    });

    it('files where folders belong, and attributes of the wrong type: no server path, no JS error text', async () => {
      const out = await importOf([...base({ default_branch: 5, description: ['x'], visibility_level: 'public' }),
        { name: 'uploads/0123456789abcdef0123456789abcdef', body: 'a file, not a folder' }, { name: 'avatar', body: 'a file' }], `shapes-${dialect}`);
      assert.equal(out.st.import_status, 'finished', out.st.import_error);
      const broken = await importOf([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree', body: 'a file' }], `no-tree-${dialect}`);
      assert.deepEqual([broken.st.import_status, broken.st.import_error], ['failed', 'Project tree file tree/project.json is missing']);
    });
  });
}
