// python-gitlab and @gitbeaker/rest, unchanged, drive badges (project and group) and, where the
// client has them (gitbeaker), project vulnerabilities.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { freePort } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';
import { ingestFindings } from '../../src/db/repos/vulnerabilities.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

/** What either client saw of the badges it made. */
function checkBadges(seen: any): void {
  assert.equal(seen.group_badge_kind, 'group');
  assert.deepEqual(seen.project_badge, {
    kind: 'project',
    name: 'renamed',
    rendered_link_url: `https://p.example/${seen.project_id}`,
    rendered_image_url: 'https://p.example/main.svg',
  });
  assert.deepEqual(seen.rendered, {
    link_url: 'https://r.example/%{project_path}',
    image_url: 'https://r.example/i.svg',
    rendered_link_url: `https://r.example/${seen.project_path}`,
    rendered_image_url: 'https://r.example/i.svg',
  });
  assert.deepEqual(seen.listed, [['group badge', 'group'], ['renamed', 'project']]);
  assert.deepEqual(seen.group_listed, ['group badge']);
  assert.deepEqual(seen.after_delete, ['group badge']);
}

for (const dialect of DIALECTS) {
  describe(`real clients: badges and vulnerabilities (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let vulnProject: any;
    let findingId: number;
    before(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await buildTestApp(dialect, { ANVIL_EXTERNAL_URL: url });
      await t.app.listen({ port, host: '127.0.0.1' });
      // A stored finding (the pipeline-to-finding path has its own test): what a scanner reported on main.
      vulnProject = await makeProject(t, t.rootToken, { name: 'scanned', initialize_with_readme: true });
      await ingestFindings(t.c.db, vulnProject.id, 1, [{
        uuid: '5b6b1b8e-0000-5000-8000-000000000001', report_type: 'sast', name: 'Hardcoded password', severity: 'critical', confidence: 'high',
        scanner: { external_id: 'semgrep', name: 'Semgrep', vendor: null },
        identifiers: [{ fingerprint: 'f'.repeat(40), external_type: 'cwe', external_id: '798', name: 'CWE-798', url: null }],
        location_fingerprint: 'a'.repeat(40), project_fingerprint: 'b'.repeat(40), metadata_version: '15.0.4', raw_metadata: '{}',
      }], new Date().toISOString());
      findingId = (await t.c.db.selectFrom('vulnerability_findings').select('id').where('project_id', '=', vulnProject.id).executeTakeFirstOrThrow()).id;
    });
    after(async () => t.close());

    it('python-gitlab: project and group badges', { skip: pythonGitlabSkip() }, async () => {
      const suffix = `${dialect}${Date.now() % 100000}`;
      const { stdout } = await run(PYTHON, [path.join(here, 'python_badges.py')], { env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, SUFFIX: suffix } });
      checkBadges(JSON.parse(stdout.trim().split('\n').pop()!));
    });

    it('@gitbeaker/rest: project and group badges, project vulnerabilities', async () => {
      const suffix = `${dialect}${Date.now() % 100000}`;
      const { stdout } = await run(process.execPath, [path.join(here, 'gitbeaker_badges.mjs')], {
        env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, SUFFIX: suffix, PROJECT_ID: String(vulnProject.id), FINDING_ID: String(findingId) },
      });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      checkBadges(seen);
      assert.deepEqual(seen.vulnerability, { title: 'Hardcoded password', state: 'detected', finding_id: findingId, severity: 'critical' });
      assert.deepEqual(seen.vulnerability_ids, [seen.created_id]);
    });
  });
}
