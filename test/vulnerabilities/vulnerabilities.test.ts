// A real pipeline on the default branch whose job writes a SAST report: its findings are stored
// (in the background), listed, made into vulnerabilities through the API, and moved through states.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember } from '../helpers/projects.js';
import { createPipelineOk, makeCiProject, putFiles } from '../helpers/ci.js';
import { testQueue, waitFor } from '../helpers/queue.js';
import { testRunner, waitForPipeline } from '../ci/runner_fixtures.js';
import { INGEST_SECURITY_REPORTS_JOB } from '../../src/domain/vulnerabilities/findings.js';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import type { CiRunner } from '../../src/domain/ci/runner.js';

type U = { id: number; username: string; token: string };

const CI = `sast:
  script:
    - cp fixtures/sast.json gl-sast-report.json
  artifacts:
    reports:
      sast: gl-sast-report.json
`;

const finding = (message: string, severity: string, confidence: string, rule: string, file: string, line: number) => ({
  id: rule,
  category: 'sast',
  message,
  description: `${message} found`,
  cve: `semgrep_id:${rule}`,
  severity,
  confidence,
  scanner: { id: 'semgrep', name: 'Semgrep' },
  identifiers: [
    { type: 'semgrep_id', name: rule, value: rule },
    { type: 'cwe', name: 'CWE-79', value: '79', url: 'https://cwe.mitre.org/data/definitions/79.html' },
  ],
  location: { file, start_line: line, end_line: line + 2 },
  links: [{ url: 'https://example.com/rule' }],
});

const report = (vulnerabilities: unknown[]) =>
  JSON.stringify({
    version: '15.0.4',
    scan: { scanner: { id: 'semgrep', name: 'Semgrep', vendor: { name: 'Anvil' }, version: '1' }, type: 'sast', status: 'success', start_time: '2026-01-01T00:00:00', end_time: '2026-01-01T00:01:00' },
    vulnerabilities,
  });

const XSS = finding('Cross-site scripting', 'High', 'Medium', 'xss', 'app/show.js', 10);
const SQLI = finding('SQL injection', 'Critical', 'High', 'sqli', 'app/db.js', 3);
const WEAK = finding('Weak hash', 'Low', 'Low', 'md5', 'lib/hash.js', 7);

const VULNERABILITY_KEYS = [
  'author_id', 'confidence', 'created_at', 'description', 'dismissed_at', 'dismissed_by_id', 'due_date', 'finding', 'id', 'last_edited_at',
  'last_edited_by_id', 'project', 'project_default_branch', 'report_type', 'resolved_at', 'resolved_by_id', 'resolved_on_default_branch',
  'severity', 'start_date', 'state', 'title', 'updated_at', 'updated_by_id',
];
const FINDING_KEYS = [
  'confidence', 'created_at', 'id', 'location_fingerprint', 'metadata_version', 'name', 'primary_identifier_id', 'project_fingerprint',
  'project_id', 'raw_metadata', 'report_type', 'scanner_id', 'severity', 'updated_at', 'uuid', 'vulnerability_id',
];
const LISTED_FINDING_KEYS = [
  'assets', 'blob_path', 'confidence', 'create_jira_issue_url', 'create_vulnerability_feedback_dismissal_path', 'create_vulnerability_feedback_issue_path',
  'create_vulnerability_feedback_merge_request_path', 'description', 'details', 'dismissal_feedback', 'evidence', 'evidence_source', 'id', 'identifiers',
  'issue_feedback', 'links', 'location', 'merge_request_feedback', 'name', 'project', 'project_fingerprint', 'remediations', 'report_type', 'request',
  'response', 'scan', 'scanner', 'severity', 'solution', 'state', 'supporting_messages', 'uuid',
];

for (const dialect of DIALECTS) {
  describe(`vulnerabilities (${dialect})`, () => {
    let t: TestApp;
    let runner: CiRunner;
    let owner: U;
    let dev: U;
    let reporter: U;
    let stranger: U;
    let p: any;
    let firstPipeline: any;

    /** Runs a pipeline on a ref to its end, then the queued report ingestion. */
    async function runPipeline(ref = 'main'): Promise<any> {
      const pl = await createPipelineOk(t, p.id, ref, { token: owner.token });
      const done = await waitForPipeline(t, pl.id);
      assert.equal(done.status, 'success');
      const queue = testQueue(t.c.db);
      registerBackgroundJobs({ ...t.c, queue }, [INGEST_SECURITY_REPORTS_JOB]);
      queue.start();
      try {
        await waitFor('report ingestion', async () => {
          const left = await t.c.db.selectFrom('background_jobs').select('id').where('kind', '=', INGEST_SECURITY_REPORTS_JOB).where('state', 'in', ['queued', 'running']).execute();
          return left.length === 0;
        }, 30_000);
      } finally {
        await queue.stop();
      }
      return pl;
    }

    const findings = (q = '', token = dev.token) => t.request('GET', `/api/v4/projects/${p.id}/vulnerability_findings${q}`, { token });

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      dev = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
      const cp = await makeCiProject(t, { '.service-ci.yml': CI, 'fixtures/sast.json': report([XSS, SQLI, WEAK]) }, { token: owner.token });
      p = cp.project;
      await addMember(t, 'Project', p.id, dev.id, 30);
      await addMember(t, 'Project', p.id, reporter.id, 20);
      runner = testRunner(t);
      runner.start();
      firstPipeline = await runPipeline();
    });
    after(async () => {
      await runner.stop();
      await t.close();
    });

    it('the SAST report of the default branch pipeline becomes findings', async () => {
      const r = await findings();
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['x-total'], '3');
      assert.equal(r.headers['x-per-page'], '20');
      assert.deepEqual(r.body.map((f: any) => [f.name, f.severity, f.confidence]), [
        ['SQL injection', 'critical', 'high'],
        ['Cross-site scripting', 'high', 'medium'],
        ['Weak hash', 'low', 'low'],
      ]);
      const xss = r.body[1];
      assert.deepEqual(keysOf(xss), LISTED_FINDING_KEYS);
      assert.equal(typeof xss.id, 'number');
      assert.equal(xss.report_type, 'sast');
      assert.equal(xss.state, 'detected');
      assert.deepEqual(xss.scanner, { external_id: 'semgrep', name: 'Semgrep', vendor: null });
      assert.deepEqual(xss.identifiers[0], { external_type: 'semgrep_id', external_id: 'xss', name: 'xss', url: null });
      assert.deepEqual(xss.location, { file: 'app/show.js', start_line: 10, end_line: 12 });
      assert.deepEqual(xss.links, [{ url: 'https://example.com/rule' }]);
      assert.equal(xss.description, 'Cross-site scripting found');
      assert.deepEqual(xss.project, { id: p.id, name: p.name, full_path: `/${p.path_with_namespace}`, full_name: p.name_with_namespace });
      assert.equal(xss.blob_path, `/${p.path_with_namespace}/-/blob/${firstPipeline.sha}/app/show.js#L10-12`);
      assert.deepEqual(xss.scan, { type: 'sast', status: 'success', start_time: '2026-01-01T00:00:00', end_time: '2026-01-01T00:01:00' });
      assert.match(xss.uuid, /^[0-9a-f-]{36}$/);

      assert.deepEqual((await findings('?severity=high,critical')).body.map((f: any) => f.name), ['SQL injection', 'Cross-site scripting']);
      assert.deepEqual((await findings('?confidence[]=low')).body.map((f: any) => f.name), ['Weak hash']);
      assert.equal((await findings('?report_type=dast')).body.length, 0);
      assert.equal((await findings(`?pipeline_id=${firstPipeline.id}`)).body.length, 3);
      assert.equal((await findings('?pipeline_id=999999')).body.length, 0);
      assert.equal((await findings('?per_page=1&page=2')).body[0].name, 'Cross-site scripting');
      const bad = await findings('?severity=severe');
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { error: 'severity does not have a valid value' });
      assert.equal((await findings('', reporter.token)).status, 403);
      assert.equal((await findings('', stranger.token)).status, 404);
      assert.equal((await findings('', null as any)).status, 401);
    });

    it('POST /projects/:id/vulnerabilities makes a vulnerability of a finding; errors as the spec says', async () => {
      const xss = (await findings('?severity=high')).body[0];
      const r = await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities?finding_id=${xss.id}`, { token: dev.token });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(keysOf(r.body), VULNERABILITY_KEYS);
      assert.deepEqual(keysOf(r.body.finding), FINDING_KEYS);
      assert.equal(r.body.author_id, dev.id);
      assert.equal(r.body.title, 'Cross-site scripting');
      assert.equal(r.body.severity, 'high');
      assert.equal(r.body.confidence, 'medium');
      assert.equal(r.body.report_type, 'sast');
      assert.equal(r.body.state, 'detected');
      assert.equal(r.body.resolved_on_default_branch, false);
      assert.equal(r.body.project_default_branch, 'main');
      assert.deepEqual(r.body.project, {
        id: p.id, name: p.name, name_with_namespace: p.name_with_namespace, path: p.path, path_with_namespace: p.path_with_namespace,
        description: p.description, created_at: p.created_at,
      });
      assert.equal(r.body.finding.id, xss.id);
      assert.equal(r.body.finding.vulnerability_id, r.body.id);
      assert.equal(r.body.finding.uuid, xss.uuid);
      assert.equal(r.body.finding.metadata_version, '15.0.4');
      assert.equal(JSON.parse(r.body.finding.raw_metadata).message, 'Cross-site scripting');
      for (const k of ['dismissed_at', 'dismissed_by_id', 'resolved_at', 'resolved_by_id', 'due_date', 'start_date', 'last_edited_at']) assert.equal(r.body[k], null, k);

      const again = await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities`, { token: dev.token, body: { finding_id: xss.id } });
      assert.equal(again.status, 400);
      assert.deepEqual(again.body, { message: { base: ['finding is not found or is already attached to a vulnerability'] } });
      const unknown = await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities`, { token: dev.token, body: { finding_id: 999999 } });
      assert.deepEqual(unknown.body, { message: { base: ['finding is not found or is already attached to a vulnerability'] } });
      const missing = await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities`, { token: dev.token, body: {} });
      assert.deepEqual(missing.body, { message: '400 (Bad request) "finding_id" not given' });
      const sqli = (await findings('?severity=critical')).body[0];
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities`, { token: reporter.token, body: { finding_id: sqli.id } })).status, 403);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities`, { token: stranger.token, body: { finding_id: sqli.id } })).status, 404);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities`, { token: null, body: { finding_id: sqli.id } })).status, 401);

      // The listed finding now carries the vulnerability's state.
      assert.equal((await findings('?severity=high')).body[0].state, 'detected');
      const list = await t.request('GET', `/api/v4/projects/${p.id}/vulnerabilities`, { token: dev.token });
      assert.equal(list.status, 200);
      assert.equal(list.headers['x-per-page'], '20');
      assert.deepEqual(list.body.map((v: any) => v.id), [r.body.id]);
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/vulnerabilities`, { token: reporter.token })).status, 403);
      assert.equal((await t.request('GET', `/api/v4/projects/${p.id}/vulnerabilities`, { token: stranger.token })).status, 404);
    });

    it('GET /vulnerabilities/:id; confirm, resolve, dismiss, revert with their stamps; 304 when already there', async () => {
      const weak = (await findings('?severity=low')).body[0];
      const created = await t.request('POST', `/api/v4/projects/${p.id}/vulnerabilities`, { token: owner.token, body: { finding_id: weak.id } });
      const id = created.body.id;
      const got = await t.request('GET', `/api/v4/vulnerabilities/${id}`, { token: dev.token });
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, created.body);

      const act = (action: string, token = dev.token) => t.request('POST', `/api/v4/vulnerabilities/${id}/${action}`, { token });
      const confirmed = await act('confirm');
      assert.equal(confirmed.status, 201, confirmed.text);
      assert.equal(confirmed.body.state, 'confirmed');
      assert.equal((await act('confirm')).status, 304);
      const resolved = await act('resolve');
      assert.equal(resolved.body.state, 'resolved');
      assert.equal(resolved.body.resolved_by_id, dev.id);
      assert.ok(resolved.body.resolved_at);
      const dismissed = await act('dismiss');
      assert.equal(dismissed.body.state, 'dismissed');
      assert.equal(dismissed.body.dismissed_by_id, dev.id);
      assert.ok(dismissed.body.dismissed_at);
      // A dismissed finding is hidden by the default scope and shown by scope=all.
      assert.equal((await findings('?severity=low')).body.length, 0);
      const all = await findings('?severity=low&scope=all');
      assert.equal(all.body[0].state, 'dismissed');
      const reverted = await act('revert');
      assert.equal(reverted.body.state, 'detected');
      for (const k of ['dismissed_at', 'dismissed_by_id', 'resolved_at', 'resolved_by_id']) assert.equal(reverted.body[k], null, k);
      assert.equal((await act('revert')).status, 304);

      assert.equal((await act('confirm', reporter.token)).status, 403);
      assert.equal((await act('confirm', stranger.token)).status, 404);
      assert.equal((await t.request('GET', `/api/v4/vulnerabilities/${id}`, { token: reporter.token })).status, 403);
      const none = await t.request('GET', '/api/v4/vulnerabilities/999999', { token: dev.token });
      assert.equal(none.status, 404);
      assert.deepEqual(none.body, { message: '404 Not found' });
    });

    it('a newer default-branch pipeline updates the findings; another branch does not', async () => {
      const sqliChanged = { ...SQLI, severity: 'Medium' };
      const NEW = finding('Path traversal', 'High', 'High', 'path', 'app/files.js', 20);
      await putFiles(t, p.id, { 'fixtures/sast.json': report([sqliChanged, NEW]) }, { branch: 'feature', startBranch: 'main', token: owner.token });
      await runPipeline('feature');
      assert.equal((await findings()).body.length, 3, 'a feature branch pipeline is not ingested');

      await putFiles(t, p.id, { 'fixtures/sast.json': report([sqliChanged, NEW]) }, { token: owner.token });
      const second = await runPipeline('main');
      const r = await findings();
      assert.deepEqual(r.body.map((f: any) => [f.name, f.severity]), [['Path traversal', 'high'], ['SQL injection', 'medium']]);
      const sqli = r.body.find((f: any) => f.name === 'SQL injection');
      assert.equal(r.body[0].blob_path, `/${p.path_with_namespace}/-/blob/${second.sha}/app/files.js#L20-22`);
      // Same uuid: the stored finding is updated, not duplicated.
      const stored = await t.c.db.selectFrom('vulnerability_findings').selectAll().where('project_id', '=', p.id).execute();
      assert.equal(stored.length, 4);
      assert.equal(stored.find((s) => s.id === sqli.id)!.severity, 'medium');
      // The vulnerability of the cross-site scripting finding is no longer reported: resolved on the default branch.
      const vulns = (await t.request('GET', `/api/v4/projects/${p.id}/vulnerabilities`, { token: dev.token })).body;
      const xss = vulns.find((v: any) => v.title === 'Cross-site scripting');
      assert.equal(xss.resolved_on_default_branch, true);
      assert.equal(xss.state, 'detected');
      // An older pipeline's ingestion does not win over the newer one.
      const { ingestPipeline } = await import('../../src/domain/vulnerabilities/findings.js');
      assert.equal(await ingestPipeline(t.c, firstPipeline.id), false);
    });

    it('a removed project takes its findings, scanners, identifiers and vulnerabilities with it', async () => {
      await t.c.db.deleteFrom('projects').where('id', '=', p.id).execute();
      for (const table of ['vulnerabilities', 'vulnerability_findings', 'vulnerability_scanners', 'vulnerability_identifiers', 'vulnerability_ingestions'] as const) {
        assert.equal((await t.c.db.selectFrom(table).select('project_id').where('project_id', '=', p.id).execute()).length, 0, table);
      }
    });
  });
}
