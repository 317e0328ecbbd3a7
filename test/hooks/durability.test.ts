// A real server process killed between a change and its delivery: the event is not lost.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, ROOT_TOKEN, freshPostgresUrl } from '../helpers/build.js';
import { startReceiver } from '../helpers/hooks.js';
import { startServer } from '../../bench/server.js';

async function api(url: string, method: string, p: string, body?: unknown) {
  const r = await fetch(`${url}/api/v4${p}`, {
    method,
    headers: { 'private-token': ROOT_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

for (const dialect of DIALECTS) {
  describe(`hook delivery survives a killed server (${dialect})`, () => {
    it('a change committed with its delivery row is delivered once after a restart', async () => {
      const pgDb = dialect === 'postgres' ? await freshPostgresUrl() : null;
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-kill-'));
      const rx = await startReceiver();
      const env = { ANVIL_ROOT_TOKEN: ROOT_TOKEN, ANVIL_DATA_DIR: dataDir, ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}) };
      // No workers: the change commits, the delivery waits, and the process dies before any send.
      const first = await startServer({ env: { ...env, ANVIL_QUEUE_WORKERS: '0' } });
      let second: Awaited<ReturnType<typeof startServer>> | null = null;
      try {
        assert.equal((await api(first.url, 'POST', '/hooks', { url: `${rx.url}/kill`, token: 'k' })).status, 201);
        const user = await api(first.url, 'POST', '/users', { username: 'survivor', name: 'Survivor', email: 'survivor@example.com', password: 'password123' });
        assert.equal(user.status, 201);
        first.proc.kill('SIGKILL');
        await first.exited;
        assert.equal(rx.received.length, 0);

        second = await startServer({ env: { ...env, ANVIL_QUEUE_WORKERS: '2' } });
        const [got] = await rx.waitFor(1, (r) => r.body?.event_name === 'user_create', 30_000);
        assert.equal(got.body.user_id, user.body.id);
        assert.equal(got.headers['x-service-token'], 'k');
        // Delivered once: give a duplicate time to show up, then count.
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(rx.received.filter((r) => r.body?.event_name === 'user_create').length, 1);
      } finally {
        if (first.proc.exitCode === null && first.proc.signalCode === null) first.proc.kill('SIGKILL');
        await second?.stop();
        await rx.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
        await pgDb?.drop();
      }
    });
  });
}
