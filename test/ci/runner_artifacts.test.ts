// Artifacts of jobs the runner ran: the archive, its metadata, junit and security reports and
// the trace as artifact rows and blobs; expire_in (own, instance default, never); `when`; the
// max_artifacts_size limit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import type { ArtifactsSpec } from '../../src/ci/config/types.js';
import { gunzipMembers } from '../../src/ci/artifacts/gzip.js';
import { readArchiveMetadata } from '../../src/ci/artifacts/metadata.js';
import { findCiJob } from '../../src/db/repos/ci_jobs.js';
import { artifactsOfJobs } from '../../src/domain/ci/artifacts.js';
import type { CiRunner } from '../../src/domain/ci/runner.js';
import { jobsOf, makePipeline, plannedJob, repoProject, testRunner, traceText, waitForJob, type RepoProject } from './runner_fixtures.js';

const DAY_MS = 86_400_000;

function artifacts(o: Partial<ArtifactsSpec> = {}): ArtifactsSpec {
  return { paths: [], exclude: [], name: null, expireIn: null, when: 'on_success', untracked: false, reports: {}, ...o };
}

async function bytes(s: Readable | null): Promise<Buffer> {
  assert.ok(s, 'the blob exists');
  const parts: Buffer[] = [];
  for await (const b of s) parts.push(b as Buffer);
  return Buffer.concat(parts);
}

const JUNIT = '<testsuites><testsuite name="s" tests="1"><testcase name="ok" classname="c"/></testsuite></testsuites>\n';

for (const dialect of DIALECTS) {
  describe(`CI runner artifacts (${dialect})`, () => {
    let t: TestApp;
    let rp: RepoProject;
    let runner: CiRunner;
    before(async () => {
      t = await buildTestApp(dialect);
      rp = await repoProject(t);
      runner = testRunner(t);
      runner.start();
    });
    after(async () => {
      await runner.stop();
      await t.close();
    });

    /** Runs one job to its end and returns it with its artifact rows by file type. */
    async function runOne(name: string, o: Parameters<typeof plannedJob>[1]) {
      const p = await makePipeline(t, rp, [plannedJob(name, o)]);
      const job = (await jobsOf(t, p.id))[name]!;
      const done = await waitForJob(t, job.id, ['success', 'failed', 'canceled']);
      const rows = (await artifactsOfJobs(t.c, [job.id])).get(job.id) ?? [];
      return { job: done, rows: Object.fromEntries(rows.map((r) => [r.file_type, r])), log: (await traceText(t, job.id)) ?? '' };
    }

    it('archive, metadata, junit, a security report and the trace: rows and blobs in the reference formats', async () => {
      const before = Date.now();
      const { job, rows, log } = await runOne('collect', {
        script: [
          'mkdir -p out/sub',
          'echo alpha > out/a.txt',
          'echo beta > out/sub/b.txt',
          'echo skip > out/skip.log',
          `printf '%s' '${JUNIT.trim()}' > junit.xml`,
          `echo '{"version":"15.0.0","vulnerabilities":[]}' > gl-sast-report.json`,
        ],
        artifacts: artifacts({ paths: ['out/'], exclude: ['out/*.log'], expireIn: '2 days', reports: { junit: ['junit.xml'], sast: ['gl-sast-report.json'] } }),
      });
      const afterMs = Date.now();
      assert.equal(job.status, 'success', log);
      assert.deepEqual(Object.keys(rows).sort(), ['archive', 'junit', 'metadata', 'sast', 'trace']);
      const shape = (r: (typeof rows)[string]) => [r!.file_format, r!.filename];
      assert.deepEqual(shape(rows.archive), ['zip', 'artifacts.zip']);
      assert.deepEqual(shape(rows.metadata), ['gzip', 'metadata.gz']);
      assert.deepEqual(shape(rows.junit), ['gzip', 'junit.xml.gz']);
      assert.deepEqual(shape(rows.sast), ['raw', 'gl-sast-report.json']);
      assert.deepEqual(shape(rows.trace), ['raw', 'job.log']);
      assert.equal(rows.archive!.blob_key, `ci/artifacts/${job.id}/artifacts.zip`);

      // expire_in: now + 2 days, on every artifact but the trace, and on the job.
      for (const type of ['archive', 'metadata', 'junit', 'sast']) {
        const at = Date.parse(rows[type]!.expire_at!);
        assert.ok(at >= before + 2 * DAY_MS && at <= afterMs + 2 * DAY_MS, `${type} expires in 2 days: ${rows[type]!.expire_at}`);
      }
      assert.equal(rows.trace!.expire_at, null);
      assert.equal(job.artifacts_expire_at, rows.archive!.expire_at);

      // The blobs: sizes match the rows, contents are what the job wrote.
      for (const r of Object.values(rows)) assert.equal(Number(r!.size), (await t.c.storage.stat(r!.blob_key))!.size);
      const zip = await bytes(await t.c.storage.get(rows.archive!.blob_key));
      assert.equal(zip.readUInt32LE(0), 0x04034b50, 'a zip file');
      assert.ok(zip.includes('out/a.txt') && zip.includes('out/sub/b.txt'));
      assert.ok(!zip.includes('out/skip.log'), 'exclude applies');
      const meta = readArchiveMetadata(await bytes(await t.c.storage.get(rows.metadata!.blob_key)));
      assert.deepEqual(meta.map((m) => m.path).sort(), ['out/', 'out/a.txt', 'out/sub/', 'out/sub/b.txt']);
      const junit = gunzipMembers(await bytes(await t.c.storage.get(rows.junit!.blob_key)));
      assert.equal(junit.length, 1);
      assert.equal(junit[0]!.data.toString('utf8'), JUNIT.trim());
      assert.match((await bytes(await t.c.storage.get(rows.sast!.blob_key))).toString(), /"vulnerabilities":\[\]/);
      assert.match(log, /Uploading artifacts as "archive" to coordinator\.\.\. 201 Created/);
      assert.match(log, /Uploading artifacts as "junit" to coordinator\.\.\. 201 Created/);
    });

    it('the archive is named by artifacts:name (variables expanded)', async () => {
      const { job, rows } = await runOne('named', { script: ['echo x > f.txt'], artifacts: artifacts({ paths: ['f.txt'], name: '$CI_JOB_NAME-files' }) });
      assert.equal(job.status, 'success');
      assert.equal(rows.archive!.filename, 'named-files.zip');
      assert.equal(rows.archive!.blob_key, `ci/artifacts/${job.id}/artifacts.zip`);
    });

    it('expire_in never keeps them (null); without expire_in the instance default applies', async () => {
      const never = await runOne('keep-forever', { script: ['echo x > f.txt'], artifacts: artifacts({ paths: ['f.txt'], expireIn: 'never' }) });
      assert.equal(never.job.status, 'success');
      assert.equal(never.rows.archive!.expire_at, null);
      assert.equal(never.job.artifacts_expire_at, null);

      const s = await t.request('PUT', '/api/v4/application/settings', { body: { default_artifacts_expire_in: '3 hours' } });
      assert.equal(s.status, 200, s.text);
      try {
        const before = Date.now();
        const dflt = await runOne('default-expiry', { script: ['echo x > f.txt'], artifacts: artifacts({ paths: ['f.txt'] }) });
        const at = Date.parse(dflt.rows.archive!.expire_at!);
        assert.ok(at >= before + 3 * 3600_000 && at <= Date.now() + 3 * 3600_000, dflt.rows.archive!.expire_at!);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { default_artifacts_expire_in: '30 days' } });
      }
    });

    it('artifacts:when decides by the outcome', async () => {
      const make = ['echo x > f.txt'];
      const onFailureOk = await runOne('onfail-ok', { script: make, artifacts: artifacts({ paths: ['f.txt'], when: 'on_failure' }) });
      assert.equal(onFailureOk.job.status, 'success');
      assert.deepEqual(Object.keys(onFailureOk.rows), ['trace']);
      assert.equal(onFailureOk.job.artifacts_expire_at, null);

      const onFailureBad = await runOne('onfail-bad', { script: [...make, 'exit 1'], artifacts: artifacts({ paths: ['f.txt'], when: 'on_failure' }) });
      assert.equal(onFailureBad.job.status, 'failed');
      assert.ok(onFailureBad.rows.archive);
      assert.match(onFailureBad.log, /Uploading artifacts for failed job/);

      const onSuccessBad = await runOne('onsuccess-bad', { script: [...make, 'exit 1'], artifacts: artifacts({ paths: ['f.txt'] }) });
      assert.equal(onSuccessBad.rows.archive, undefined);

      const always = await runOne('always-bad', { script: [...make, 'exit 1'], artifacts: artifacts({ paths: ['f.txt'], when: 'always' }) });
      assert.ok(always.rows.archive);
    });

    it('later jobs get the archives of earlier ones (stages, needs, dependencies): files, modes, symlinks', async () => {
      const p = await makePipeline(t, rp, [
        plannedJob('make', {
          stage: 'build', stageIdx: 1,
          script: ['mkdir -p dist/sub', 'echo built > dist/app.txt', 'echo deep > dist/sub/x.txt', 'printf "#!/bin/sh\\necho run\\n" > dist/run.sh', 'chmod 755 dist/run.sh', 'ln -s app.txt dist/link'],
          artifacts: artifacts({ paths: ['dist/'] }),
        }),
        plannedJob('use', { stage: 'test', stageIdx: 2, script: ['cat dist/app.txt dist/sub/x.txt', 'readlink dist/link', 'dist/run.sh'] }),
        plannedJob('none', { stage: 'test', stageIdx: 2, dependencies: [], script: ['test ! -e dist && echo no-dist'] }),
        plannedJob('needs-no-artifacts', { stage: 'test', stageIdx: 2, needs: [{ job: 'make', artifacts: false, optional: false }], script: ['test ! -e dist && echo no-dist'] }),
        plannedJob('needs-artifacts', { stage: 'test', stageIdx: 2, needs: [{ job: 'make', artifacts: true, optional: false }], script: ['cat dist/app.txt'] }),
      ]);
      const jobs = await jobsOf(t, p.id);
      const make = await waitForJob(t, jobs.make!.id, ['success', 'failed']);
      assert.equal(make.status, 'success', (await traceText(t, make.id)) ?? '');
      const results: Record<string, string> = {};
      for (const name of ['use', 'none', 'needs-no-artifacts', 'needs-artifacts']) {
        const j = await waitForJob(t, jobs[name]!.id, ['success', 'failed']);
        const log = (await traceText(t, j.id))!;
        assert.equal(j.status, 'success', `${name}: ${log}`);
        results[name] = log;
      }
      assert.match(results.use!, /Downloading artifacts for make/);
      assert.match(results.use!, /^built\ndeep$/m);
      assert.match(results.use!, /^app\.txt$/m, 'the symlink is a symlink');
      assert.match(results.use!, /^run$/m, 'the mode is kept (executable)');
      assert.match(results.none!, /^no-dist$/m);
      assert.ok(!results.none!.includes('Downloading artifacts'));
      assert.match(results['needs-no-artifacts']!, /^no-dist$/m);
      assert.match(results['needs-artifacts']!, /^built$/m);
    });

    it('no matching file: no archive, a warning in the trace, the job still succeeds', async () => {
      const { job, rows, log } = await runOne('nothing', { script: ['true'], artifacts: artifacts({ paths: ['missing/'] }) });
      assert.equal(job.status, 'success');
      assert.deepEqual(Object.keys(rows), ['trace']);
      assert.match(log, /missing\/: no matching files/);
    });

    it('an archive over max_artifacts_size is refused (413 in the trace) and the job fails', async () => {
      const s = await t.request('PUT', '/api/v4/application/settings', { body: { max_artifacts_size: 1 } });
      assert.equal(s.status, 200, s.text);
      try {
        const { job, rows, log } = await runOne('too-big', {
          script: ['head -c 2097152 /dev/urandom > big.bin', 'echo done'],
          artifacts: artifacts({ paths: ['big.bin'] }),
        });
        assert.equal(job.status, 'failed', log);
        assert.equal(job.failure_reason, 'script_failure');
        assert.equal(job.exit_code, 1);
        assert.deepEqual(Object.keys(rows), ['trace']);
        assert.match(log, /413 Request Entity Too Large/);
        assert.match(log, /ERROR: Job failed: exit code 1/);
        assert.equal((await findCiJob(t.c.db, job.id))!.artifacts_expire_at, null);

        // Under the limit, the same job succeeds.
        const small = await runOne('small-enough', { script: ['head -c 1000 /dev/urandom > big.bin'], artifacts: artifacts({ paths: ['big.bin'] }) });
        assert.equal(small.job.status, 'success');
        assert.ok(small.rows.archive);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { max_artifacts_size: 100 } });
      }
    });
  });
}
