// Blobs in an S3-compatible store (`ANVIL_BLOB_URL=s3://bucket/prefix`), so that several nodes
// share them. Same keys and rules as the local store; bodies stream both ways, and large ones
// go up as multipart uploads (an object appears whole or not at all).
import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Location } from '../config.js';
import { assertBlobKey, assertBlobPrefix, type BlobStat, type BlobStorage, type ByteRange } from './blob.js';

export type { S3Location };

/** Parts of a multipart upload; the body is read this much at a time (bounded memory). */
const PART_SIZE = 8 * 1024 * 1024;

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

export class S3BlobStorage implements BlobStorage {
  readonly client: S3Client;

  constructor(readonly location: S3Location) {
    const config: S3ClientConfig = { region: location.region, forcePathStyle: location.forcePathStyle };
    if (location.endpoint) config.endpoint = location.endpoint;
    if (location.accessKeyId && location.secretAccessKey) {
      config.credentials = { accessKeyId: location.accessKeyId, secretAccessKey: location.secretAccessKey };
    }
    this.client = new S3Client(config);
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return this.location.prefix ? `${this.location.prefix}/${key}` : key;
  }

  async put(key: string, body: Readable | Buffer): Promise<BlobStat> {
    const Key = this.objectKey(key);
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.location.bucket, Key, Body: body, ContentLength: body.length }));
      return { size: body.length };
    }
    let size = 0;
    const counted = body.pipe(new Transform({ transform(chunk: Buffer, _enc, done) { size += chunk.length; done(null, chunk); } }));
    body.once('error', (err) => counted.destroy(err)); // pipe() does not pass a source's failure on
    const upload = new Upload({ client: this.client, params: { Bucket: this.location.bucket, Key, Body: counted }, partSize: PART_SIZE, queueSize: 2, leavePartsOnError: false });
    await upload.done();
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key), Range: range && `bytes=${range.start}-${range.end}` }));
      return (r.Body as Readable | undefined) ?? null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return { size: Number(r.ContentLength ?? 0) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobPrefix(prefix);
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.location.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      batch = [];
    };
    for await (const b of this.list(prefix)) {
      batch.push(this.objectKey(b.key));
      if (batch.length === 1000) await flush();
    }
    await flush();
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    assertBlobPrefix(prefix);
    const strip = this.location.prefix ? this.location.prefix.length + 1 : 0;
    let token: string | undefined;
    do {
      const r = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.objectKey(prefix.slice(0, -1)) + '/', ContinuationToken: token }));
      for (const o of r.Contents ?? []) if (o.Key) yield { key: o.Key.slice(strip), size: Number(o.Size ?? 0) };
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }
}

/** A bucket someone else owns and the keys to it (remote-import-objstore). */
export interface ForeignBucket {
  bucket: string;
  region: string;
  /** A self-hosted server's URL (path-style); null for the provider's own (virtual-hosted). */
  endpoint: string | null;
  accessKeyId: string;
  secretAccessKey: string;
}

/** S3's URI encoding of one path segment: everything but A-Z a-z 0-9 - _ . ~ */
const encodeSegment = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);

/** SHA-256 (and its HMAC) for the signer, from node's crypto. */
class Sha256 {
  private hash: crypto.Hash | crypto.Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? crypto.createHash('sha256') : crypto.createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    throw new Error('not supported');
  }
}
const toBuffer = (d: string | ArrayBuffer | ArrayBufferView): Buffer =>
  typeof d === 'string' ? Buffer.from(d) : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);

/**
 * A pre-signed URL (SigV4, in the query) for one object, lasting `expiresInSeconds`: the reference
 * reads an import from a bucket through such a URL, so the request needs no credentials and goes
 * through the same outbound checks as any URL.
 */
export async function presignS3Object(b: ForeignBucket, key: string, method: 'GET' | 'HEAD', expiresInSeconds: number, signingDate = new Date()): Promise<string> {
  const segments = key.split('/').map(encodeSegment).join('/');
  const base = new URL(b.endpoint ?? `https://${b.bucket}.s3.${b.region}.amazonaws.com`);
  const prefix = base.pathname.replace(/\/$/, '');
  const path = b.endpoint ? `${prefix}/${encodeSegment(b.bucket)}/${segments}` : `/${segments}`;
  const signer = new SignatureV4({
    service: 's3', region: b.region, credentials: { accessKeyId: b.accessKeyId, secretAccessKey: b.secretAccessKey }, sha256: Sha256, uriEscapePath: false,
  });
  const port = base.port ? Number(base.port) : undefined;
  // S3 signs a pre-signed URL's payload as UNSIGNED-PAYLOAD; the header only carries that to the signer
  const unsigned = new Set(['x-amz-content-sha256']);
  const signed = await signer.presign(
    { method, protocol: base.protocol, hostname: base.hostname, port, path, query: {}, headers: { host: base.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
    { expiresIn: expiresInSeconds, signingDate, unsignableHeaders: unsigned, unhoistableHeaders: unsigned },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(String(v))}`)
    .join('&');
  return `${base.protocol}//${base.host}${path}?${query}`;
}
