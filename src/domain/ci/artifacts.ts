// Job artifacts in the domain: storing what the runner collected, reading them for the
// presenters, erasing them (a job's, a pipeline's), and the periodic expiry.
//
// Blob keys: `ci/artifacts/<jobId>/artifacts.zip`, `…/metadata.gz`, `…/report-<type>[.gz]`;
// `ci/traces/<jobId>.log` for the trace (see traces.ts).
import type { Readable } from 'node:stream';
import type { Container } from '../context.js';
import {
  artifactRowsOfJobs, deleteArtifactRow, deleteJobArtifactRows, expiredArtifacts, latestSuccessfulPipelineId,
  pipelineJobIdsAfter, setJobArtifactsExpireAt, upsertArtifact, type ArtifactRow,
} from '../../db/repos/ci_artifacts.js';
import { deleteTraceChunks, deleteTraceTimes } from '../../db/repos/ci_traces.js';
import { getSettings } from '../settings/service.js';
import { nowIso } from '../../shared/time.js';
import { traceBlobKey } from './traces.js';

export type { ArtifactRow } from '../../db/repos/ci_artifacts.js';

export const artifactsPrefix = (jobId: number): string => `ci/artifacts/${jobId}/`;

/**
 * The reference's format of each file type (Enums::Ci::JobArtifact): the archive is a zip, its
 * metadata and test/coverage reports gzip, security and other reports raw.
 */
const GZIP_REPORTS = new Set(['junit', 'metrics', 'dotenv', 'cobertura', 'jacoco', 'cyclonedx', 'annotations', 'repository_xray']);
export function fileFormatOf(fileType: string): 'zip' | 'gzip' | 'raw' {
  if (fileType === 'archive' || fileType === 'lsif' || fileType === 'scip') return 'zip';
  if (fileType === 'metadata' || GZIP_REPORTS.has(fileType)) return 'gzip';
  return 'raw';
}

/** Where a job's artifact of a file type lives (the shown filename may hold any characters; keys may not). */
export function artifactBlobKey(jobId: number, fileType: string): string {
  if (fileType === 'archive') return `${artifactsPrefix(jobId)}artifacts.zip`;
  if (fileType === 'metadata') return `${artifactsPrefix(jobId)}metadata.gz`;
  if (!/^[a-z_]+$/.test(fileType)) throw new Error(`invalid artifact file type ${JSON.stringify(fileType)}`);
  return `${artifactsPrefix(jobId)}report-${fileType}${fileFormatOf(fileType) === 'gzip' ? '.gz' : ''}`;
}

export interface StoredArtifactInput {
  fileType: string;
  /** The name shown in the Job shape (`artifacts.zip`, `metadata.gz`, `junit.xml.gz`, `gl-sast-report.json`). */
  filename: string;
  /** Defaults to the reference's format of the file type. */
  fileFormat?: string;
  body: Readable | Buffer;
  expireAt: string | null;
}

/** Stores one artifact of a job: the blob, then its row (replacing one of the same type). */
export async function storeArtifact(c: Container, job: { id: number; project_id: number }, a: StoredArtifactInput): Promise<ArtifactRow> {
  const key = artifactBlobKey(job.id, a.fileType);
  const stat = await c.storage.put(key, a.body);
  return upsertArtifact(c.db, {
    job_id: job.id,
    project_id: job.project_id,
    file_type: a.fileType,
    file_format: a.fileFormat ?? fileFormatOf(a.fileType),
    filename: a.filename,
    size: stat.size,
    blob_key: key,
    expire_at: a.expireAt,
    created_at: nowIso(),
  });
}

/** The job row's artifacts_expire_at, shown in the Job shape. */
export const recordArtifactsExpireAt = (c: Container, jobId: number, expireAt: string | null): Promise<void> =>
  setJobArtifactsExpireAt(c.db, jobId, expireAt);

/** Artifacts of many jobs in one query (for presenters); jobs without any are absent from the map. */
export async function artifactsOfJobs(c: Container, jobIds: number[]): Promise<Map<number, ArtifactRow[]>> {
  const out = new Map<number, ArtifactRow[]>();
  for (const row of await artifactRowsOfJobs(c.db, [...new Set(jobIds)])) {
    const list = out.get(row.job_id);
    if (list) list.push(row);
    else out.set(row.job_id, [row]);
  }
  return out;
}

async function deleteBlobs(c: Container, jobId: number, rows: ArtifactRow[], withTrace: boolean): Promise<void> {
  for (const r of rows) await c.storage.delete(r.blob_key);
  await c.storage.deletePrefix(artifactsPrefix(jobId));
  if (withTrace) await c.storage.delete(traceBlobKey(jobId));
}

/** Erase: every artifact of the job, its trace included (rows, chunks, blobs). Sets nothing on the job. */
export async function eraseJobArtifacts(c: Container, jobId: number): Promise<void> {
  const rows = await deleteJobArtifactRows(c.db, jobId, { keepTrace: false });
  await deleteTraceChunks(c.db, jobId);
  await deleteTraceTimes(c.db, jobId);
  await deleteBlobs(c, jobId, rows, true);
}

const PIPELINE_BATCH = 500;

/**
 * Before a pipeline's rows are deleted: removes the blobs (artifacts and traces) of every job
 * of the pipeline, walking the jobs in batches. The rows go with the pipeline (cascade).
 */
export async function deletePipelineBlobs(c: Container, pipelineId: number): Promise<void> {
  for (let after = 0; ;) {
    const ids = await pipelineJobIdsAfter(c.db, pipelineId, after, PIPELINE_BATCH);
    if (ids.length === 0) return;
    const rows = await artifactsOfJobs(c, ids);
    for (const id of ids) await deleteBlobs(c, id, rows.get(id) ?? [], true);
    after = ids[ids.length - 1];
  }
}

// ---- expiry ----

export const ARTIFACTS_EXPIRE_JOB = 'ci_expire_artifacts';
/** How often expired artifacts are removed (the reference's worker runs every 7 minutes). */
export const ARTIFACTS_EXPIRE_EVERY_MS = 7 * 60_000;
const EXPIRE_BATCH = 200;

/**
 * Removes artifacts (never traces) whose expire_at has passed, rows and blobs. With the instance
 * setting keep_latest_artifact, the artifacts of each ref's latest successful pipeline are kept
 * whatever their expiry (the reference's documented rule: "the artifacts of the most recent
 * successful pipeline for each Git ref are locked against deletion"); they go once a newer
 * pipeline of the ref succeeds, or the setting is turned off. Returns how many rows went.
 */
export async function expireArtifacts(c: Container, now = nowIso()): Promise<number> {
  const keepLatest = (await getSettings(c)).keep_latest_artifact === true;
  const latest = new Map<string, number | null>();
  let removed = 0;
  let after: { expireAt: string; id: number } | null = null;
  for (;;) {
    const batch = await expiredArtifacts(c.db, now, after, EXPIRE_BATCH);
    for (const a of batch) {
      if (keepLatest) {
        const k = `${a.project_id}\u0000${a.ref}`;
        if (!latest.has(k)) latest.set(k, await latestSuccessfulPipelineId(c.db, a.project_id, a.ref));
        if (latest.get(k) === a.pipeline_id) continue; // the ref's latest successful pipeline
      }
      await deleteArtifactRow(c.db, a.id);
      await c.storage.delete(a.blob_key);
      removed += 1;
    }
    if (batch.length < EXPIRE_BATCH) return removed;
    const last = batch[batch.length - 1];
    after = { expireAt: last.expire_at!, id: last.id };
  }
}

