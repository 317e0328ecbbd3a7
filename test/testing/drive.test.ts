// The journal, faults, latency, the clock and the inbox's faults, driven as a suite drives them:
// anvil/testing sets them up on an ephemeral server (the build), python-gitlab meets them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, distIsFresh } from '../../bench/server.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';
import { startAnvil, type Anvil } from '../../src/testing/client.js';

const run = promisify(execFile);
const ALICE = 'alice-drive-token-0000000001';

/** Runs a python-gitlab script as alice (`gl`), root (`admin`); its stdout's JSON. */
async function python(anvil: Anvil, script: string): Promise<any> {
  const prelude = `import gitlab, json, time
gl = gitlab.Gitlab(${JSON.stringify(anvil.url)}, private_token=${JSON.stringify(ALICE)})
admin = gitlab.Gitlab(${JSON.stringify(anvil.url)}, private_token=${JSON.stringify(anvil.token)})
`;
  const r = await run(PYTHON, ['-c', prelude + script], { timeout: 60_000 });
  return JSON.parse(r.stdout);
}

describe('driven from anvil/testing and python-gitlab', { skip: pythonGitlabSkip() }, () => {
  let anvil: Anvil;
  before(async () => {
    if (!distIsFresh()) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    anvil = await startAnvil({
      clock: true,
      env: { ANVIL_RUNNER_ENABLED: 'false' },
      seed: {
        users: [{ username: 'alice', tokens: [{ name: 'ci', token: ALICE, scopes: ['api'] }] }],
        projects: [{ path: 'alice/demo', files: { 'README.md': '# demo' }, hooks: [{ url: 'http://inbox.test/demo', push_events: true }] }],
      },
    });
  });
  after(() => anvil?.stop());

  it('a 429 with Retry-After once: python-gitlab waits and asks again; the journal shows both', async () => {
    await anvil.reset();
    await anvil.faults.add({ method: 'GET', path: '/api/v4/projects', status: 429, headers: { 'Retry-After': '1' }, times: 1 });
    const out = await python(anvil, `t = time.time(); names = [p.path_with_namespace for p in gl.projects.list(owned=True)]
print(json.dumps({"names": names, "waited": time.time() - t}))`);
    assert.deepEqual(out.names, ['alice/demo']);
    assert.ok(out.waited >= 0.9, `waited ${out.waited} s`);
    const seen = await anvil.requests({ path: '/api/v4/projects', method: 'GET' });
    assert.deepEqual(seen.map((e) => [e.status, e.user]), [[429, 'alice'], [200, 'alice']]);
    assert.equal(await anvil.requestCount({ status: '4xx' }), 1);
    assert.equal(seen[0]!.request.headers['private-token'], '[REDACTED]');
    assert.deepEqual(await anvil.faults.list(), []);
  });

  it('latency: a delay of 500 ms on one path, and a 503 for ever until cleared', async () => {
    await anvil.reset();
    await anvil.faults.add({ path: '/api/v4/projects/*', delay: 500, times: 1 });
    await anvil.faults.add({ path: '/api/v4/user', status: 503, body: { message: 'down' } });
    const out = await python(anvil, `t = time.time(); p = gl.projects.get("alice/demo"); slow = time.time() - t
try:
    gl.auth(); code = 200
except gitlab.exceptions.GitlabError as e:
    code = e.response_code
print(json.dumps({"slow": slow, "code": code}))`);
    assert.ok(out.slow >= 0.5, `${out.slow} s`);
    assert.equal(out.code, 503);
    await anvil.faults.clear();
    assert.equal((await python(anvil, 'gl.auth(); print(json.dumps(gl.user.username))')), 'alice');
  });

  it('the clock frozen: what python-gitlab creates is stamped with it; a reset brings back the seeded time', async () => {
    await anvil.reset();
    const at = await anvil.clock.freeze('2030-01-01T00:00:00Z');
    assert.equal(at.toISOString(), '2030-01-01T00:00:00.000Z');
    const out = await python(anvil, `p = gl.projects.create({"name": "later"}); time.sleep(0.3); q = gl.projects.create({"name": "later2"})
print(json.dumps([p.created_at, q.created_at]))`);
    assert.deepEqual(out, ['2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
    await anvil.clock.unfreeze();
    await anvil.reset();
    assert.ok(Math.abs((await anvil.clock.now()).getTime() - Date.now()) < 5000);
  });

  it("the inbox's answers: a hook test meets a 500, then a timeout, then 200", async () => {
    await anvil.reset();
    await anvil.inboxFaults.add({ url: 'http://inbox.test/**', status: 500, body: 'no', times: 1 });
    await anvil.inboxFaults.add({ url: 'http://inbox.test/**', delay: 60_000, times: 1 });
    const out = await python(anvil, `p = gl.projects.get("alice/demo"); h = p.hooks.list()[0]; codes = []
for i in range(3):
    try:
        gl.http_post(f"/projects/{p.id}/hooks/{h.id}/test/push_events"); codes.append(201)
    except gitlab.exceptions.GitlabHttpError as e:
        codes.append(e.response_code)
print(json.dumps(codes))`);
    assert.deepEqual(out, [422, 422, 201]);
    const d = await anvil.deliveries();
    assert.deepEqual(d.map((x) => [x.response?.status ?? null, x.error]), [[500, null], [null, 'execution expired'], [200, null]]);
  });
});
