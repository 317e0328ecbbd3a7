// curl drives a notify URL as a monitoring tool would: both ways of giving the key.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DIALECTS } from '../helpers/build.js';
import { buildGitTestApp, type GitTestApp } from '../helpers/git.js';
import { makeProject } from '../helpers/projects.js';

const run = promisify(execFile);

/** POSTs the payload with curl; returns the status and the body. */
async function curl(url: string, payload: unknown, auth: string[]): Promise<{ status: number; body: string }> {
  const { stdout } = await run('curl', ['-sS', '-X', 'POST', '-H', 'Content-Type: application/json', ...auth, '--data-binary', JSON.stringify(payload), '-w', '\n%{http_code}', url]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

for (const dialect of DIALECTS) {
  describe(`alert notify URL with curl (${dialect})`, () => {
    let t: GitTestApp;
    let integ: any;
    before(async () => {
      t = await buildGitTestApp(dialect);
      const p = await makeProject(t, t.rootToken, { name: 'watched' });
      const r = await t.request('POST', `/api/v4/projects/${p.id}/alert_integrations`, { body: { name: 'curl' } });
      assert.equal(r.status, 201, r.text);
      integ = r.body;
      assert.ok(integ.url.startsWith(`${t.url}/`));
    });
    after(async () => t.close());

    it('Authorization: Bearer <key>', async () => {
      const r = await curl(integ.url, { title: 'from curl (bearer)' }, ['-H', `Authorization: Bearer ${integ.token}`]);
      assert.equal(r.status, 200, r.body);
      assert.deepEqual(JSON.parse(r.body), [{ iid: 1, title: 'from curl (bearer)' }]);
    });

    it('HTTP Basic with an empty user name and the key as password', async () => {
      const r = await curl(integ.url, { title: 'from curl (basic)' }, ['-u', `:${integ.token}`]);
      assert.equal(r.status, 200, r.body);
      assert.deepEqual(JSON.parse(r.body), [{ iid: 2, title: 'from curl (basic)' }]);
    });

    it('a wrong key is 401', async () => {
      assert.equal((await curl(integ.url, { title: 'x' }, ['-u', ':wrong'])).status, 401);
      assert.equal((await curl(integ.url, { title: 'x' }, ['-H', 'Authorization: Bearer wrong'])).status, 401);
    });
  });
}
