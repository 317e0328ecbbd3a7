// SSRF through this machine's own addresses: an address of a local interface (not only loopback
// and the private ranges), in every spelling a URL allows or behind a name, is localhost to the
// outbound rules, on each path that sends to a user-given URL: hook creation and test delivery,
// remote import, export upload. A real receiver bound to 0.0.0.0 shows nothing arrives.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { runImportExportJobs } from '../helpers/import_export.js';
import { findExport } from '../../src/db/repos/project_import_export.js';
import { checkUrl, OutboundRefused, type OutboundPolicy } from '../../src/outbound/request.js';

/** This machine's first IPv4 address outside loopback and the private ranges (what a public server has). */
const own = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal && !/^(10|127|169\.254|192\.168|172\.(1[6-9]|2\d|3[01])|100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7]))\./.test(a.address))?.address;
const LOCALHOST = 'Requests to localhost are not allowed';

/** The URL spellings of an IPv4 address that all reach it. */
function spellings(ip: string, port: number): string[] {
  const o = ip.split('.').map(Number);
  const n = ((o[0]! << 24) >>> 0) + (o[1]! << 16) + (o[2]! << 8) + o[3]!;
  return [
    `http://${ip}:${port}/`,
    `http://${n}:${port}/`,
    `http://0x${n.toString(16)}:${port}/`,
    `http://${o.map((x) => `0${x.toString(8)}`).join('.')}:${port}/`,
    `http://[::ffff:${ip}]:${port}/`,
    `http://[::ffff:${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}]:${port}/`,
    `http://own.test:${port}/`,
  ];
}

describe('outbound: the addresses of this machine', { skip: own ? false : 'this machine has no public IPv4 interface address' }, () => {
  let server: http.Server;
  let port: number;
  const seen: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': '10' }).end('0123456789');
    });
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

  const resolver = async (host: string) => {
    if (host === 'own.test') return [{ address: own!, family: 4 as const }];
    if (host === 'public.test') return [{ address: '93.184.216.34', family: 4 as const }];
    throw new Error('ENOTFOUND');
  };
  const policy: OutboundPolicy = { allowLocal: false, allowList: [], pinAddress: true, resolver };

  it('every spelling of an interface address is refused as localhost; allowed with local requests on or on the allow list', async () => {
    assert.ok(net.isIPv4(own!));
    for (const url of spellings(own!, port)) {
      await assert.rejects(checkUrl(url, policy), (e: unknown) => e instanceof OutboundRefused && e.message === LOCALHOST, url);
      assert.ok((await checkUrl(url, { ...policy, allowLocal: true })).pinned, url);
      assert.ok((await checkUrl(url, { ...policy, allowList: [own!] })).pinned, url);
    }
    assert.equal((await checkUrl('http://public.test/', policy)).pinned?.address, '93.184.216.34');
  });

  for (const dialect of DIALECTS) {
    describe(`each outbound path (${dialect})`, () => {
      let t: TestApp;
      before(async () => {
        t = await buildTestApp(dialect);
        t.c.resolver = resolver;
        await t.request('PUT', '/api/v4/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: false } });
      });
      after(async () => t.close());

      it('hooks: refused at creation (and a name that does not resolve), refused at delivery after a rebinding', async () => {
        const p = await makeRepoProject(t, { name: 'OwnHooks' });
        for (const url of [...spellings(own!, port), 'http://nowhere.invalid/hook']) {
          const r = await t.request('POST', `/api/v4/projects/${p.id}/hooks`, { body: { url, push_events: true } });
          assert.deepEqual([r.status, r.body], [422, { error: 'Invalid url given' }], url);
        }
        // public when saved, this machine when delivered
        let calls = 0;
        t.c.resolver = async (host) => (calls++ === 0 ? resolver('public.test') : resolver(host === 'rebind.test' ? 'own.test' : host));
        try {
          const h = await t.request('POST', `/api/v4/projects/${p.id}/hooks`, { body: { url: `http://rebind.test:${port}/hook`, push_events: true } });
          assert.equal(h.status, 201, h.text);
          const test = await t.request('POST', `/api/v4/projects/${p.id}/hooks/${h.body.id}/test/push_events`);
          assert.equal(test.status, 422, test.text);
          assert.deepEqual(test.body, { message: LOCALHOST });
        } finally {
          t.c.resolver = resolver;
        }
        assert.deepEqual(seen, []);
      });

      it('remote import: 400 with the reference message for each spelling, nothing contacted', async () => {
        for (const url of spellings(own!, port)) {
          const who = await t.createUser(); // a fresh caller each time: imports are rate limited per user
          const r = await t.request('POST', '/api/v4/projects/remote-import', { token: who.token, body: { url: `${url}x.tar.gz`, path: `own-${dialect}` } });
          assert.deepEqual([r.status, r.body], [400, { message: `File url is blocked: ${LOCALHOST}` }], url);
        }
        assert.deepEqual(seen, []);
      });

      it('export upload: the export finishes, the upload is refused with the reason kept, nothing sent', async () => {
        const p = await makeRepoProject(t, { name: 'OwnUpload' });
        for (const url of [`http://${own}:${port}/up`, `http://own.test:${port}/up`]) {
          assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/export`, { body: { upload: { url, http_method: 'PUT' } } })).status, 202);
          await runImportExportJobs(t);
          assert.equal((await t.get(`/api/v4/projects/${p.id}/export`)).body.export_status, 'finished');
          assert.equal((await findExport(t.c.db, p.id))?.error, `URL is blocked: ${LOCALHOST}`, url);
        }
        assert.deepEqual(seen, []);
      });
    });
  }
});
