// A real S3-protocol server on loopback for the tests (s3rver serves the S3 API from a folder).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The env that points Anvil's blob storage at this server. */
  env(prefix: string): Record<string, string>;
  close(): Promise<void>;
}

export const S3_KEY = 'S3RVER'; // s3rver's fixed credentials

export async function startS3(bucket = 'anvil-test'): Promise<TestS3> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  const info = (await server.run()) as unknown as { port: number };
  const endpoint = `http://127.0.0.1:${info.port}`;
  return {
    endpoint,
    bucket,
    env: (prefix) => ({
      ANVIL_BLOB_URL: `s3://${bucket}/${prefix}`,
      ANVIL_S3_ENDPOINT: endpoint,
      ANVIL_S3_ACCESS_KEY_ID: S3_KEY,
      ANVIL_S3_SECRET_ACCESS_KEY: S3_KEY,
    }),
    async close() {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the server shows an object whole. s3rver answers a PUT once it has handed the bytes
 * to a file stream, before they are written: a HEAD right after may still see an empty file.
 */
export async function untilStored(storage: { stat(key: string): Promise<{ size: number } | null> }, key: string, size: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await storage.stat(key))?.size === size) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${key} never showed its ${size} bytes`);
}
