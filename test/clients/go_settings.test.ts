// go-gitlab, the reference's typed Go client (and so glab and the Terraform provider), decodes the
// whole application settings object from GET and PUT: every field must have the reference's JSON
// type (its decimals are strings, its floats numbers), or the client's decode fails.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { goOfflineEnv, goGitlabSkip } from '../helpers/clients.js';
import { listeningTestApp } from '../helpers/git.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const skip = goGitlabSkip();

describe('go-gitlab settings client', { skip }, () => {
  let bin: string;
  let tmp: string;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-go-'));
    bin = path.join(tmp, 'settings');
    // Offline, in GOPATH mode: Debian's packaged sources are the whole dependency tree.
    const env = goOfflineEnv();
    await run('go', ['build', '-o', bin, '.'], { cwd: path.join(here, 'go_settings'), env });
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const dialect of DIALECTS) {
    describe(dialect, () => {
      let t: TestApp;
      let url: string;
      before(async () => {
        ({ t, url } = await listeningTestApp(dialect));
      });
      after(async () => t.close());

      it('GET and PUT /application/settings decode into go-gitlab Settings; decimals round-trip', async () => {
        const r = await run(bin, [], { env: { ...process.env, ANVIL_URL: url, ANVIL_TOKEN: t.rootToken } }).catch((e) => {
          assert.fail(`go-gitlab failed: ${e.stderr}`);
        });
        assert.deepEqual(JSON.parse(r.stdout), {
          get_polling_interval_multiplier: 1,
          get_external_authorization_service_timeout: 0.5,
          put_polling_interval_multiplier: 1.5,
          put_external_authorization_service_timeout: 2.25,
          put_default_projects_limit: 42,
          put_after_sign_up_text: 'hi from go',
        });
        const raw = await t.get('/api/v4/application/settings', t.rootToken);
        assert.equal(raw.body.polling_interval_multiplier, '1.5'); // the reference's BigDecimal, as a string
        assert.equal(raw.body.external_authorization_service_timeout, 2.25); // a float column: a number
      });
    });
  }
});
