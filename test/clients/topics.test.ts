// Topics through the real clients: python-gitlab's `gl.topics` and go-gitlab's TopicsService decode
// what Anvil answers, and a project's topic id filters GET /projects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { goOfflineEnv, PYTHON, goGitlabSkip, pythonGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

const PY = `
import json, os, gitlab
gl = gitlab.Gitlab(os.environ['ANVIL_URL'], private_token=os.environ['ANVIL_TOKEN'])
t = gl.topics.create({'name': 'py-topic', 'title': 'Py Topic'})
t.description = 'from python'
t.save()
got = gl.topics.get(t.id)
names = [x.name for x in gl.topics.list(all=True)]
tagged = [p.path for p in gl.projects.list(topic_id=gl.topics.list(search='tagged')[0].id, all=True)]
got.delete()
try:
    gl.topics.get(t.id)
    missing = None
except gitlab.exceptions.GitlabGetError as e:
    missing = e.response_code
print(json.dumps({'description': got.description, 'names': names, 'tagged': tagged, 'missing': missing}))
`;

for (const dialect of DIALECTS) {
  describe(`topics through real clients (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
      const owner = await t.createUser();
      await makeProject(t, owner.token, { name: 'tagged-one', visibility: 'public', topics: ['tagged'] });
    });
    after(async () => t.close());

    it('python-gitlab: create, save, get, list, filter projects by topic id, delete', { skip: pythonGitlabSkip() }, async () => {
      const { stdout } = await run(PYTHON, ['-c', PY], { env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken } });
      assert.deepEqual(JSON.parse(stdout.trim()), { description: 'from python', names: ['tagged', 'py-topic'], tagged: ['tagged-one'], missing: 404 });
    });

    it('go-gitlab: create, list, get, update, delete', { skip: goGitlabSkip() }, async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-go-topics-'));
      try {
        const bin = path.join(tmp, 'topics');
        const env = goOfflineEnv();
        await run('go', ['build', '-o', bin, '.'], { cwd: path.join(here, 'go_topics'), env });
        const r = await run(bin, [], { env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken } }).catch((e) => assert.fail(`go-gitlab failed: ${e.stderr}`));
        assert.deepEqual(JSON.parse(r.stdout), {
          created: 'go-topic', listed: 1, listed_name: 'go-topic', got_title: 'Go Topic', got_count: 0, updated: 'from go', after_delete: 404, error: true,
        });
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  });
}
