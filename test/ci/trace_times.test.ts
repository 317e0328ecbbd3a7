// Times in job logs, on each dialect: a job run by the built-in runner with FF_TIMESTAMPS "true"
// has the reference runner's time header on every line of its raw trace (the log API shows it
// as stored; the coverage regex reads the lines without it); a job without the flag keeps its
// trace free of them; a trace an external runner PATCHes in the reference's format comes back
// byte for byte; GET …/trace_times (an Anvil extension) says when each piece of a log was stored,
// with the log API's access rules. The web log's parser (and the coverage reader) are checked
// directly too: headers become times and are not shown, continued pieces join their line, and a
// log without headers takes each line's time from the piece holding its first byte.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, keysOf } from '../helpers/build.js';
import { buildGitTestApp, type GitTestApp } from '../helpers/git.js';
import { TestRunnerClient } from '../helpers/runner_client.js';
import { jobsOf, makePipeline, plannedJob, repoProject, testRunner, waitForPipeline, type RepoProject } from './runner_fixtures.js';
import type { CiRunner } from '../../src/domain/ci/runner.js';
import { AnsiLog, logHtml } from '../../src/web/views/ansi.js';
import { stampHeader } from '../../src/shared/trace_timestamps.js';
import { extractCoverage } from '../../src/ci/reports/coverage.js';

const REG_TOKEN = 'instance-registration-token-trace';
const HEADER = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z [0-9a-f]{2}[EO][ +]/;

describe('job log times (pure)', () => {
  it('the web log parser: headers become times, are not shown, continued pieces join their line', () => {
    const t1 = '2026-03-04T05:06:07.123456Z';
    const t2 = '2026-03-04T05:06:09.500000Z';
    const text =
      `${t1} 00O Running with the runner\n` +
      `${t1} 01O \x1b[0Ksection_start:1772600767:build[collapsed=false]\r\x1b[0KBuilding\n` +
      `${t2} 01O progress 10%\r\n` +
      `${t2} 01O+progress 100%\n` +
      `${t2} 01O \x1b[0Ksection_end:1772600769:build\r\x1b[0K\n` +
      `${t2} 01E done <ok>`;
    const out = logHtml(text, true);
    assert.ok(!/\d{6}Z|01O|00O/.test(out), out);
    assert.match(out, /^<span class="log-line" id="L1"><a class="ln" href="#L1" tabindex="-1">1<\/a><time datetime="2026-03-04T05:06:07.123Z">05:06:07<\/time>Running with the runner\n<\/span>/);
    // the progress pieces are one line (its last state), timed by its first piece
    assert.ok(out.includes('<time datetime="2026-03-04T05:06:09.500Z">05:06:09</time>progress 100%\n'), out);
    assert.ok(!out.includes('progress 10%'));
    assert.match(out, /<details class="log-section" data-section="build" data-started="1772600767" open><summary><span class="section-header">Building<\/span> <span class="section-duration">00:02<\/span>/);
    assert.ok(out.endsWith('<time datetime="2026-03-04T05:06:09.500Z">05:06:09</time>done &lt;ok&gt;\n</span>'), out.slice(-200));
    // fed in pieces, the same events as in one go
    const once = new AnsiLog();
    const whole = [...once.push(text), ...once.finish()];
    const pieces = new AnsiLog();
    const got = [];
    for (let i = 0; i < text.length; i += 5) got.push(...pieces.push(text.slice(i, i + 5)));
    got.push(...pieces.finish());
    assert.deepEqual(got, whole);
    // the coverage regex reads each line without its header, as the reference does
    assert.equal(extractCoverage(`${t1} 01O Coverage: 12%\n${t2} 01E+ and more\n${t2} 00O Job succeeded\n`, '^Coverage: (\\d+)%'), 12);
    // a log whose first line has no header is shown as it is, header-like text and all
    const plain = `plain\n${stampHeader(Date.UTC(2026, 0, 1), 1)}looks timed\n`;
    assert.ok(logHtml(plain, true).includes('2026-01-01T00:00:00.000000Z 01O looks timed'));
  });

  it('without headers, a line takes the time its first byte was stored (offsets in UTF-8 bytes)', () => {
    // "é" is two bytes: the second line starts at byte 6, the third at byte 12
    const text = 'héllo\nworld\nthird\nfourth\n';
    const times = [
      { offset: 0, created_at: '2026-03-04T05:06:07.000Z' },
      { offset: 9, created_at: '2026-03-04T05:06:08.000Z' },
      { offset: 12, created_at: '2026-03-04T05:06:09.000Z' },
    ];
    const out = logHtml(text, true, times);
    const shown = [...out.matchAll(/<time datetime="([^"]+)">[^<]*<\/time>([^\n]*)\n/g)].map((m) => `${m[1].slice(17, 19)} ${m[2]}`);
    assert.deepEqual(shown, ['07 héllo', '07 world', '09 third', '09 fourth']);
    // times given later (a live log) apply to the lines that follow
    const live = new AnsiLog();
    live.addTimes(times.slice(0, 1));
    const first = live.push('héllo\nwor');
    live.addTimes(times.slice(1));
    const rest = [...live.push('ld\nthird\n'), ...live.finish()];
    assert.deepEqual([...first, ...rest].map((e) => (e.kind === 'line' ? e.time : null)), ['2026-03-04T05:06:07.000Z', '2026-03-04T05:06:07.000Z', '2026-03-04T05:06:09.000Z']);
    // no times at all: the markup is as before
    assert.equal(logHtml('a\n', true), '<span class="log-line" id="L1"><a class="ln" href="#L1" tabindex="-1">1</a>a\n</span>');
  });
});

for (const dialect of DIALECTS) {
  describe(`job log times (${dialect})`, () => {
    let t: GitTestApp;
    let rp: RepoProject;
    let runner: CiRunner;
    before(async () => {
      t = await buildGitTestApp(dialect, { ANVIL_RUNNER_REGISTRATION_TOKEN: REG_TOKEN });
      rp = await repoProject(t);
      runner = testRunner(t);
      runner.start();
    });
    after(async () => {
      await runner?.stop();
      await t?.close();
    });

    const trace = async (jobId: number) => {
      const r = await fetch(`${t.url}/api/v4/projects/${rp.project.id}/jobs/${jobId}/trace`, { headers: { 'private-token': t.rootToken } });
      return { status: r.status, bytes: Buffer.from(await r.arrayBuffer()) };
    };
    const times = (jobId: number, query = '', token?: string | null) => t.get(`/api/v4/projects/${rp.project.id}/jobs/${jobId}/trace_times${query}`, token);

    it('the built-in runner with FF_TIMESTAMPS "true": a time header on every line; coverage read without them', async () => {
      const pl = await makePipeline(t, rp, [
        plannedJob('stamped', {
          variables: { FF_TIMESTAMPS: 'true' },
          coverage: '^Coverage: (\\d+)%',
          script: ['echo "first line"', 'printf "no newline yet"; sleep 0.3; printf " then more\\n"', 'echo "Coverage: 42%"'],
        }),
        plannedJob('plain', { script: ['echo "first line"'] }),
      ]);
      await waitForPipeline(t, pl.id);
      const jobs = await jobsOf(t, pl.id);
      const stamped = await trace(jobs.stamped!.id);
      assert.equal(stamped.status, 200);
      const lines = stamped.bytes.toString('utf8').split('\n');
      assert.equal(lines.pop(), '', 'the trace ends with a newline');
      for (const line of lines) assert.match(line, HEADER, `every line is timed: ${JSON.stringify(line)}`);
      // the runner's own lines are stream 00, the job's output stream 01; a line written in two
      // writes has one header
      assert.match(lines[0]!, /^\S+ 00O Running with /);
      assert.ok(lines.some((l) => / 01O first line$/.test(l)));
      assert.ok(lines.some((l) => / 01O no newline yet then more$/.test(l)), lines.join('\n'));
      const first = Date.parse(lines[0]!.slice(0, 23) + 'Z');
      const last = Date.parse(lines[lines.length - 1]!.slice(0, 23) + 'Z');
      assert.ok(first <= last && Date.now() - first < 120_000, 'the headers are the times the lines were written');
      const job = (await t.get(`/api/v4/projects/${rp.project.id}/jobs/${jobs.stamped!.id}`)).body;
      assert.equal(job.status, 'success');
      assert.equal(job.coverage, 42);

      // without the flag: no header anywhere
      const plain = (await trace(jobs.plain!.id)).bytes.toString('utf8');
      assert.match(plain, /^Running with /);
      assert.ok(!plain.split('\n').some((l) => HEADER.test(l)));
      assert.ok(plain.includes('\nfirst line\n'));

      // when the pieces were stored: from byte 0, in order, each piece's start inside the trace
      const r = await times(jobs.plain!.id);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.ok(r.body.length >= 1);
      assert.deepEqual(keysOf(r.body[0]), ['created_at', 'offset']);
      assert.equal(r.body[0].offset, 0);
      const size = Buffer.byteLength(plain);
      r.body.forEach((p: any, i: number) => {
        assert.match(p.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(p.offset < size);
        if (i > 0) assert.ok(p.offset > r.body[i - 1].offset && p.created_at >= r.body[i - 1].created_at);
      });
      const later = await times(jobs.plain!.id, `?from=${r.body[r.body.length - 1].offset + 1}`);
      assert.deepEqual(later.body, []);
    });

    it('a trace PATCHed by an external runner in the reference format reads back byte for byte, timed per piece', async () => {
      const ext = new TestRunnerClient(t.url);
      assert.equal((await ext.register(REG_TOKEN, { tags: ['ext'], runUntagged: false })).status, 201);
      const pl = await makePipeline(t, rp, [plannedJob('external', { tags: ['ext'], coverage: '^Coverage: (\\d+)%' })], { userId: 1 });
      const payload = await ext.nextJob();
      assert.equal(payload.id, (await jobsOf(t, pl.id)).external!.id);
      const log = Buffer.from(
        '2026-03-04T05:06:07.123456Z 00O Running with gitlab-runner 17.5.0\n' +
          '2026-03-04T05:06:07.200000Z 01O $ echo hi\n' +
          '2026-03-04T05:06:08.000001Z 01O Downloading 10%\r\n' +
          '2026-03-04T05:06:09.000001Z 01O+Downloading 100%\r\n' +
          '2026-03-04T05:06:09.500000Z 01E Coverage: 77% — done\n' +
          '2026-03-04T05:06:10.000000Z 00O Job succeeded\n',
      );
      const cut = log.indexOf('2026-03-04T05:06:08');
      assert.equal((await ext.patchTrace(payload.id, payload.token, log.subarray(0, cut), 0)).status, 202);
      assert.equal((await ext.patchTrace(payload.id, payload.token, log.subarray(cut), cut)).status, 202);
      // while it runs, and once it ended (the pieces folded into the trace blob), the same bytes
      assert.ok((await trace(payload.id)).bytes.equals(log));
      assert.equal((await ext.updateJob(payload.id, payload.token, { state: 'success', bytesize: log.length })).status, 200);
      assert.ok((await trace(payload.id)).bytes.equals(log));
      const r = await times(payload.id);
      assert.deepEqual(r.body.map((p: any) => p.offset), [0, cut]);
      const job = (await t.get(`/api/v4/projects/${rp.project.id}/jobs/${payload.id}`)).body;
      assert.equal(job.coverage, 77);
      assert.equal((await ext.unregister()).status, 204);
    });

    it('trace_times: the log API rules (404 for an unknown job or a project the visitor cannot see) and bad input (400)', async () => {
      const pl = await makePipeline(t, rp, [plannedJob('quiet', { script: ['echo quiet'] })]);
      await waitForPipeline(t, pl.id);
      const jobId = (await jobsOf(t, pl.id)).quiet!.id;
      assert.equal((await times(jobId)).status, 200);
      const unknown = await times(999_999);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, (await t.get(`/api/v4/projects/${rp.project.id}/jobs/999999/trace`)).body, 'as the log answers');
      // no token: 401, as the log answers; the project is private: a stranger does not see it
      assert.equal((await times(jobId, '', null)).status, 401);
      const stranger = await t.createUser();
      assert.equal((await times(jobId, '', stranger.token)).status, 404);
      assert.equal((await t.get(`/api/v4/projects/${rp.project.id}/jobs/${jobId}/trace_times?from=-1`)).status, 400);
      assert.equal((await t.get(`/api/v4/projects/${rp.project.id}/jobs/${jobId}/trace_times?from=x`)).status, 400);
      // an erased log forgets its times
      assert.equal((await t.request('POST', `/api/v4/projects/${rp.project.id}/jobs/${jobId}/erase`)).status, 201);
      assert.deepEqual((await times(jobId)).body, []);
    });
  });
}
