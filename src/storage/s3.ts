// Blobs in an S3-compatible store (`ANVIL_BLOB_URL=s3://bucket/prefix`), so that several nodes
// share them. Same keys and rules as the local store; bodies stream both ways, and large ones
// go up as multipart uploads (an object appears whole or not at all).
import { Transform, type Readable } from 'node:stream';
import {
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Location } from '../config.js';
import { assertBlobKey, assertBlobPrefix, type BlobStat, type BlobStorage } from './blob.js';

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

  async get(key: string): Promise<Readable | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
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

/** One object of a bucket someone else owns (remote-import-objstore): its stream and size, or null when absent. */
export async function openS3Object(location: Omit<S3Location, 'prefix'>, key: string): Promise<{ stream: Readable; size: number } | null> {
  const store = new S3BlobStorage({ ...location, prefix: '' });
  try {
    const r = await store.client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }));
    if (!r.Body) return null;
    return { stream: r.Body as Readable, size: Number(r.ContentLength ?? 0) };
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}
