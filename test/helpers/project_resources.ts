// Helpers for project sub-resource tests: multipart bodies with binary files.
import crypto from 'node:crypto';

export interface FilePart {
  name: string;
  filename: string;
  content: Buffer | string;
  type?: string;
}

/** A multipart/form-data payload with these fields and files. */
export function multipart(fields: [string, string][], files: FilePart[] = []): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----anvil${crypto.randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [k, v] of fields) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\nContent-Type: ${f.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A tiny valid PNG (1x1). */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
