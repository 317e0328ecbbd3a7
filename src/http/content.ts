// Request bodies: JSON, form-urlencoded and multipart become one plain object; nothing else is accepted
// (text/plain included) unless a route registers its own parser.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import qs from 'qs';

// A plain key given twice keeps its last value, as the reference's framework (Rack) does
// (`sudo=root&sudo=root` is `root`); arrays are written `name[]=`.
export const QS_OPTIONS: qs.IParseOptions = { depth: 10, arrayLimit: 1000, parameterLimit: 10_000, allowDots: false, duplicates: 'last' };

export const parseQuery = (str: string): Record<string, unknown> => qs.parse(str, QS_OPTIONS) as Record<string, unknown>;

/** A file received in a multipart body, streamed to a temp file; removed after the response. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly mimetype: string,
    readonly path: string,
    readonly size: number,
  ) {}
}

function badBody(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400, code: 'ANVIL_BAD_BODY' });
}

const jsonBodies = new WeakMap<FastifyRequest, unknown>();

/** A JSON body exactly as sent: the parsed body of a route is always an object, this may be an array or a scalar. */
export const jsonBodyOf = (req: FastifyRequest): unknown => (jsonBodies.has(req) ? jsonBodies.get(req) : req.body);

export async function registerBodyParsers(app: FastifyInstance, opts: { bodyLimit: number; fileSizeLimit: number }) {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: opts.bodyLimit }, (req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, {});
    try {
      const parsed = JSON.parse(text);
      jsonBodies.set(req, parsed);
      done(null, parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {});
    } catch {
      done(badBody('The request body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: opts.bodyLimit }, (_req, body, done) => {
    done(null, parseQuery(String(body)));
  });
  await app.register(multipart, { limits: { fileSize: opts.fileSizeLimit, fields: 1000, files: 20 } });
}

const uploadsOf = new WeakMap<FastifyRequest, string[]>();

/**
 * Reads a multipart body: fields are combined with qs (so `a[]` and `a[k]` work), files are
 * streamed to temp files. Empty file parts, as python-gitlab sends, are ignored.
 */
export async function readMultipart(req: FastifyRequest): Promise<Record<string, unknown>> {
  const pairs: string[] = [];
  const files: Record<string, UploadedFile> = {};
  const tmpDir = os.tmpdir();
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      const target = path.join(tmpDir, `anvil-upload-${crypto.randomUUID()}`);
      await pipeline(part.file, fs.createWriteStream(target));
      const list = uploadsOf.get(req) ?? [];
      list.push(target);
      uploadsOf.set(req, list);
      if (part.file.truncated) throw Object.assign(new Error('File too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
      const size = fs.statSync(target).size;
      if (size === 0 && !part.filename) continue;
      files[part.fieldname] = new UploadedFile(part.filename, part.mimetype, target, size);
    } else {
      pairs.push(`${encodeURIComponent(part.fieldname)}=${encodeURIComponent(String(part.value))}`);
    }
  }
  return { ...parseQuery(pairs.join('&')), ...files };
}

export function cleanupUploads(req: FastifyRequest): void {
  for (const f of uploadsOf.get(req) ?? []) fs.rm(f, { force: true }, () => {});
}
