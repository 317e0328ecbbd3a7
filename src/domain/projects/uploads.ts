// Project uploads (POST /projects/:id/uploads): files attached to issues, comments and the like.
// Each lands in blob storage under a random secret, which is what makes its URL unguessable;
// it is served back at the project's path with the project's visibility rules.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Container } from '../context.js';
import type { Actor } from '../auth/actor.js';
import { exactError, missing, notFound } from '../errors.js';
import { getSettings } from '../settings/service.js';
import { isMedia, readStoredFile, safeFilename, type IncomingFile, type StoredFile } from './files.js';
import { ensureWritable } from './policy.js';
import { findProject } from './find.js';

export interface UploadResult {
  alt: string;
  url: string;
  full_path: string;
  markdown: string;
}

const uploadKey = (projectId: number, secret: string, filename: string) => `projects/${projectId}/uploads/${secret}/${filename}`;

/** Any user who can read the project may upload to it, as in the reference (its API checks nothing more). */
export async function uploadFile(c: Container, actor: Actor, idOrPath: number | string, file: IncomingFile): Promise<UploadResult> {
  const { row } = await findProject(c, actor, idOrPath);
  // upload_file is among what an archived project refuses (the reference's readonly abilities).
  ensureWritable(row);
  if (file.size === 0) throw missing('file');
  const limitMb = (await getSettings(c)).max_attachment_size as number;
  if (file.size > limitMb * 1024 * 1024) throw exactError(413, { message: '413 Request Entity Too Large' });

  const filename = safeFilename(file.filename);
  const secret = crypto.randomBytes(16).toString('hex');
  await c.storage.put(uploadKey(row.id, secret, filename), fs.createReadStream(file.path));

  const url = `/uploads/${secret}/${filename}`;
  const media = isMedia(filename);
  // Media are named by their base name, other files by their whole name.
  const alt = media && filename.includes('.') ? filename.slice(0, filename.lastIndexOf('.')) : filename;
  return { alt, url, full_path: `/${row.full_path}${url}`, markdown: `${media ? '!' : ''}[${alt}](${url})` };
}

const uploadNotFound = () => notFound();

/** GET /<project path>/uploads/:secret/:filename: the file, for whoever may read the project. */
export async function readUpload(c: Container, actor: Actor | null, projectPath: string, secret: string, filename: string): Promise<StoredFile> {
  const { row } = await findProject(c, actor, projectPath);
  if (!/^[0-9a-f]{32}$/.test(secret) || safeFilename(filename) !== filename) throw uploadNotFound();
  const key = uploadKey(row.id, secret, filename);
  const file = await readStoredFile(c, key, filename, isMedia(filename));
  if (!file) throw uploadNotFound();
  return file;
}

/** Blobs of a project that is going away (call from project deletion). */
