// Pre-signed object URLs (remote-import-objstore). The loopback S3 server used by the other tests
// does not check V4 signatures, so this checks them against SigV4 as AWS documents it: an
// independent signer, first proven on AWS's own published example, then compared with ours.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { presignS3Object } from '../../src/storage/s3.js';

const hmac = (key: Buffer | string, data: string) => crypto.createHmac('sha256', key).update(data).digest();
const sha256 = (data: string) => crypto.createHash('sha256').update(data).digest('hex');
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The signature AWS's query-string SigV4 gives a URL (all its query but the signature is signed). */
function expectedSignature(url: URL, method: string, secret: string): string {
  const params = [...url.searchParams].filter(([k]) => k !== 'X-Amz-Signature');
  const query = params.map(([k, v]) => [enc(k), enc(v)]).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&');
  const canonical = [method, url.pathname, query, `host:${url.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const date = url.searchParams.get('X-Amz-Date')!;
  const [, day, region, service] = url.searchParams.get('X-Amz-Credential')!.split('/');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day!), region!), service!), 'aws4_request');
  return hmac(key, toSign).toString('hex');
}

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

describe('pre-signed S3 URLs', () => {
  it('the checking signer gives the signature of AWS\'s published example', () => {
    const url = new URL('https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256'
      + '&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z'
      + '&X-Amz-Expires=86400&X-Amz-SignedHeaders=host');
    assert.equal(expectedSignature(url, 'GET', SECRET), 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
  });

  it('signs exactly the URL it returns: path-style under an endpoint and virtual-hosted, keys with odd characters, GET and HEAD', async () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const buckets = [
      { bucket: 'their-bucket', region: 'eu-west-1', endpoint: 'http://127.0.0.1:9000', accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: SECRET },
      { bucket: 'their-bucket', region: 'eu-west-1', endpoint: null, accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: SECRET },
    ];
    for (const b of buckets) {
      for (const method of ['GET', 'HEAD'] as const) {
        const url = new URL(await presignS3Object(b, 'exports/a b+c(1)*~é.tar.gz', method, 3600, at));
        assert.equal(url.host, b.endpoint ? '127.0.0.1:9000' : 'their-bucket.s3.eu-west-1.amazonaws.com');
        assert.equal(url.pathname, `${b.endpoint ? '/their-bucket' : ''}/exports/a%20b%2Bc%281%29%2A~%C3%A9.tar.gz`);
        assert.equal(url.searchParams.get('X-Amz-Date'), '20260102T030405Z');
        assert.equal(url.searchParams.get('X-Amz-Expires'), '3600');
        assert.equal(url.searchParams.get('X-Amz-Credential'), 'AKIAIOSFODNN7EXAMPLE/20260102/eu-west-1/s3/aws4_request');
        assert.equal(url.searchParams.get('X-Amz-Signature'), expectedSignature(url, method, SECRET), `${method} ${url.host}`);
        assert.notEqual(expectedSignature(url, method, 'another secret'), url.searchParams.get('X-Amz-Signature'));
      }
    }
  });
});
