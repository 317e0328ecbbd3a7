// A registered runner's side of a job it took, authenticated by the job token: the log arriving
// in pieces at offsets (`PATCH /jobs/:id/trace`), the job's state (`PUT /jobs/:id`), artifacts
// uploaded and those of its dependencies downloaded. A job canceled through the API keeps its
// token until its runner reports the end, so the runner hears `canceling` and sends the rest
// of the log. A runner that stops contacting Anvil leaves its jobs running: after
// ANVIL_RUNNER_STUCK_SECONDS without an update they fail `stuck_or_timeout_failure` (the
// reference's stuck-jobs rule), their log kept.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Container } from '../context.js';
import { extractCoverage } from '../../ci/reports/coverage.js';
import { artifactTooLargeMessage, artifactsExpireAt, exceedsArtifactLimit } from '../../ci/artifacts/expire.js';
import { writeArchiveMetadata } from '../../ci/artifacts/metadata.js';
import { zipEntries } from '../../ci/artifacts/zip.js';
import { findJobArtifact } from '../../db/repos/ci_artifacts.js';
import { findCiJob, jobByTokenDigest, updateJob, type JobRow } from '../../db/repos/ci_jobs.js';
import { appendTraceAt, stuckRunnerBuilds } from '../../db/repos/runners.js';
import { fileFormatOf, recordArtifactsExpireAt, storeArtifact } from '../ci/artifacts.js';
import { dependencyJobs, readerOf } from '../ci/dependencies.js';
import { finishJob, jobPlan } from '../ci/state.js';
import { foldTrace, TraceWriter, traceText } from '../ci/traces.js';
import { getSettings } from '../settings/service.js';
import { badRequest, forbidden, invalidParams, notFound, payloadTooLarge } from '../errors.js';
import { digest } from '../shared/secrets.js';
import { nowIso } from '../../shared/time.js';
import { now as clockNow, nowDate } from '../../shared/clock.js';
import { FAILURE_REASONS } from './payload.js';

/** How often the runner should send the log (seconds): the reference's interval while someone watches. */
export const TRACE_UPDATE_INTERVAL_S = 3;
/** The job row's updated_at is refreshed at most this often by runner contact (stuck detection reads it). */
const TOUCH_EVERY_MS = 60_000;
const RED = '\x1b[31;1m';
const RESET = '\x1b[0;m';

/** A job as its runner sees it: `running`, or `canceling` (canceled, its runner not done yet). */
export interface RunnerJob {
  job: JobRow;
  remoteState: 'running' | 'canceling';
}

/**
 * The job of a job token, for its runner: 403 for an unknown token, another job's token, or a
 * job that ended (the runner stops it), as the reference's `authenticate_job!` answers.
 */
export async function authenticateRunnerJob(c: Container, jobId: number, token: unknown): Promise<RunnerJob> {
  if (typeof token !== 'string' || token === '') throw forbidden();
  const job = await jobByTokenDigest(c.db, digest(token));
  if (!job || job.id !== jobId || job.type !== 'build') throw forbidden();
  if (job.status === 'running') return { job, remoteState: 'running' };
  if (job.status === 'canceled') return { job, remoteState: 'canceling' };
  throw forbidden('Job is not running');
}

/**
 * A job that may still store things (artifacts): a running one. A canceled job's runner may still
 * report its end and its log, nothing more (403 with its Job-Status, as the reference's job_forbidden!).
 */
export function requireRunning(rj: RunnerJob): void {
  if (rj.remoteState !== 'running') throw forbidden('Job is not running', { 'Job-Status': rj.job.status });
}

async function touchJob(c: Container, job: JobRow): Promise<void> {
  if (clockNow() - Date.parse(job.updated_at) < TOUCH_EVERY_MS) return;
  await updateJob(c.db, job.id, { updated_at: nowIso() });
}

export type TraceResult = { kind: 'appended'; size: number } | { kind: 'range'; size: number };

/** Parses `Content-Range: start-end` (end inclusive); null when malformed. */
export function parseContentRange(v: string | undefined): { start: number; end: number } | null {
  const m = /^(\d+)-(\d+)$/.exec((v ?? '').trim());
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2]);
  return end >= start ? { start, end } : null;
}

/**
 * Appends a piece of the log at its offset. A piece that does not start at the log's end is
 * refused with the stored length (416), so the runner sends again from there.
 */
export async function appendTrace(c: Container, rj: RunnerJob, contentRange: string | undefined, body: Buffer): Promise<TraceResult> {
  const job = rj.job;
  const range = contentRange === undefined ? { start: job.trace_bytes, end: job.trace_bytes + body.length - 1 } : parseContentRange(contentRange);
  if (!range) throw badRequest('Content-Range is invalid');
  const piece = body.subarray(0, range.end - range.start + 1);
  if (range.start !== job.trace_bytes) return { kind: 'range', size: job.trace_bytes };
  if (piece.length === 0) return { kind: 'appended', size: job.trace_bytes };
  const size = await appendTraceAt(c.db, job.id, range.start, piece, nowIso());
  if (size === null) {
    const now = await findCiJob(c.db, job.id);
    return { kind: 'range', size: now?.trace_bytes ?? 0 };
  }
  await touchJob(c, job);
  return { kind: 'appended', size };
}

export interface UpdateJobInput {
  state?: string;
  failure_reason?: string;
  exit_code?: number;
  output?: { checksum?: string; bytesize?: number };
}

export type UpdateResult = { status: 200 | 202; jobStatus: string };

/**
 * `PUT /jobs/:id`: `running` is a heartbeat; `success` / `failed` end the job once the whole log
 * arrived (202 until then, as the reference's two-phase commit answers): its log is folded, its
 * coverage read from it, and its status set (state.ts finishJob: retries, the pipeline moves on).
 */
export async function updateRunnerJob(c: Container, rj: RunnerJob, input: UpdateJobInput): Promise<UpdateResult> {
  const job = rj.job;
  const state = input.state;
  if (state !== undefined && !['running', 'success', 'failed'].includes(state)) throw invalidParams('state does not have a valid value');
  if (state === undefined || state === 'running') {
    await touchJob(c, job);
    return { status: 200, jobStatus: rj.remoteState };
  }
  const bytesize = input.output?.bytesize;
  if (typeof bytesize === 'number' && job.trace_bytes < bytesize) {
    await touchJob(c, job);
    return { status: 202, jobStatus: rj.remoteState };
  }
  await foldTrace(c, job);
  if (rj.remoteState === 'canceling') {
    // Canceled meanwhile: the status stays; the runner's token ends with its report.
    await updateJob(c.db, job.id, { token_digest: null });
    return { status: 200, jobStatus: 'canceled' };
  }
  const plan = jobPlan(job);
  const coverage = plan.coverage ? extractCoverage(await traceText(c, job.id), plan.coverage) : null;
  const failed = state === 'failed';
  const reason = failed ? (FAILURE_REASONS.includes(input.failure_reason ?? '') ? input.failure_reason! : 'unknown_failure') : null;
  const done = await finishJob(c, job.id, {
    status: failed ? 'failed' : 'success',
    failureReason: reason,
    exitCode: typeof input.exit_code === 'number' ? input.exit_code : null,
    coverage,
  });
  return { status: 200, jobStatus: done?.status ?? (await findCiJob(c.db, job.id))?.status ?? state };
}

export interface ArtifactUpload {
  file: { path: string; filename: string; size: number };
  metadata?: { path: string; filename: string; size: number } | null;
  artifact_type?: string;
  artifact_format?: string;
  expire_in?: string;
}

/** Writes the metadata of an uploaded archive (the reference's workhorse makes it from the zip). */
async function metadataOfZip(zipPath: string, outPath: string): Promise<boolean> {
  const fh = await fsp.open(zipPath, 'r');
  try {
    const entries = await zipEntries(readerOf(fh), (await fh.stat()).size);
    if (!entries) return false;
    const mtime = nowDate();
    await writeArchiveMetadata(
      outPath,
      entries.map((e) => ({
        path: e.path.replace(/\/$/, ''),
        mode: e.mode & 0o7777 || (e.path.endsWith('/') ? 0o755 : 0o644),
        mtime,
        size: e.size,
        type: e.path.endsWith('/') ? ('directory' as const) : (e.mode & 0o170000) === 0o120000 ? ('symlink' as const) : ('file' as const),
      })),
    );
    return true;
  } finally {
    await fh.close();
  }
}

/**
 * `POST /jobs/:id/artifacts`: stores an archive (with its metadata) or a report, as the built-in
 * runner stores what it collects (ci/artifacts.ts storeArtifact), so reports feed test reports,
 * coverage and vulnerabilities alike. 413 past max_artifacts_size.
 */
export async function uploadRunnerArtifact(c: Container, rj: RunnerJob, input: ArtifactUpload): Promise<void> {
  const job = rj.job;
  const type = input.artifact_type ?? 'archive';
  if (!/^[a-z_]+$/.test(type) || type === 'trace' || type === 'metadata') throw invalidParams('artifact_type does not have a valid value');
  const format = input.artifact_format ?? fileFormatOf(type);
  if (!['zip', 'gzip', 'raw'].includes(format)) throw invalidParams('artifact_format does not have a valid value');
  const settings = await getSettings(c);
  const maxMb = typeof settings.max_artifacts_size === 'number' ? settings.max_artifacts_size : null;
  if (exceedsArtifactLimit(input.file.size, maxMb)) {
    c.log.info({ job: job.id }, artifactTooLargeMessage(type));
    throw payloadTooLarge();
  }
  const defaultExpireIn = typeof settings.default_artifacts_expire_in === 'string' ? settings.default_artifacts_expire_in : null;
  const expireAt = artifactsExpireAt(input.expire_in ?? null, defaultExpireIn);
  const filename = input.file.filename || (type === 'archive' ? 'artifacts.zip' : type);
  await storeArtifact(c, job, { fileType: type, filename, fileFormat: format, body: fs.createReadStream(input.file.path), expireAt });
  if (type === 'archive') {
    const given = input.metadata?.path;
    const made = `${input.file.path}.metadata.gz`;
    const metadataPath = given ?? ((await metadataOfZip(input.file.path, made).catch(() => false)) ? made : null);
    if (metadataPath) {
      await storeArtifact(c, job, { fileType: 'metadata', filename: 'metadata.gz', body: fs.createReadStream(metadataPath), expireAt });
    }
    if (!given) await fsp.rm(made, { force: true });
  }
  await recordArtifactsExpireAt(c, job.id, expireAt);
}

/**
 * `GET /jobs/:id/artifacts` by a runner: the archive of job `id`, for the job token of that job
 * or of a job that depends on it (the reference's `authenticate_job_via_dependent_job!`).
 */
export async function dependencyArchive(c: Container, jobId: number, token: unknown): Promise<{ stream: Readable; size: number; filename: string }> {
  if (typeof token !== 'string' || token === '') throw forbidden();
  const current = await jobByTokenDigest(c.db, digest(token));
  if (!current || current.status !== 'running') throw forbidden();
  if (current.id !== jobId) {
    const deps = await dependencyJobs(c, current, jobPlan(current));
    if (!deps.some((d) => d.id === jobId)) throw forbidden();
  }
  const archive = await findJobArtifact(c.db, jobId, 'archive');
  const stream = archive ? await c.storage.get(archive.blob_key) : null;
  if (!archive || !stream) throw notFound();
  return { stream, size: Number(archive.size), filename: archive.filename };
}

/** The background job that fails stuck jobs, and how often it runs: a minute, or half the stuck time when that is shorter. */
export const RUNNER_STUCK_SWEEP_JOB = 'runner_stuck_sweep';
export const stuckSweepEveryMs = (c: Container): number => Math.min(60_000, c.config.runnerStuckSeconds * 500);

/**
 * Fails the running jobs of registered runners that sent nothing for ANVIL_RUNNER_STUCK_SECONDS:
 * their runner is gone. The log so far is kept, with a line saying why.
 */
export async function failStuckRunnerJobs(c: Container): Promise<number> {
  const before = new Date(clockNow() - c.config.runnerStuckSeconds * 1000).toISOString();
  let failed = 0;
  for (const j of await stuckRunnerBuilds(c.db, before, 200)) {
    const done = await finishJob(c, j.id, { status: 'failed', failureReason: 'stuck_or_timeout_failure', exitCode: null, coverage: null });
    if (!done) continue;
    failed += 1;
    const trace = await TraceWriter.open(c, j.id, { flushMs: 60_000 });
    trace.note(`${RED}ERROR: Job failed: the runner of this job stopped contacting the server (stuck or timed out)${RESET}`);
    await trace.close();
    await foldTrace(c, j);
  }
  return failed;
}
