// python-gitlab, @gitbeaker/rest and go-gitlab, unchanged, drive the repository extras: archives,
// blobs, contributors, a commit's refs, cherry-pick and revert (and, where the client has them,
// changelogs), with their errors (401, 403, 404, 400).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { goGitlabSkip, goOfflineEnv, PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';
import { commit, makeRepoProject, memberWith } from '../helpers/repository_content.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { gitText } from '../../src/git/git.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

const PY = `
import json, os, gitlab
gl = gitlab.Gitlab(os.environ['ANVIL_URL'], private_token=os.environ['ANVIL_TOKEN'])
p = gl.projects.get(int(os.environ['PROJECT_ID']))
change = os.environ['CHANGE_SHA']
def status(f):
    try:
        f()
        return 0
    except gitlab.exceptions.GitlabError as e:
        return e.response_code
archive = p.repository_archive(sha='main', format='tar.bz2')
blob = p.repository_blob(os.environ['BLOB_SHA'])
raw = p.repository_raw_blob(os.environ['BLOB_SHA'])
contributors = p.repository_contributors(get_all=True)
c = p.commits.get(change)
refs = sorted(r['type'] + ':' + r['name'] for r in c.refs())
c.cherry_pick(branch='py')
picked = p.commits.get('py')
reverted = p.commits.get(picked.id).revert(branch='py')
reporter = gitlab.Gitlab(os.environ['ANVIL_URL'], private_token=os.environ['REPORTER_TOKEN'])
print(json.dumps({
  'bz2': archive[:3].decode('latin1'),
  'blob': [blob['size'], blob['encoding'], blob['sha']],
  'raw': raw.decode(),
  'contributors': [[x['name'], x['commits']] for x in contributors],
  'refs': refs,
  'picked': picked.message.endswith('(cherry picked from commit %s)' % change),
  'reverted': reverted['title'],
  'errors': {
    'empty': status(lambda: c.cherry_pick(branch='gb2')),
    'no_branch': status(lambda: c.cherry_pick(branch='nope')),
    'reporter': status(lambda: reporter.projects.get(p.id, lazy=True).commits.get(change, lazy=True).revert(branch='py')),
    'bad_token': status(lambda: gitlab.Gitlab(os.environ['ANVIL_URL'], private_token='nope').projects.get(p.id, lazy=True).repository_contributors()),
    'unknown_blob': status(lambda: p.repository_blob('0' * 40)),
  },
}))
`;

for (const dialect of DIALECTS) {
  describe(`repository extras through real clients (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let env: Record<string, string>;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
      const p = await makeRepoProject(t, { path: 'clientrepo' });
      const dir = repositoryDir(t.c, p.id);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/repository/tags`, { body: { tag_name: 'v1.0.0', ref: 'main' } })).status, 201);
      for (const b of ['py', 'gb', 'go', 'gb2']) assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/repository/branches?branch=${b}&ref=main`)).status, 201);
      const change = await commit(t, p.id, { commit_message: 'Add tool\n\nChangelog: added', actions: [{ action: 'create', file_path: 'tool.txt', content: 'tool\n' }] });
      // gb2 already holds the change: picking it there again is empty
      const onGb2 = await t.request('POST', `/api/v4/projects/${p.id}/repository/commits/${change.id}/cherry_pick`, { body: { branch: 'gb2' } });
      assert.equal(onGb2.status, 201, onGb2.text);
      const reporter = await memberWith(t, p.id, 20);
      env = {
        ANVIL_URL: url,
        ANVIL_TOKEN: t.rootToken,
        REPORTER_TOKEN: reporter.token,
        PROJECT_ID: String(p.id),
        CHANGE_SHA: change.id,
        BLOB_SHA: await gitText(['rev-parse', 'main:tool.txt'], { gitDir: dir }),
      };
    });
    after(async () => t.close());

    it('python-gitlab: archive, blob, raw blob, contributors, refs, cherry-pick, revert, errors', { skip: pythonGitlabSkip() }, async () => {
      const { stdout } = await run(PYTHON, ['-c', PY], { env: { ...process.env, ...env } });
      assert.deepEqual(JSON.parse(stdout.trim()), {
        bz2: 'BZh',
        blob: [5, 'base64', env.BLOB_SHA],
        raw: 'tool\n',
        contributors: [['Administrator', 2]],
        refs: ['branch:main'],
        picked: true,
        reverted: 'Revert "Add tool"',
        errors: { empty: 400, no_branch: 404, reporter: 403, bad_token: 401, unknown_blob: 404 },
      });
    });

    it('@gitbeaker/rest: archive, blob, raw blob, contributors, refs, cherry-pick, revert, changelog, errors', async () => {
      const { stdout } = await run(process.execPath, [path.join(here, 'gitbeaker_repository.mjs')], { env: { ...process.env, ...env } });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.deepEqual(seen, {
        zip: 'PK',
        blob: { size: 5, encoding: 'base64', content: 'tool\n', sha: env.BLOB_SHA },
        raw: 'tool\n',
        contributors: [['Administrator', 2]],
        refs: ['branch:main'],
        picked_message: `Add tool\n\nChangelog: added\n\n(cherry picked from commit ${env.CHANGE_SHA})`,
        reverted_title: `Revert "Add tool"`,
        notes_head: '## 2.0.0 (date)',
        changelog_has_release: true,
        errors: { unknown_commit: 404, empty: 400, reporter: 403, bad_token: 401, unknown_blob: 404 },
      });
    });

    it('go-gitlab: archive, blob, raw blob, contributors, refs, cherry-pick, revert, errors', { skip: goGitlabSkip() }, async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-go-repo-'));
      try {
        const bin = path.join(tmp, 'repo');
        await run('go', ['build', '-o', bin, '.'], { cwd: path.join(here, 'go_repository'), env: goOfflineEnv() });
        const r = await run(bin, [], { env: { ...process.env, ...env } }).catch((e) => assert.fail(`go-gitlab failed: ${e.stderr}`));
        assert.deepEqual(JSON.parse(r.stdout), {
          gzip: true,
          blob_len: JSON.stringify({ size: 5, encoding: 'base64', content: Buffer.from('tool\n').toString('base64'), sha: env.BLOB_SHA }).length,
          raw: 'tool\n',
          contributors: 1,
          first_commits: 2,
          refs: ['branch:main'],
          picked_parent: 1,
          reverted: 'Revert "Add tool"',
          errors: [404, 400, 403, 401],
        });
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  });
}
