// A job's dependencies: the archives of earlier jobs, unpacked into its workspace before its
// script runs, as the reference's runner downloads them. Which jobs: those in `needs` (with
// `artifacts: true`), else those named in `dependencies`, else every job of an earlier stage;
// `dependencies` narrows `needs` further. Only the pipeline's current (not retried) jobs count.
//
// The zip reader covers what Anvil's archives hold (stored or deflated entries, directories,
// symlinks; no zip64) and unpacks with bounded memory. Nothing is written outside the workspace:
// no absolute or `..` paths, no writing through a symlink, and symlinks only to targets inside.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { PlannedJob } from '../../ci/config/types.js';
import type { Container } from '../context.js';
import { entryDataStart, zipEntries, type ReadAt } from '../../ci/artifacts/zip.js';
import { findJobArtifact } from '../../db/repos/ci_artifacts.js';
import { latestJobsOfPipeline, type JobRow } from '../../db/repos/ci_jobs.js';

/** The jobs whose artifacts this job gets, in stage order. */
export async function dependencyJobs(c: Container, job: JobRow, plan: PlannedJob): Promise<JobRow[]> {
  const jobs = (await latestJobsOfPipeline(c.db, job.pipeline_id)).filter((j) => j.id !== job.id && j.type === 'build');
  let chosen: JobRow[];
  if (plan.needs) {
    const wanted = new Set(plan.needs.filter((n) => n.artifacts !== false).map((n) => n.job));
    chosen = jobs.filter((j) => wanted.has(j.name));
  } else {
    chosen = jobs.filter((j) => j.stage_idx < job.stage_idx);
  }
  if (plan.dependencies) {
    const named = new Set(plan.dependencies);
    chosen = chosen.filter((j) => named.has(j.name));
  }
  return chosen;
}

/**
 * Unpacks the archives of the job's dependencies into `workspace`; returns the trace lines.
 * `tmpDir` holds each downloaded archive while it is unpacked.
 */
export async function downloadDependencies(c: Container, job: JobRow, plan: PlannedJob, workspace: string, tmpDir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const dep of await dependencyJobs(c, job, plan)) {
    const archive = await findJobArtifact(c.db, dep.id, 'archive');
    if (!archive) continue;
    const body = await c.storage.get(archive.blob_key);
    if (!body) continue;
    lines.push(`Downloading artifacts for ${dep.name} (${dep.id})...`);
    await fsp.mkdir(tmpDir, { recursive: true, mode: 0o700 });
    const file = path.join(tmpDir, `dependency-${dep.id}.zip`);
    await pipeline(body, fs.createWriteStream(file, { mode: 0o600 }));
    try {
      const skipped = await unzipInto(file, workspace);
      lines.push(`Downloading artifacts from coordinator... ok        id=${dep.id} responseStatus=200 OK`);
      for (const s of skipped) lines.push(`WARNING: ${s}: not extracted (outside the build directory)`);
    } finally {
      await fsp.rm(file, { force: true });
    }
  }
  return lines;
}

/** Reads from the open archive at a position. */
export function readerOf(fh: fsp.FileHandle): ReadAt {
  return async (position, length) => {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  };
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

const within = (root: string, p: string): boolean => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** Unpacks a zip into `dir`; returns the entry names it refused. */
export async function unzipInto(zipFile: string, dir: string): Promise<string[]> {
  const root = await fsp.realpath(dir);
  const skipped: string[] = [];
  const fh = await fsp.open(zipFile, 'r');
  try {
    const readAt = readerOf(fh);
    const entries = await zipEntries(readAt, (await fh.stat()).size);
    if (!entries) throw new Error('not a zip archive');
    for (const e of entries) {
      const name = e.path.replace(/\/+$/, '');
      const target = path.resolve(root, name);
      if (!name || path.isAbsolute(e.path) || !within(root, target) || target === root) {
        skipped.push(e.path);
        continue;
      }
      const isDir = e.path.endsWith('/') || (e.mode & S_IFMT) === S_IFDIR;
      await fsp.mkdir(isDir ? target : path.dirname(target), { recursive: true });
      // The folder it goes in must really be inside (not reached through a symlink out).
      const parent = await fsp.realpath(isDir ? target : path.dirname(target));
      if (!within(root, parent)) {
        skipped.push(e.path);
        continue;
      }
      if (isDir) continue;
      const start = await entryDataStart(readAt, e);
      if (start === null) throw new Error('corrupt zip entry');
      const raw = fh.createReadStream({ start, end: start + e.compressedSize - 1, autoClose: false });
      const data = e.compressedSize === 0 ? null : e.method === 8 ? raw.pipe(zlib.createInflateRaw()) : e.method === 0 ? raw : null;
      if (e.compressedSize > 0 && data === null) throw new Error(`unsupported zip compression method ${e.method}`);
      await fsp.rm(target, { force: true, recursive: false }).catch(() => undefined);
      if ((e.mode & S_IFMT) === S_IFLNK) {
        const chunks: Buffer[] = [];
        if (data) for await (const b of data) chunks.push(b as Buffer);
        const link = Buffer.concat(chunks).toString('utf8');
        if (!within(root, path.resolve(path.dirname(target), link))) {
          skipped.push(e.path);
          continue;
        }
        await fsp.symlink(link, target);
        continue;
      }
      const perm = e.mode & 0o777 || 0o644;
      const out = await fsp.open(target, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, perm);
      const ws = out.createWriteStream();
      if (data) await pipeline(data, ws);
      else await new Promise<void>((resolve, reject) => ws.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }
  } finally {
    await fh.close();
  }
  return skipped;
}
