// Merge requests through the real clients: python-gitlab's project.mergerequests and
// @gitbeaker/rest's MergeRequests open, list, change, read and merge what Anvil answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';
import { branchTip, commitOn } from '../helpers/branches.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

const PY = `
import json, os, gitlab
gl = gitlab.Gitlab(os.environ['ANVIL_URL'], private_token=os.environ['ANVIL_TOKEN'])
p = gl.projects.get(int(os.environ['PROJECT_ID']))
mr = p.mergerequests.create({'source_branch': 'py-feature', 'target_branch': 'main', 'title': 'Python change', 'squash': True})
try:
    p.mergerequests.create({'source_branch': 'py-feature', 'target_branch': 'main', 'title': 'again'})
    dup = None
except gitlab.exceptions.GitlabCreateError as e:
    dup = e.response_code
mr.description = 'edited from python'
mr.save()
got = p.mergerequests.get(mr.iid)
changes = got.changes()
commits = [c.title for c in got.commits()]
listed = [m.iid for m in p.mergerequests.list(state='opened', all=True)]
try:
    p.mergerequests.get(999)
    missing = None
except gitlab.exceptions.GitlabGetError as e:
    missing = e.response_code
got.merge(squash_commit_message='Python squash')
after = p.mergerequests.get(mr.iid)
print(json.dumps({'description': got.description, 'dup': dup, 'files': [c['new_path'] for c in changes['changes']], 'commits': commits,
  'listed': listed, 'missing': missing, 'state': after.state, 'squashed': after.squash_commit_sha is not None,
  'can_merge': got.user['can_merge'], 'merge_status': got.merge_status}))
`;

for (const dialect of DIALECTS) {
  describe(`merge requests through real clients (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let project: any;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { default_branch_protection: 0 } })).status, 200);
      project = await makeProject(t, t.rootToken, { name: `clients-mr-${dialect}`, initialize_with_readme: true });
      const main = (await branchTip(t, project.id, 'main'))!;
      await commitOn(t, project.id, 'py-feature', { 'py.txt': '1\n' }, 'Python one', main);
      await commitOn(t, project.id, 'py-feature', { 'py2.txt': '2\n' }, 'Python two');
      await commitOn(t, project.id, 'gb-feature', { 'gb.txt': 'gb\n' }, 'Gitbeaker one', main);
    });
    after(async () => t.close());

    it('python-gitlab: create (409 twice), save, get, changes, commits, list, 404, merge with squash', { skip: pythonGitlabSkip() }, async () => {
      const { stdout } = await run(PYTHON, ['-c', PY], { env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, PROJECT_ID: String(project.id) } });
      assert.deepEqual(JSON.parse(stdout.trim()), {
        description: 'edited from python', dup: 409, files: ['py.txt', 'py2.txt'], commits: ['Python two', 'Python one'], listed: [1], missing: 404,
        state: 'merged', squashed: true, can_merge: true, merge_status: 'can_be_merged',
      });
    });

    it('@gitbeaker/rest: create, all, edit, commits, diffs, a stale sha refused (409), merge', async () => {
      const { stdout } = await run(process.execPath, [path.join(here, 'gitbeaker_merge_requests.mjs')], {
        env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, PROJECT_ID: String(project.id) },
      });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.equal(seen.detailed, 'mergeable');
      assert.ok(seen.listed.includes(seen.iid));
      assert.equal(seen.edited, 'Gitbeaker change, edited');
      assert.deepEqual(seen.commits, ['Gitbeaker one']);
      assert.deepEqual(seen.diffs, ['gb.txt']);
      assert.equal(seen.stale, 409);
      assert.equal(seen.state, 'merged');
      assert.equal(seen.merge_commit_sha, await branchTip(t, project.id, 'main'));
      assert.equal(await branchTip(t, project.id, 'gb-feature'), null);
    });
  });
}
