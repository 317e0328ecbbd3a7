// What uploads and avatars share: the incoming file, safe stored names, and content types.
import type { Readable } from 'node:stream';
import type { Container } from '../context.js';

/** A file received in a request, already on disk (the HTTP layer's UploadedFile fits). */
export interface IncomingFile {
  filename: string;
  path: string;
  size: number;
}

/** A stored file on its way back to a client. */
export interface StoredFile {
  stream: Readable;
  size: number;
  filename: string;
  contentType: string;
  /** Images, videos and audio show in the browser; anything else downloads. */
  inline: boolean;
}

/** The blob at `key` as a file to send, or null when it is not there. */
export async function readStoredFile(c: Container, key: string, filename: string, inline: boolean): Promise<StoredFile | null> {
  const stat = await c.storage.stat(key);
  const stream = stat ? await c.storage.get(key) : null;
  if (!stat || !stream) return null;
  return { stream, size: stat.size, filename, contentType: contentTypeOf(filename), inline };
}

/**
 * The name a file is stored and served under: the base name with anything outside
 * `[A-Za-z0-9_.-]` turned into `_` (as the reference's uploader sanitizes), never starting with a dot.
 */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[^A-Za-z0-9_.\-]/g, '_').replace(/^\./, '_');
  return clean === '' ? 'file' : clean.slice(-200);
}

export const extensionOf = (filename: string): string => {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
};

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  ogv: 'video/ogg',
  mp3: 'audio/mpeg',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  spx: 'audio/ogg',
  wav: 'audio/wav',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  log: 'text/plain',
  json: 'application/json',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
};

export const contentTypeOf = (filename: string): string => TYPES[extensionOf(filename)] ?? 'application/octet-stream';

/** Images, videos and audio (svg excepted: it can carry script) are shown inline and get `!` in markdown. */
export const isMedia = (filename: string): boolean => {
  const t = contentTypeOf(filename);
  return t !== 'image/svg+xml' && (t.startsWith('image/') || t.startsWith('video/') || t.startsWith('audio/'));
};
