// The real clients, unchanged, against a listening Anvil: python-gitlab 3.12 and @gitbeaker/rest 43.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

for (const dialect of DIALECTS) {
  describe(`real clients (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      ({ t, url } = await listeningTestApp(dialect));
      // enough users and groups that per_page=2 needs several pages
      for (let i = 0; i < 5; i++) await t.createUser();
    });
    after(async () => t.close());

    const expectations = (seen: any, suffix: string, prefix: string) => {
      assert.equal(seen.me, 'root');
      assert.equal(seen.created_user, `${prefix}${suffix}`);
      assert.equal(seen.token_user, `${prefix}${suffix}`);
      assert.equal(seen.group_path, `${prefix === 'py' ? 'py-group' : 'gb-group'}-${suffix}`);
      assert.ok(seen.user_count >= 7, `all pages of users were read (${seen.user_count})`);
      assert.equal(seen.user_ids_unique, true);
      assert.ok(seen.group_paths.includes(seen.group_path));
      assert.deepEqual(seen.detail_projects, ['inside']);
      assert.deepEqual(seen.detail_shared_projects, [`outside-${suffix}`]);
      assert.deepEqual(seen.group_projects, ['inside', `outside-${suffix}`].sort());
      assert.deepEqual(seen.own_projects, ['inside']);
    };

    it('python-gitlab: authenticate, create a user and its token, create a group with a project and a share, list users and groups through all pages', { skip: pythonGitlabSkip() }, async () => {
      const suffix = `${dialect}${Date.now() % 100000}`;
      const { stdout } = await run(PYTHON, [path.join(here, 'python_client.py')], {
        env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, SUFFIX: suffix },
      });
      expectations(JSON.parse(stdout.trim().split('\n').pop()!), suffix, 'py');
    });

    it('@gitbeaker/rest: the same through its API', async () => {
      const suffix = `${dialect}${Date.now() % 100000}`;
      const { stdout } = await run(process.execPath, [path.join(here, 'gitbeaker_client.mjs')], {
        env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken, SUFFIX: suffix },
      });
      expectations(JSON.parse(stdout.trim().split('\n').pop()!), suffix, 'gb');
    });
  });
}
