// The real server process: graceful shutdown on SIGTERM, and start-up time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DIALECTS, ROOT_TOKEN, freshPostgresUrl } from '../helpers/build.js';
import { startServer, waitForHealth } from '../../bench/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with the error code of a new connection attempt, or 'connected'. */
function tryConnect(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/-/health`, { agent: false }, (res) => {
      res.resume();
      resolve('connected');
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

for (const dialect of DIALECTS) {
  describe(`graceful shutdown (${dialect})`, () => {
    it('SIGTERM: the in-flight request completes normally, new connections are refused, exit 0', async () => {
      const pgDb = dialect === 'postgres' ? await freshPostgresUrl() : null;
      const s = await startServer({ env: { ANVIL_ROOT_TOKEN: ROOT_TOKEN, ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}) } });
      try {
        // An idle keep-alive connection must not hold up the exit either.
        const agent = new http.Agent({ keepAlive: true });
        const idle = await new Promise<number>((resolve) => http.get(`${s.url}/-/health`, { agent }, (res) => (res.resume(), resolve(res.statusCode!))));
        assert.equal(idle, 200);

        // A request whose body arrives slowly: the server is mid-request when SIGTERM comes.
        // (a write, so the database must still be open when the handler runs after SIGTERM)
        const bio = 'x'.repeat(4000);
        const body = JSON.stringify({ username: 'slowpoke', name: 'Slow Poke', email: 'slowpoke@example.com', password: 'password123', bio });
        const req = http.request(`${s.url}/api/v4/users`, {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'private-token': ROOT_TOKEN },
        });
        const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; at: number }>((resolve, reject) => {
          req.on('response', (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, at: Date.now() }));
          });
          req.on('error', reject);
        });
        req.write(body.slice(0, 100));
        await sleep(200);

        s.proc.kill('SIGTERM');
        await sleep(300);
        assert.equal(s.proc.exitCode, null, 'still running while a request is in flight');
        assert.equal(await tryConnect(s.url), 'ECONNREFUSED');

        const lastByteAt = Date.now();
        req.end(body.slice(100));
        const r = await response;
        // The normal answer, sent only after the whole body was read.
        assert.equal(r.status, 201, r.text);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.equal(JSON.parse(r.text).username, 'slowpoke');
        assert.equal(JSON.parse(r.text).bio, bio);
        assert.ok(r.at >= lastByteAt);

        const code = await Promise.race([s.exited, sleep(5000).then(() => 'still running 5 s after the last response')]);
        assert.equal(code, 0, s.stderr());
        assert.equal(await tryConnect(s.url), 'ECONNREFUSED');
        assert.equal(s.stderr(), '');
        agent.destroy();
      } finally {
        await s.stop();
        await pgDb?.drop();
      }
    });
  });
}

describe('start-up (sqlite, empty data dir)', () => {
  // Behaviour only: how fast it starts is measured by `npm run bench`, never by a timed test.
  it('answers 200 on /-/health, prints root\'s token once and writes it to initial_root_token (0600)', async (t) => {
    const spawned = process.hrtime.bigint();
    const s = await startServer({ waitForListening: false });
    try {
      const ms = await waitForHealth(s.url, spawned, 120_000); // a liveness bound for a loaded machine, not a timing check
      t.diagnostic(`spawn → first 200 on /-/health: ${ms.toFixed(0)} ms (under tsx, informational)`);
      const printed = /Created user root\. Its API token \(shown once\): (\S+)/.exec(s.stdout())?.[1];
      assert.ok(printed, s.stdout());
      const file = path.join(s.dataDir, 'initial_root_token');
      assert.equal(fs.readFileSync(file, 'utf8').trim(), printed);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const me = await fetch(`${s.url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': printed } });
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { username: string }).username, 'root');
    } finally {
      await s.stop();
    }
  });
});
