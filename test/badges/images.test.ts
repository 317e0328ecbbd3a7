import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { DIALECTS, buildTestApp, type Res, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { branchTip, commitOn } from '../helpers/branches.js';
import { nowIso } from '../../src/shared/time.js';

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });

/** The badge as a user sees it: width, key and value texts, the value's colour. */
function readBadge(r: Res): { width: number; key: string; value: string; color: string } {
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['content-type'], 'image/svg+xml; charset=utf-8');
  assert.equal(r.headers['cache-control'], 'max-age=0, private, must-revalidate, no-store, no-cache');
  assert.equal(r.headers.pragma, 'no-cache');
  assert.equal(r.headers.expires, 'Fri, 01 Jan 1990 00:00:00 GMT');
  assert.equal(XMLValidator.validate(r.text), true);
  const svg = parser.parse(r.text).svg;
  assert.equal(svg.xmlns, 'http://www.w3.org/2000/svg');
  const paths = [].concat((svg.g.length ? svg.g[0] : svg.g).path);
  const texts = [].concat(svg.g[svg.g.length - 1].g.text).map((x: any) => String(typeof x === 'object' ? x['#text'] : x).trim());
  return { width: Number(svg.width), key: texts[0], value: texts[texts.length - 1], color: (paths[1] as any).fill };
}

const STATUSES: [string, string, string][] = [
  ['success', 'passed', '#4c1'],
  ['failed', 'failed', '#e05d44'],
  ['running', 'running', '#dfb317'],
  ['pending', 'pending', '#dfb317'],
  ['preparing', 'preparing', '#a7a7a7'],
  ['canceled', 'canceled', '#9f9f9f'],
  ['skipped', 'skipped', '#9f9f9f'],
  ['manual', 'manual', '#9f9f9f'],
  ['created', 'created', '#9f9f9f'],
];

for (const dialect of DIALECTS) {
  describe(`badge images (${dialect})`, () => {
    let t: TestApp;
    let p: any;
    let iid = 0;
    before(async () => {
      t = await buildTestApp(dialect);
      p = await makeProject(t, t.rootToken, { name: 'imgs', initialize_with_readme: true, visibility: 'public' });
    });
    after(async () => t.close());

    async function pipeline(status: string, ref: string, sha: string, coverage: string | null = null): Promise<number> {
      iid += 1;
      const now = nowIso();
      const row = await t.c.db
        .insertInto('ci_pipelines')
        .values({ project_id: p.id, iid, status, source: 'push', ref, sha, before_sha: '0'.repeat(40), created_at: now, updated_at: now, coverage, yaml_errors: null, user_id: null, started_at: null, finished_at: null, committed_at: null, duration: null, queued_duration: null, parent_pipeline_id: null, parent_job_id: null, commit_message: null, commit_author_name: null, commit_author_email: null, commit_created_at: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }
    const img = (path: string, token: string | null = null) => t.request('GET', path, { token });

    it('pipeline.svg shows the status of the newest pipeline at the ref, with the reference colours', async () => {
      const none = readBadge(await img(`/${p.path_with_namespace}/badges/main/pipeline.svg`));
      assert.deepEqual(none, { width: 116, key: 'pipeline', value: 'unknown', color: '#9f9f9f' });
      const sha = (await branchTip(t, p.id, 'main'))!;
      for (const [status, text, color] of STATUSES) {
        await pipeline(status, 'main', sha);
        const b = readBadge(await img(`/${p.path_with_namespace}/badges/main/pipeline.svg`));
        assert.deepEqual(b, { width: 116, key: 'pipeline', value: text, color }, status);
      }
      // A pipeline of an older commit does not count once the branch moved on.
      await commitOn(t, p.id, 'main', { 'x.txt': 'x' });
      assert.equal(readBadge(await img(`/${p.path_with_namespace}/badges/main/pipeline.svg`)).value, 'unknown');
    });

    it('options: key_text, key_width, style=flat-square, ignore_skipped; refs with slashes', async () => {
      const sha = await commitOn(t, p.id, 'feature/x', { 'f.txt': 'f' }, 'feature', 'main');
      await pipeline('failed', 'feature/x', sha);
      await pipeline('skipped', 'feature/x', sha);
      const url = `/${p.path_with_namespace}/badges/feature/x/pipeline.svg`;
      assert.equal(readBadge(await img(url)).value, 'skipped');
      assert.equal(readBadge(await img(`${url}?ignore_skipped=true`)).value, 'failed');
      const custom = readBadge(await img(`${url}?key_text=${encodeURIComponent('build <x>')}&key_width=90`));
      assert.deepEqual(custom, { width: 144, key: 'build <x>', value: 'skipped', color: '#9f9f9f' });
      assert.match((await img(`${url}?key_text=a%26b`)).text, />a&amp;b</);
      // Out of range or too long: the defaults.
      assert.equal(readBadge(await img(`${url}?key_width=9999&key_text=${'k'.repeat(65)}`)).width, 116);
      assert.equal(readBadge(await img(`${url}?key_width=abc`)).width, 116);
      const square = await img(`${url}?style=flat-square`);
      assert.match(square.text, /shape-rendering="crispEdges"/);
      assert.doesNotMatch(square.text, /linearGradient/);
      assert.deepEqual(readBadge(square), { width: 116, key: 'pipeline', value: 'skipped', color: '#9f9f9f' });
    });

    it('coverage.svg: the newest successful pipeline, or one job of it; colours by threshold', async () => {
      const url = (ref: string, q = '') => `/${p.path_with_namespace}/badges/${ref}/coverage.svg${q}`;
      assert.deepEqual(readBadge(await img(url('cov'))), { width: 120, key: 'coverage', value: 'unknown', color: '#9f9f9f' });
      const cases: [string, string, string][] = [
        ['98.5', '98.50%', '#4c1'],
        ['95', '95.00%', '#4c1'],
        ['92.345', '92.35%', '#a3c51c'],
        ['80', '80.00%', '#dfb317'],
        ['12.3', '12.30%', '#e05d44'],
      ];
      for (const [coverage, text, color] of cases) {
        await pipeline('success', 'cov', 'a'.repeat(40), coverage);
        assert.deepEqual(readBadge(await img(url('cov'))), { width: 116, key: 'coverage', value: text, color }, coverage);
      }
      // A failed pipeline after it does not change the badge.
      await pipeline('failed', 'cov', 'b'.repeat(40), '1');
      assert.equal(readBadge(await img(url('cov'))).value, '12.30%');
      const pid = await pipeline('success', 'cov', 'c'.repeat(40), '50');
      const now = nowIso();
      await t.c.db
        .insertInto('ci_jobs')
        .values({ project_id: p.id, pipeline_id: pid, type: 'build', name: 'unit', stage: 'test', stage_idx: 0, status: 'success', ref: 'cov', when: 'on_success', coverage: 91.5, created_at: now, updated_at: now, options: '{}', failure_reason: null, queued_at: null, started_at: null, finished_at: null, scheduled_at: null, duration: null, queued_duration: null, artifacts_expire_at: null, user_id: null, runner_id: null, exit_code: null, token_digest: null, erased_at: null, erased_by_id: null, downstream_pipeline_id: null })
        .execute();
      assert.equal(readBadge(await img(url('cov', '?job=unit'))).value, '91.50%');
      assert.equal(readBadge(await img(url('cov', '?job=nope'))).value, 'unknown');
      assert.equal(readBadge(await img(url('cov', '?key_text=Tests&key_width=40'))).key, 'Tests');
    });

    it('answers only where the project (and its jobs) may be read: else 404', async () => {
      const priv = await makeProject(t, t.rootToken, { name: 'secret', initialize_with_readme: true });
      const url = `/${priv.path_with_namespace}/badges/main/pipeline.svg`;
      assert.equal((await img(url)).status, 404);
      const stranger = await t.createUser();
      assert.equal((await img(url, stranger.token)).status, 404);
      assert.equal((await img(url, t.rootToken)).status, 200);
      const noJobs = await makeProject(t, t.rootToken, { name: 'nojobs', visibility: 'public', public_jobs: false });
      assert.equal((await img(`/${noJobs.path_with_namespace}/badges/main/coverage.svg`)).status, 404);
      assert.equal((await img(`/nobody/nothing/badges/main/pipeline.svg`)).status, 404);
      assert.equal((await img(`/${p.path_with_namespace}/badges/main/pipeline.png`)).status, 404);
    });
  });
}
