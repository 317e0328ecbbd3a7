import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { DIALECTS, ROOT_TOKEN, buildTestApp, type TestApp } from '../helpers/build.js';
import { createLogger } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { route } from '../../src/http/route.js';

const WRONG_TOKEN = 'wrong-secret-token-5d1b0c9e77aa';
const JOB_TOKEN = 'job-secret-token-0f2e4d6c8b';
const SESSION = 'session-secret-value-77e3a1';
const PASSWORD = 'hunter2-secret-password';
const SECRETS = [ROOT_TOKEN, WRONG_TOKEN, JOB_TOKEN, SESSION, PASSWORD];

for (const dialect of DIALECTS) {
  describe(`request logs (${dialect})`, () => {
    let t: TestApp;
    const lines: string[] = [];
    before(async () => {
      // The product's own logger configuration (level info, redaction), written to a stream we read.
      const dest = new Writable({
        write(chunk, _enc, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      const log = createLogger(loadConfig({ ANVIL_LOG_LEVEL: 'info' }), dest);
      // A route that fails unexpectedly: its error line is written through the request's own logger.
      const failing = route({ method: 'GET', path: '/test/failing', tag: 'test', summary: 'fails', auth: 'optional', handler: async () => {
        throw new Error('boom');
      } });
      t = await buildTestApp(dialect, {}, { log, extraRoutes: [failing] });
    });
    after(async () => t.close());

    /** Sends a request and returns its response and the log lines it produced. */
    async function logged(method: string, url: string, headers: Record<string, string> = {}, body?: unknown) {
      const from = lines.length;
      const r = await t.request(method, url, { token: null, headers, body });
      await new Promise((res) => setImmediate(res));
      return { r, lines: lines.slice(from) };
    }

    it('one JSON line per request with its id, echoed in x-request-id', async () => {
      const { r, lines: got } = await logged('GET', '/api/v4/version', { 'private-token': ROOT_TOKEN });
      assert.equal(r.status, 200);
      assert.equal(got.length, 1);
      const rec = JSON.parse(got[0]);
      assert.equal(rec.msg, 'request');
      assert.equal(rec.reqId, r.headers['x-request-id']);
      assert.match(rec.reqId, /^[0-9a-f-]{36}$/);
      assert.equal(rec.method, 'GET');
      assert.equal(rec.url, '/api/v4/version');
      assert.equal(rec.status, 200);
      assert.equal(typeof rec.ms, 'number');
      assert.equal(got[0].split('"reqId"').length, 2, 'reqId appears once per line');
    });

    it('a well-formed X-Request-Id from the client is kept; a malformed one is replaced', async () => {
      const a = await logged('GET', '/api/v4/version', { 'x-request-id': 'lb-7f3a_01' });
      assert.equal(a.r.headers['x-request-id'], 'lb-7f3a_01');
      assert.equal(JSON.parse(a.lines[0]).reqId, 'lb-7f3a_01');
      const b = await logged('GET', '/api/v4/version', { 'x-request-id': 'bad id "quoted"' });
      assert.match(String(b.r.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.equal(JSON.parse(b.lines[0]).reqId, b.r.headers['x-request-id']);
    });

    it("an unexpected error's line carries the request's id, beside the request's own line", async () => {
      const { r, lines: got } = await logged('GET', '/api/v4/test/failing');
      assert.equal(r.status, 500);
      assert.deepEqual(r.body, { message: '500 Internal Server Error' });
      const [error, request] = got.map((l) => JSON.parse(l));
      assert.equal(error.msg, 'unhandled error');
      assert.equal(error.err.message, 'boom');
      assert.equal(error.reqId, r.headers['x-request-id']);
      assert.equal(request.msg, 'request');
      assert.equal(request.reqId, r.headers['x-request-id']);
      assert.equal(request.status, 500);
      assert.equal(got[0].split('"reqId"').length, 2, 'reqId appears once per line');
    });

    it('tokens in the query string, headers and cookies never reach a log line', async () => {
      const cases: [string, string, Record<string, string>, unknown?][] = [
        ['GET', `/api/v4/user?private_token=${ROOT_TOKEN}`, {}],
        ['GET', `/api/v4/user?per_page=2&access_token=${ROOT_TOKEN}&x=1`, {}],
        ['GET', `/api/v4/user?private%5Ftoken=${ROOT_TOKEN}`, {}], // the query parser decodes the key
        ['GET', `/api/v4/user?PRIVATE_TOKEN=${WRONG_TOKEN}`, {}],
        ['GET', `/api/v4/user?private_token[]=${WRONG_TOKEN}`, {}],
        ['GET', `/api/v4/user?job_token=${JOB_TOKEN}`, {}],
        ['GET', `/api/v4/user?private_token=${WRONG_TOKEN}`, {}], // a refused token is still a secret
        ['GET', '/api/v4/user', { 'private-token': ROOT_TOKEN }],
        ['GET', '/api/v4/user', { authorization: `Bearer ${ROOT_TOKEN}` }],
        ['GET', '/api/v4/user', { 'job-token': JOB_TOKEN }],
        ['GET', '/api/v4/user', { cookie: `_service_session=${SESSION}` }],
        ['GET', `/api/v4/no/such/route?private_token=${ROOT_TOKEN}`, {}],
        ['POST', `/api/v4/user?password=${PASSWORD}`, { 'private-token': ROOT_TOKEN }, { password: PASSWORD }],
      ];
      const statuses: number[] = [];
      for (const [method, url, headers, body] of cases) {
        const { r, lines: got } = await logged(method, url, headers, body);
        statuses.push(r.status);
        assert.equal(got.length, 1, url);
        const rec = JSON.parse(got[0]);
        assert.equal(rec.reqId, r.headers['x-request-id']);
        for (const s of SECRETS) assert.ok(!got[0].includes(s), `${url} logged a secret: ${got[0]}`);
        if (url.includes('?')) assert.match(rec.url, /=\[REDACTED\]/);
      }
      // the requests did what they should (so the log lines are of real outcomes)
      assert.deepEqual(statuses, [200, 200, 200, 401, 401, 401, 401, 200, 200, 401, 401, 404, 405]);
      // nothing anywhere in the whole log
      for (const line of lines) for (const s of SECRETS) assert.ok(!line.includes(s), line);
    });
  });
}
