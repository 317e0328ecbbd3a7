// `startAnvil` (anvil/testing), the Node entry point: an ephemeral server as a child process,
// seeded from an object, and the test endpoints behind reset, snapshot/restore, deliveries,
// the clock and stop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, distIsFresh } from '../../bench/server.js';
import { startAnvil, type Anvil } from '../../src/testing/client.js';

/** The build when it is fresh, else the sources through tsx. */
const command = distIsFresh() ? undefined : [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/main.ts')];
const ALICE = 'alice-client-token-00000001';

describe('startAnvil', () => {
  let anvil: Anvil;
  before(async () => {
    anvil = await startAnvil({
      command,
      clock: true,
      env: { ANVIL_RUNNER_ENABLED: 'false' },
      seed: {
        users: [{ username: 'alice', tokens: [{ name: 'ci', token: ALICE, scopes: ['api'] }] }],
        projects: [{ path: 'alice/demo', files: { 'README.md': '# demo\n' }, hooks: [{ url: 'http://inbox.test/demo', push_events: true }] }],
      },
    });
  });
  after(() => anvil?.stop());

  const api = (p: string, init: RequestInit = {}, token = anvil.token) =>
    fetch(`${anvil.url}/api/v4${p}`, { ...init, headers: { 'private-token': token, 'content-type': 'application/json', ...init.headers } });

  it('answers with the url, root token, pid and data dir of a seeded server', async () => {
    assert.match(anvil.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(fs.existsSync(anvil.dataDir));
    assert.ok(anvil.pid > 0);
    const me = await api('/user', {}, ALICE);
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { username: string }).username, 'alice');
    const root = await api('/user');
    assert.equal(((await root.json()) as { username: string }).username, 'root');
  });

  it('records a hook delivery and waits for it; a reset forgets it and what was made', async () => {
    const before = await anvil.deliveries();
    const commit = await api('/projects/alice%2Fdemo/repository/files/a.txt', {
      method: 'POST',
      body: JSON.stringify({ branch: 'main', content: 'a', commit_message: 'a' }),
    });
    assert.equal(commit.status, 201);
    const since = before.at(-1)?.id ?? 0;
    const got = await anvil.deliveries({ since, wait: 10 });
    assert.equal(got.length, 1);
    assert.equal(got[0]!.url, 'http://inbox.test/demo');
    assert.equal(got[0]!.method, 'POST');
    assert.equal(got[0]!.headers['x-service-event'] ?? got[0]!.headers['X-Service-Event'], 'Push Hook');
    assert.equal(got[0]!.response?.status, 200);

    await anvil.reset();
    assert.deepEqual(await anvil.deliveries(), []);
    assert.equal((await api('/projects/alice%2Fdemo/repository/files/a.txt/raw?ref=main')).status, 404);
  });

  it('snapshots and restores by name', async () => {
    await anvil.snapshot('empty');
    const created = await api('/users', { method: 'POST', body: JSON.stringify({ username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'Bob-pass-2026!' }) });
    assert.equal(created.status, 201);
    await anvil.restore('empty');
    assert.deepEqual(await (await api('/users?username=bob')).json(), []);
    await assert.rejects(anvil.restore('never-saved'), /answered 404/);
  });

  it('moves the clock', async () => {
    const t0 = await anvil.clock.now();
    const t1 = await anvil.clock.advance('25h');
    assert.ok(t1.getTime() - t0.getTime() >= 25 * 3600_000);
    const t2 = await anvil.clock.set('2030-01-01T00:00:00Z');
    assert.match(t2.toISOString(), /^2030-01-01T00:00:0\d\.\d{3}Z$/); // the clock goes on from there
  });

  it('stops: the process ends and its data dir is gone', async () => {
    const other = await startAnvil({ command, env: { ANVIL_RUNNER_ENABLED: 'false' } });
    await other.stop();
    assert.throws(() => process.kill(other.pid, 0));
    assert.equal(fs.existsSync(other.dataDir), false);
  });

  it('a seed that is wrong is the error of the start', async () => {
    await assert.rejects(startAnvil({ command, seed: { users: [{ username: 'x', admin: 'maybe' }] } }), /users\.0\.admin: must be true or false/);
  });
});
