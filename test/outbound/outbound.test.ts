// The outbound module on its own: what a user-given URL may reach, and that the connection goes to
// the address that was checked. No database: the same on both dialects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { checkUrl, OutboundFailed, OutboundRefused, redactedUrl, send, type OutboundPolicy, type Resolver } from '../../src/outbound/request.js';

/** A resolver for the tests: names that point wherever an attacker would like. */
const NAMES: Record<string, string[]> = {
  'localhost': ['127.0.0.1'],
  'evil.test': ['127.0.0.1'],
  'evil6.test': ['::1'],
  'metadata.test': ['169.254.169.254'],
  'intranet.test': ['10.1.2.3'],
  'half.test': ['93.184.216.34', '192.168.1.1'], // one public, one private: every address is checked
  'public.test': ['93.184.216.34'],
  'a.hooks.test': ['127.0.0.1'],
  'mcast.test': ['224.0.0.1'],
};
let lookups: string[] = [];
const resolver: Resolver = async (host) => {
  lookups.push(host);
  const list = NAMES[host.replace(/\.$/, '')];
  if (!list) throw new Error('ENOTFOUND');
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const DEFAULTS: OutboundPolicy = { allowLocal: false, allowList: [], pinAddress: true, resolver };
const LOCAL: OutboundPolicy = { ...DEFAULTS, allowLocal: true };

// [URL, the reference's refusal by default, the settings under which it is allowed]
const TABLE: Array<[string, string, OutboundPolicy]> = [
  ['http://127.0.0.1/', 'Requests to localhost are not allowed', LOCAL],
  ['http://127.1/', 'Requests to localhost are not allowed', LOCAL],
  ['http://127.0.1/', 'Requests to localhost are not allowed', LOCAL],
  ['http://2130706433/', 'Requests to localhost are not allowed', LOCAL],
  ['http://017700000001/', 'Requests to localhost are not allowed', LOCAL],
  ['http://0x7f000001/', 'Requests to localhost are not allowed', LOCAL],
  ['http://0x7f.0x0.0x0.0x1/', 'Requests to localhost are not allowed', LOCAL],
  ['http://0177.0.0.01/', 'Requests to localhost are not allowed', LOCAL],
  ['http://127.000.000.001/', 'Requests to localhost are not allowed', LOCAL],
  ['http://127.0.0.1./', 'Requests to localhost are not allowed', LOCAL],
  ['http://127.255.255.254:8080/x', 'Requests to localhost are not allowed', LOCAL],
  ['http://good.example@127.0.0.1/', 'Requests to localhost are not allowed', LOCAL],
  ['http://user:pass@127.0.0.1:81/', 'Requests to localhost are not allowed', LOCAL],
  ['https://127.0.0.1/', 'Requests to localhost are not allowed', LOCAL],
  ['http://localhost/', 'Requests to localhost are not allowed', LOCAL],
  ['http://localhost./', 'Requests to localhost are not allowed', LOCAL],
  ['http://LOCALHOST/', 'Requests to localhost are not allowed', LOCAL],
  ['http://evil.test/', 'Requests to localhost are not allowed', LOCAL],
  ['http://evil.test./', 'Requests to localhost are not allowed', LOCAL],
  ['http://evil6.test/', 'Requests to localhost are not allowed', LOCAL],
  ['http://0.0.0.0/', 'Requests to localhost are not allowed', LOCAL],
  ['http://0/', 'Requests to localhost are not allowed', LOCAL],
  ['http://0.1.2.3/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[::1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[0:0:0:0:0:0:0:1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[::]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[::ffff:127.0.0.1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[::ffff:7f00:1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[::127.0.0.1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[::ffff:0:127.0.0.1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[64:ff9b::127.0.0.1]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://[2002:7f00:1::]/', 'Requests to localhost are not allowed', LOCAL],
  ['http://10.0.0.1/', 'Requests to the local network are not allowed', LOCAL],
  ['http://10.255.255.255/', 'Requests to the local network are not allowed', LOCAL],
  ['http://172.16.0.1/', 'Requests to the local network are not allowed', LOCAL],
  ['http://172.31.255.1/', 'Requests to the local network are not allowed', LOCAL],
  ['http://192.168.0.1/', 'Requests to the local network are not allowed', LOCAL],
  ['http://3232235521/', 'Requests to the local network are not allowed', LOCAL],
  ['http://0xc0.0xa8.0.1/', 'Requests to the local network are not allowed', LOCAL],
  ['http://100.64.0.1/', 'Requests to the local network are not allowed', LOCAL],
  ['http://intranet.test/', 'Requests to the local network are not allowed', LOCAL],
  ['http://half.test/', 'Requests to the local network are not allowed', LOCAL],
  ['http://[fc00::1]/', 'Requests to the local network are not allowed', LOCAL],
  ['http://[fd12:3456::1]/', 'Requests to the local network are not allowed', LOCAL],
  ['http://[::ffff:10.0.0.1]/', 'Requests to the local network are not allowed', LOCAL],
  ['http://[::ffff:192.168.1.1]/', 'Requests to the local network are not allowed', LOCAL],
  ['http://169.254.169.254/latest/meta-data/', 'Requests to the link local network are not allowed', LOCAL],
  ['http://2852039166/', 'Requests to the link local network are not allowed', LOCAL],
  ['http://0xa9.0xfe.0xa9.0xfe/', 'Requests to the link local network are not allowed', LOCAL],
  ['http://169.254.1.1/', 'Requests to the link local network are not allowed', LOCAL],
  ['http://metadata.test/', 'Requests to the link local network are not allowed', LOCAL],
  ['http://[fe80::1]/', 'Requests to the link local network are not allowed', LOCAL],
  ['http://[febf::1]/', 'Requests to the link local network are not allowed', LOCAL],
  ['http://[::ffff:169.254.169.254]/', 'Requests to the link local network are not allowed', LOCAL],
  // multicast and broadcast: only the allow list opens them
  ['http://224.0.0.1/', 'Requests to multicast addresses are not allowed', { ...DEFAULTS, allowList: ['224.0.0.0/4'] }],
  ['http://[ff02::1]/', 'Requests to multicast addresses are not allowed', { ...DEFAULTS, allowList: ['ff00::/8'] }],
  ['http://mcast.test/', 'Requests to multicast addresses are not allowed', { ...DEFAULTS, allowList: ['mcast.test'] }],
  ['http://255.255.255.255/', 'Requests to the limited broadcast address are not allowed', { ...DEFAULTS, allowList: ['255.255.255.255'] }],
  // the allow list: IPs, CIDRs, host names with wildcards, entries with a port
  ['http://127.0.0.1:8080/', 'Requests to localhost are not allowed', { ...DEFAULTS, allowList: ['127.0.0.1:8080'] }],
  ['http://[::1]:9000/', 'Requests to localhost are not allowed', { ...DEFAULTS, allowList: ['[::1]:9000'] }],
  ['http://10.9.8.7/', 'Requests to the local network are not allowed', { ...DEFAULTS, allowList: ['10.0.0.0/8'] }],
  ['http://a.hooks.test/', 'Requests to localhost are not allowed', { ...DEFAULTS, allowList: ['*.hooks.test'] }],
  ['http://evil.test:4000/', 'Requests to localhost are not allowed', { ...DEFAULTS, allowList: ['evil.test:4000'] }],
];

describe('outbound: what a user-given URL may reach', () => {
  it(`refuses ${TABLE.length} local forms by default and allows each when the settings say so`, async () => {
    assert.ok(TABLE.length >= 40);
    for (const [url, message, allowed] of TABLE) {
      await assert.rejects(checkUrl(url, DEFAULTS), (e: unknown) => e instanceof OutboundRefused && e.message === message, url);
      const t = await checkUrl(url, allowed);
      assert.ok(t.pinned, url);
    }
  });

  it('an allow-list entry with a port or a wildcard opens only that', async () => {
    const p = { ...DEFAULTS, allowList: ['127.0.0.1:8080', '*.hooks.test'] };
    await assert.rejects(checkUrl('http://127.0.0.1:8081/', p), OutboundRefused);
    await assert.rejects(checkUrl('http://hooks.test.evil.test/', p), OutboundRefused);
    await assert.rejects(checkUrl('http://evil.test/', p), OutboundRefused);
  });

  it('refuses other schemes, unparsable URLs, zone ids and unknown hosts', async () => {
    for (const [url, message] of [
      ['ftp://example.com/', 'Only allowed schemes are http, https'],
      ['file:///etc/passwd', 'Only allowed schemes are http, https'],
      ['gopher://127.0.0.1/', 'Only allowed schemes are http, https'],
      ['javascript:alert(1)', 'Only allowed schemes are http, https'],
      ['http://[fe80::1%25eth0]/', 'URI is invalid'],
      ['http://', 'URI is invalid'],
      ['not a url', 'URI is invalid'],
      ['http://nowhere.invalid/', 'Host cannot be resolved or invalid'],
    ]) {
      await assert.rejects(checkUrl(url, LOCAL), (e: unknown) => e instanceof OutboundRefused && e.message === message, url);
    }
  });

  it('public addresses pass; user info becomes Basic auth and leaves the URL', async () => {
    const t = await checkUrl('https://bot:s%3Acret@public.test/hook?x=1', DEFAULTS);
    assert.equal(t.url.toString(), 'https://public.test/hook?x=1');
    assert.equal(t.authorization, `Basic ${Buffer.from('bot:s:cret').toString('base64')}`);
    assert.deepEqual(t.pinned, { address: '93.184.216.34', family: 4 });
    assert.equal(redactedUrl('https://bot:s3cret@public.test/hook'), 'https://*****:*****@public.test/hook');
  });

  describe('sending', () => {
    let server: http.Server;
    let port: number;
    const seen: Array<{ headers: http.IncomingHttpHeaders; body: string; url: string }> = [];
    before(async () => {
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (d) => { body += d; });
        req.on('end', () => {
          seen.push({ headers: req.headers, body, url: req.url ?? '' });
          if (req.url === '/redirect') return res.writeHead(302, { location: `http://127.0.0.1:${port}/final` }).end();
          if (req.url === '/away') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
          if (req.url === '/big') return res.end('x'.repeat(100_000));
          if (req.url === '/slow') return setTimeout(() => res.end('late'), 3000);
          res.setHeader('x-receiver', 'yes');
          res.end('ok');
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

    it('connects to the checked address: one lookup, the Host header keeps the name', async () => {
      lookups = [];
      const res = await send(`http://me:pw@evil.test:${port}/hook`, LOCAL, { method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } });
      assert.equal(res.status, 200);
      assert.equal(res.body, 'ok');
      assert.equal(res.headers['x-receiver'], 'yes');
      assert.deepEqual(lookups, ['evil.test']);
      const got = seen.at(-1)!;
      assert.equal(got.headers.host, `evil.test:${port}`);
      assert.equal(got.headers.authorization, `Basic ${Buffer.from('me:pw').toString('base64')}`);
      assert.equal(got.body, '{"a":1}');
    });

    it('does not follow redirects unless asked; a followed hop is checked again', async () => {
      const res = await send(`http://127.0.0.1:${port}/redirect`, LOCAL);
      assert.equal(res.status, 302);
      const followed = await send(`http://127.0.0.1:${port}/redirect`, LOCAL, { maxRedirects: 3 });
      assert.equal(followed.status, 200);
      assert.equal(seen.at(-1)!.url, '/final');
      const open = { ...DEFAULTS, allowList: [`127.0.0.1:${port}`] };
      await assert.rejects(send(`http://127.0.0.1:${port}/away`, open, { maxRedirects: 3 }), OutboundRefused);
    });

    it('caps the body it reads and gives up after the total timeout', async () => {
      const big = await send(`http://127.0.0.1:${port}/big`, LOCAL, { maxBodyBytes: 1000 });
      assert.equal(big.body.length, 1000);
      assert.equal(big.truncated, true);
      await assert.rejects(send(`http://127.0.0.1:${port}/slow`, LOCAL, { timeoutMs: 200 }), (e: unknown) => e instanceof OutboundFailed && e.timeout);
    });

    it('dns_rebinding_protection_enabled off: the connection looks the name up again (and here finds nothing)', async () => {
      const res = await send(`http://evil.test:${port}/hook`, LOCAL);
      assert.equal(res.status, 200);
      await assert.rejects(send(`http://evil.test:${port}/hook`, { ...LOCAL, pinAddress: false }), OutboundFailed);
    });

    it('enable_ssl_verification: a self-signed certificate is refused when on, accepted when off', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-tls-'));
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=evil.test'], { stdio: 'ignore' });
      const tls = https.createServer({ key: fs.readFileSync(path.join(dir, 'k.pem')), cert: fs.readFileSync(path.join(dir, 'c.pem')) }, (_req, res) => res.end('secure'));
      await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
      const tlsPort = (tls.address() as AddressInfo).port;
      try {
        await assert.rejects(send(`https://evil.test:${tlsPort}/`, LOCAL, { verifySsl: true }), OutboundFailed);
        const res = await send(`https://evil.test:${tlsPort}/`, LOCAL, { verifySsl: false });
        assert.equal(res.body, 'secure');
      } finally {
        tls.closeAllConnections();
        await new Promise<void>((r) => tls.close(() => r()));
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a refused address is never connected to', async () => {
      const before = seen.length;
      await assert.rejects(send(`http://evil.test:${port}/hook`, DEFAULTS), OutboundRefused);
      assert.equal(seen.length, before);
    });
  });
});
