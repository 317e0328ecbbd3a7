// Repository files: read one (metadata with content, or its raw bytes streamed) and create, update
// or delete one as a commit. Writes are commits like any other (commitActions): the same
// protection checks and the same published ref change.
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { Container } from '../context.js';
import { blame, type BlameRun } from '../../git/blame.js';
import { lastCommitFor } from '../../git/log.js';
import { blobAt, blobStream, readBlob, readCommit } from '../../git/objects.js';
import type { Actor } from '../auth/actor.js';
import { invalidParams, notFound } from '../errors.js';
import { commitActions, decodeContent, readableRepository, writableRepository, type ActionInput } from './commits.js';
import { ensureCommitGraph } from './statistics.js';
import { checkRateLimit, settingRule } from '../shared/rate_limit.js';

export interface FileView {
  file_name: string;
  file_path: string;
  size: number;
  encoding: 'base64';
  content_sha256: string;
  ref: string;
  blob_id: string;
  commit_id: string;
  last_commit_id: string;
  execute_filemode: boolean;
}

/** The reference's file_path validator: no traversal, no empty path. */
function checkFilePath(p: string): string {
  const parts = p.split('/');
  if (p === '' || p.includes('\0') || parts.includes('..')) throw invalidParams('file_path should be a valid file path');
  return p;
}

async function locate(c: Container, actor: Actor | null, idOrPath: number | string, filePath: string, ref: string | undefined) {
  checkFilePath(filePath);
  const repo = await readableRepository(c, actor, idOrPath);
  const name = ref || repo.row.default_branch || 'HEAD';
  const commit = await readCommit(repo.dir, name);
  if (!commit) throw notFound('Commit');
  const blob = await blobAt(repo.dir, commit.id, filePath);
  if (!blob) throw notFound('File');
  await ensureCommitGraph(c, repo.row.id, repo.dir); // for the file's last commit
  return { repo, ref: name, commit, blob };
}

async function viewOf(dir: string, ref: string, commitId: string, blob: { sha: string; path: string; mode: string; size: number | null }, content: Buffer): Promise<FileView> {
  return {
    file_name: blob.path.split('/').pop()!,
    file_path: blob.path,
    size: blob.size ?? content.length,
    encoding: 'base64',
    content_sha256: crypto.createHash('sha256').update(content).digest('hex'),
    ref,
    blob_id: blob.sha,
    commit_id: commitId,
    last_commit_id: (await lastCommitFor(dir, commitId, blob.path)) ?? commitId,
    execute_filemode: blob.mode === '100755',
  };
}

/** A file's metadata and its content (base64), as `GET …/files/:file_path` shows it. */
export async function getFile(c: Container, actor: Actor | null, idOrPath: number | string, filePath: string, ref: string): Promise<FileView & { content: string }> {
  const { repo, ref: name, commit, blob } = await locate(c, actor, idOrPath, filePath, ref);
  const content = await readBlob(repo.dir, blob.sha);
  return { ...(await viewOf(repo.dir, name, commit.id, blob, content)), content: content.toString('base64') };
}

/**
 * Who last changed each line, as runs of lines from one commit (`range`: lines start..end, 1-based).
 * A range past the file's end is the reference's 400.
 */
export async function blameFile(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  filePath: string,
  ref: string,
  range?: { start: number; end: number },
): Promise<BlameRun[]> {
  if (range && range.end < range.start) throw invalidParams('range[end] should be greater than or equal to range[start]');
  const { repo, commit, blob } = await locate(c, actor, idOrPath, filePath, ref);
  if (range) {
    const content = await readBlob(repo.dir, blob.sha);
    const lines = content.length === 0 ? 0 : content.toString('latin1').split('\n').length - (content[content.length - 1] === 10 ? 1 : 0);
    if (range.start > lines) throw invalidParams('range[start] is outside the file');
    range = { start: range.start, end: Math.min(range.end, lines) };
  }
  return blame(repo.dir, commit.id, blob.path, range);
}

/** The metadata as headers (the reference's X-…-File-Name style, with the neutral prefix). */
export function fileHeaders(v: FileView): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    h[`x-service-${k.replace(/_/g, '-')}`] = String(val);
  }
  return h;
}

export interface RawFile {
  stream: Readable;
  contentType: string;
  size: number;
  headers: Record<string, string>;
}

/** Git's own test for binary content: a NUL in the first 8000 bytes. */
const looksBinary = (b: Buffer) => b.subarray(0, 8000).includes(0);

/** A file's raw bytes, streamed from git; the type is decided on the first chunk. */
export async function rawFile(c: Container, actor: Actor | null, idOrPath: number | string, filePath: string, ref: string | undefined): Promise<RawFile> {
  const { repo, commit, blob } = await locate(c, actor, idOrPath, filePath, ref);
  // raw_blob_request_limit: requests a minute for one file at one commit, whoever asks (the reference's scope).
  await checkRateLimit(c, await settingRule(c, 'raw_blob_request_limit'), `project:${repo.row.id}:${commit.id}:${blob.path}`);
  return rawBlobOf(repo.dir, blob, blob.path.split('/').pop()!);
}

/** A blob's raw bytes, streamed from git; the type is decided on the first chunk. `name`: the file name offered, if any. */
export async function rawBlobOf(dir: string, blob: { sha: string; size: number | null }, name: string | null): Promise<RawFile> {
  const { stdout, done, stop } = await blobStream(dir, blob.sha, blob.size);
  done.catch(() => undefined); // a failure shows as a short body; the status is already sent
  const it = stdout[Symbol.asyncIterator]();
  const first = await it.next();
  const head: Buffer = first.done ? Buffer.alloc(0) : (first.value as Buffer);
  async function* body() {
    if (head.length) yield head;
    for (;;) {
      const n = await it.next();
      if (n.done) return;
      yield n.value as Buffer;
    }
  }
  const stream = Readable.from(body());
  stream.on('close', stop); // a client that went away leaves no git behind
  const disposition = name === null ? 'inline' : `inline; filename="${name.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;
  return {
    stream,
    contentType: looksBinary(head) ? 'application/octet-stream' : 'text/plain; charset=utf-8',
    size: blob.size ?? 0,
    headers: { 'content-disposition': disposition, 'x-content-type-options': 'nosniff' },
  };
}

export interface FileWriteInput {
  branch: string;
  commit_message: string;
  start_branch?: string;
  content?: string;
  encoding?: 'text' | 'base64';
  author_email?: string;
  author_name?: string;
  execute_filemode?: boolean;
  last_commit_id?: string;
}

async function commitOne(c: Container, actor: Actor, idOrPath: number | string, actions: ActionInput[], input: FileWriteInput): Promise<{ file_path: string; branch: string }> {
  const filePath = checkFilePath(actions[0].filePath);
  const repo = await writableRepository(c, actor, idOrPath);
  await commitActions(c, actor, repo, {
    branch: input.branch,
    message: input.commit_message,
    actions,
    startBranch: input.start_branch,
    authorName: input.author_name,
    authorEmail: input.author_email,
    changedMessage: () => 'You are attempting to update a file that has changed since you started editing it.',
  });
  return { file_path: filePath, branch: input.branch };
}

const contentOf = (input: FileWriteInput) => decodeContent(input.content ?? '', input.encoding ?? 'text');

export const createFile = (c: Container, actor: Actor, idOrPath: number | string, filePath: string, input: FileWriteInput) =>
  commitOne(c, actor, idOrPath, [{ action: 'create', filePath, content: contentOf(input), executeFilemode: input.execute_filemode }], input);

/** An update; with execute_filemode, the mode changes in the same commit. */
export const updateFile = (c: Container, actor: Actor, idOrPath: number | string, filePath: string, input: FileWriteInput) =>
  commitOne(
    c,
    actor,
    idOrPath,
    [
      { action: 'update', filePath, content: contentOf(input), lastCommitId: input.last_commit_id },
      ...(input.execute_filemode !== undefined ? [{ action: 'chmod' as const, filePath, executeFilemode: input.execute_filemode }] : []),
    ],
    input,
  );

export async function deleteFile(c: Container, actor: Actor, idOrPath: number | string, filePath: string, input: FileWriteInput): Promise<void> {
  await commitOne(c, actor, idOrPath, [{ action: 'delete', filePath, lastCommitId: input.last_commit_id }], input);
}
