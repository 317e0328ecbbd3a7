// Repository archives (the API's …/repository/archive and the web's /-/archive/…): named and laid
// out as the reference names them, streamed from git with bounded memory.
import { PassThrough, type Readable } from 'node:stream';
import type { Container } from '../context.js';
import { ARCHIVE_FORMAT_NAMES, archiveFormat, archiveStream, type ArchiveFormat } from '../../git/archive.js';
import { objectInfo } from '../../git/cat_file.js';
import { readCommit } from '../../git/objects.js';
import type { Actor } from '../auth/actor.js';
import { notFound } from '../errors.js';
import { readableRepository } from './commits.js';

/** Every format name an archive may be asked in (`tgz`, `tbz2`, …), longest first. */
export const archiveFormatNames: readonly string[] = ARCHIVE_FORMAT_NAMES;

const EXTENSIONS: Record<ArchiveFormat, string> = { 'tar.gz': 'tar.gz', 'tar.bz2': 'tar.bz2', tar: 'tar', zip: 'zip' };

export interface ArchiveRequest {
  /** A branch, tag or sha; absent: the default branch. */
  ref?: string;
  /** A format name the reference accepts (`tar.gz`, `tgz`, `zip`, `tar.bz2`, `tbz`, `tar`, …); absent: tar.gz. */
  format?: string;
  /** Only this directory (or file) of the tree. */
  path?: string;
  /** The commit's sha ends the name (the API: always); null: unless the ref is the sha itself (the web's default). */
  appendSha: boolean | null;
}

export interface RepositoryArchive {
  stream: Readable;
  contentType: string;
  fileName: string;
  headers: Record<string, string>;
}

/**
 * The archive's top directory and file name, as the reference builds them: project path, the ref
 * with `/` made `-`, then the sha (when asked), then the path with `/` made `-`.
 */
export function archivePrefix(projectPath: string, ref: string, sha: string, appendSha: boolean | null, path?: string): string {
  const parts = [projectPath, ref.replace(/\//g, '-')];
  if (appendSha ?? ref !== sha) parts.push(sha);
  if (path) parts.push(path.replace(/\//g, '-'));
  return parts.join('-');
}

/** The archive of a ref, ready to stream; 404 (File) for an unknown ref, path or format, as the reference answers. */
export async function repositoryArchive(c: Container, actor: Actor | null, idOrPath: number | string, req: ArchiveRequest): Promise<RepositoryArchive> {
  const repo = await readableRepository(c, actor, idOrPath);
  const format = archiveFormat(req.format);
  const ref = req.ref || repo.row.default_branch || 'HEAD';
  const commit = format ? await readCommit(repo.dir, ref) : null;
  if (!format || !commit) throw notFound('File');
  const path = req.path ? req.path.replace(/^\/+|\/+$/g, '') : '';
  if (path !== '' && (path.split('/').includes('..') || /[\n\r\0]/.test(path) || !(await objectInfo(repo.dir, `${commit.id}:${path}`)))) throw notFound('File');
  const prefix = archivePrefix(repo.row.path, ref, commit.id, req.appendSha, req.path || undefined);
  const git = archiveStream(repo.dir, commit.id, { format, prefix, path: path || undefined });
  // A failure once bytes are out can only show as a cut-short body: the status is already sent.
  const body = new PassThrough();
  git.stdout.pipe(body);
  git.done.catch((e) => body.destroy(e as Error));
  body.on('close', git.stop); // a client that went away leaves no git behind
  const fileName = `${prefix}.${EXTENSIONS[format]}`;
  return {
    stream: body,
    contentType: format === 'zip' ? 'application/zip' : 'application/octet-stream',
    fileName,
    headers: {
      'content-disposition': `attachment; filename="${fileName.replace(/["\\\r\n]/g, '_')}"`,
      'content-transfer-encoding': 'binary',
    },
  };
}
