// Project import (POST /projects/import, remote-import, remote-import-objstore; GET
// /projects/:id/import). The request creates the project (import_status `scheduled`) and stores
// the uploaded archive as a blob, or, for a remote or object-store archive, checks what it can
// (address, length, type) and leaves the download to the job, as the reference's worker does.
// The background job reads the archive with the safe reader into a fresh folder,
// checks VERSION, fetches the bundle (hooks off, objects checked) and writes every relation
// Anvil models in ONE transaction, so an import lands whole or not at all. A record that cannot
// be saved becomes a failed relation; a malformed file, a bad VERSION or a hostile archive fail
// the whole import, leaving the project empty with the reason in import_error.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Container } from '../context.js';
import {
  claimImportRun, deleteProtectedBranches, deleteProtectedTags, endImportRun, findImport, holdsImportRun, importFailures, insertImport, insertImportFailure, insertImportedPipeline,
  insertProjectCustomAttribute, insertProjectMember, patchImportedProject, insertProtectedBranchRow, insertProtectedTagRow, lastPipelineIid, setImportState, updateImport,
  usersByEmailOrUsername, type Db, type ImportFailureRow, type ProjectImportRow,
} from '../../db/repos/project_import_export.js';
import { inTransaction } from '../../db/transaction.js';
import { destroyProjectRows } from '../../db/repos/project_lifecycle.js';
import { findNamespaceById } from '../../db/repos/namespaces.js';
import { findUserById } from '../../db/repos/users.js';
import { findProjectById, updateProject as updateProjectRow, type ProjectRow } from '../../db/repos/projects.js';
import { fetchBundle, type FetchedBundle } from '../../git/bundle.js';
import { isValidBranchName, setHeadBranch } from '../../git/refs.js';
import { branchNames } from '../../git/ref_files.js';
import { readCommit } from '../../git/objects.js';
import { initBare, removeRepository, resolveRevision } from '../../git/repository.js';
import { checkVersion, FILES, relationFile, VersionError } from '../../import_export/format.js';
import { NdjsonFormatError, readNdjson } from '../../import_export/ndjson.js';
import { ArchiveError, counter, DEFAULT_LIMITS, readArchive } from '../../import_export/reader.js';
import type { Actor } from '../auth/actor.js';
import { apiError, DomainError, forbidden, notFound } from '../errors.js';
import { ACCESS } from '../members/policy.js';
import { getNamespace } from '../namespaces/service.js';
import { PROJECT_DESTROY_JOB } from '../projects/lifecycle.js';
import { canAdminProject } from '../projects/policy.js';
import { findProject } from '../projects/find.js';
import { createProject, projectSettings, settingsPatch, view, type ProjectView } from '../projects/service.js';
import { repositoryDir } from '../repository/service.js';
import { scheduleRepositoryRefresh } from '../repository/statistics.js';
import { getSettings } from '../settings/service.js';
import { checkApiRateLimit, settingRule } from '../shared/rate_limit.js';
import { nowIso } from '../../shared/time.js';
import type { IncomingFile } from '../projects/files.js';
import { OutboundFailed, OutboundRefused, redactedUrl } from '../../outbound/request.js';
import { insertBadge } from '../../db/repos/badges.js';
import { openStream, type StreamResponse } from '../../outbound/stream.js';
import { decryptSecret, encryptSecret } from '../shared/encryption.js';
import { outboundPolicy } from '../hooks/delivery.js';
import { mapsImportedMembers } from './policy.js';
import {
  badgeFrom, checkRecordValues, ciCdSettingsPatch, customAttributeFrom, memberFrom, overrideSettings, pipelineFrom, projectFeaturePatch, projectPatchFrom, protectedBranchFrom, protectedTagFrom, RecordError,
  type ExportedMember,
} from './relations.js';

export const PROJECT_IMPORT_JOB = 'project_import';
/** The import source kind an admin must allow in import_sources. */
const SOURCE = 'gitlab_project';
/** At most this many failed relations are shown, newest first. */
const MAX_FAILED_RELATIONS = 100;
/** Records one relation file may hold; more fails the import (nothing is read whole, but a transaction has its limits). */
const MAX_RELATION_ROWS = 100_000;
/** Records read between two turns of the event loop. */
const RECORDS_PER_YIELD = 50;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

// ---- requests ----

export interface ImportRequest {
  path: string;
  namespace?: string | number;
  name?: string;
  overwrite?: boolean;
  override_params?: Record<string, unknown>;
}

export interface ImportStatusView {
  project: ProjectView;
  correlationId: string | null;
  failures: ImportFailureRow[];
}

/**
 * What the archive comes from: a file of the request, or a URL the job downloads through the
 * outbound checks (remote-import; a pre-signed URL for remote-import-objstore).
 */
export type ArchiveSource = { file: IncomingFile } | { url: string };

/** Every import endpoint, the status included, answers 403 unless import_sources allows project archives. */
async function checkImportSource(c: Container): Promise<void> {
  if (!((await getSettings(c)).import_sources as string[]).includes(SOURCE)) throw forbidden();
}

/**
 * Before an import starts: the allowed sources, then (remote-import-objstore) whether that
 * endpoint is switched on (404 as the reference's feature flag off), then the per-user limit.
 */
export async function checkImportAllowed(c: Container, actor: Actor, opts: { objstore?: boolean } = {}): Promise<void> {
  await checkImportSource(c);
  if (opts.objstore && !c.config.remoteImportObjstoreEnabled) throw notFound();
  await checkApiRateLimit(c, await settingRule(c, 'project_import_limit'), `user:${actor.user.id}`);
}

/** The archive may be at most max_import_size MB (0: no limit). */
export async function checkImportSize(c: Container, size: number): Promise<void> {
  const maxMb = Number((await getSettings(c)).max_import_size);
  if (maxMb > 0 && size > maxMb * 1024 * 1024) throw apiError('413 Request Entity Too Large', 413);
}

/**
 * Creates the project to import into (scheduled), stores the archive and queues the job. With
 * `overwrite` and a project at that path the caller may administer, the import goes into a new
 * project that takes the old one's place once it has finished.
 */
export async function requestImport(c: Container, actor: Actor, input: ImportRequest, source: ArchiveSource, importUrl: string | null = null): Promise<ImportStatusView> {
  if ('file' in source) await checkImportSize(c, source.file.size);
  const ns = input.namespace !== undefined && input.namespace !== '' ? (await getNamespace(c, actor, input.namespace)).row : null;
  const nsRow = ns ?? (actor.user.namespace_id !== null ? (await getNamespace(c, actor, actor.user.namespace_id)).row : null);
  if (!nsRow) throw notFound('Namespace');
  const name = input.name || input.path;

  let replaces: ProjectRow | null = null;
  if (input.overwrite) {
    try {
      const existing = await findProject(c, actor, `${nsRow.full_path}/${input.path}`);
      if (existing.row.namespace_id === nsRow.id && existing.row.path.toLowerCase() === input.path.toLowerCase() && canAdminProject(existing.access)) {
        replaces = existing.row;
      }
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
    }
  }
  const suffix = crypto.randomBytes(6).toString('hex');
  let created: ProjectView;
  try {
    created = await createProject(c, actor, {
      name: replaces ? `${name}-${suffix}` : name,
      path: replaces ? `${input.path}-${suffix}-import` : input.path,
      namespace_id: nsRow.id,
    });
  } catch (err) {
    // The reference answers a project that cannot be created with its first error message.
    if (err instanceof DomainError && err.detail.kind === 'validation') {
      const [field, messages] = Object.entries(err.detail.messages)[0] ?? ['base', ['is invalid']];
      const first = Array.isArray(messages) ? messages[0] : Object.values(messages)[0]?.[0];
      throw apiError(`${field === 'base' ? '' : `${field[0]!.toUpperCase()}${field.slice(1).replace(/_/g, ' ')} `}${first ?? 'is invalid'}`);
    }
    throw err;
  }
  const projectId = created.row.id;
  const key = `imports/${projectId}/${suffix}.tar.gz`;
  if ('file' in source) {
    try {
      await c.storage.put(key, fs.createReadStream(source.file.path));
    } catch (err) {
      await destroyProjectRows(c.db, projectId);
      removeRepository(repositoryDir(c, projectId));
      throw err;
    }
  }
  const now = nowIso();
  const correlationId = crypto.randomBytes(16).toString('hex');
  await inTransaction(c.db, async (tx) => {
    await insertImport(tx, {
      project_id: projectId, user_id: actor.user.id, correlation_id: correlationId, archive_key: key,
      source_url_encrypted: 'url' in source ? encryptSecret(c.config.secretKey, source.url) : null,
      override_params: JSON.stringify(input.override_params ?? {}), replaces_project_id: replaces?.id ?? null,
      original_path: replaces ? input.path : null, original_name: replaces ? name : null, created_at: now, updated_at: now,
    });
    await patchImportedProject(tx, projectId, { import_type: SOURCE, import_status: 'scheduled', import_url: importUrl, import_error: null, updated_at: now });
    await c.queue.enqueue(PROJECT_IMPORT_JOB, { projectId }, { trx: tx, maxAttempts: 3 });
  });
  return importStatus(c, actor, (await findProjectById(c.db, projectId))!);
}

export interface ObjstoreSource {
  region: string;
  bucket_name: string;
  file_key: string;
  access_key_id: string;
  secret_access_key: string;
}

const REGION = /^[a-z0-9-]{1,64}$/;
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** The reference signs the object's URL for 28 hours: longer than an import may wait and take. */
const OBJSTORE_URL_SECONDS = 28 * 3600;

/**
 * POST /projects/remote-import-objstore (python-gitlab: /projects/remote-import-s3): as the
 * reference, the object is checked now (it exists, its length and type) and the job downloads it
 * through a pre-signed URL; both go through src/outbound. The credentials only sign: they are
 * never stored, the signed URL is (encrypted, until the download).
 */
export async function requestObjstoreImport(c: Container, actor: Actor, input: ImportRequest, src: ObjstoreSource): Promise<ImportStatusView> {
  if (!REGION.test(src.region)) throw apiError('region is invalid');
  if (!BUCKET.test(src.bucket_name)) throw apiError('bucket_name is invalid');
  // loaded on first use: the S3 SDK is large, and start-up does not need it
  const { presignS3Object } = await import('../../storage/s3.js');
  const bucket = {
    bucket: src.bucket_name, region: src.region, endpoint: c.config.remoteImportS3Endpoint, accessKeyId: src.access_key_id, secretAccessKey: src.secret_access_key,
  };
  const where = `'${src.file_key}' in '${src.bucket_name}'`;
  const head = await remoteHeaders(c, await presignS3Object(bucket, src.file_key, 'HEAD', 60), (reason) => `Failed to open ${where}: ${reason}`);
  if (head.status === 404) throw apiError(`File not found ${where}`);
  if (head.status < 200 || head.status >= 300) throw apiError(`Failed to open ${where}: ${head.status} ${head.statusText}`.trim());
  await checkRemoteFile(c, head.headers);
  return requestImport(c, actor, input, { url: await presignS3Object(bucket, src.file_key, 'GET', OBJSTORE_URL_SECONDS) });
}

/** The types the reference accepts from a remote archive's server. */
const REMOTE_TYPES = ['application/gzip', 'application/x-tar', 'application/x-gzip'];

/** A remote archive may be at most 10 GiB (the reference's limit, which it writes "10 GB"). */
export const REMOTE_MAX_BYTES = 10 * 1024 ** 3;

/**
 * The headers of a remote archive, from a HEAD through the outbound checks (the reference asks
 * with a HEAD too, before the project exists). A refused address or a failed exchange is a 400.
 */
async function remoteHeaders(c: Container, url: string, failed: (reason: string) => string): Promise<{ status: number; statusText: string; headers: Record<string, string> }> {
  try {
    const res = await openStream(url, await outboundPolicy(c, 'project'), { method: 'HEAD', connectTimeoutMs: 5000, idleTimeoutMs: 10_000 });
    res.body.resume();
    return { status: res.status, statusText: res.body.statusMessage ?? '', headers: res.headers };
  } catch (err) {
    if (err instanceof OutboundRefused) throw apiError(`File url is blocked: ${err.message}`);
    if (err instanceof OutboundFailed) throw apiError(failed(err.message));
    throw err;
  }
}

/** The reference's RemoteFileValidator: a length from 1 byte to 10 GB, then a gzip or tar type; and max_import_size. */
async function checkRemoteFile(c: Container, headers: Record<string, string>): Promise<void> {
  const length = /^\d+$/.test(headers['content-length'] ?? '') ? Number(headers['content-length']) : 0;
  if (length <= 0) throw apiError('Content length is too small (should be at least 1 Byte)');
  if (length > REMOTE_MAX_BYTES) throw apiError('Content length is too big (should be at most 10 GB)');
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!REMOTE_TYPES.includes(type)) throw apiError(`Content type '${type}' not allowed. (Allowed: ${REMOTE_TYPES.join(', ')})`);
  await checkImportSize(c, length);
}

/**
 * POST /projects/remote-import: the archive at a URL the caller gave. Its headers are checked now
 * (a HEAD through src/outbound: address, length, type); the job downloads it, through src/outbound
 * as well, and checks again what it receives.
 */
export async function requestRemoteImport(c: Container, actor: Actor, input: ImportRequest, url: string): Promise<ImportStatusView> {
  const head = await remoteHeaders(c, url, (reason) => `Failed to retrive headers: ${reason}`); // sic: the reference's words
  await checkRemoteFile(c, head.headers);
  return requestImport(c, actor, input, { url }, redactedUrl(url));
}

async function importStatus(c: Container, actor: Actor, row: ProjectRow): Promise<ImportStatusView> {
  const imp = await findImport(c.db, row.id);
  return {
    project: await view(c, actor, row, { full: false }),
    correlationId: imp?.correlation_id ?? null,
    failures: imp ? await importFailures(c.db, row.id, imp.correlation_id, MAX_FAILED_RELATIONS) : [],
  };
}

/** GET /projects/:id/import: whoever may read the project, as in the reference. */
export async function getImportStatus(c: Container, actor: Actor, idOrPath: number | string): Promise<ImportStatusView> {
  await checkImportSource(c);
  const { row } = await findProject(c, actor, idOrPath);
  return importStatus(c, actor, row);
}

// ---- the job ----

/** The import's working folder; each run works in a folder of its own inside it. */
const workDir = (c: Container, projectId: number) => path.join(c.config.dataDir, 'tmp', `import-${projectId}`);

/** A failure that ends the import with this message in import_error. */
class ImportError extends Error {}

/** Another run of the job holds the import now (this one's lease ran out): it stops and leaves everything to that one. */
class Superseded extends Error {}

/** What the job tells the import: its attempt, and the signal that this worker lost the job's lease. */
export interface ImportJobInfo {
  attempts: number;
  maxAttempts: number;
  signal?: AbortSignal;
}

/**
 * Imports the archive. Idempotent: each run claims the import with a token of its own, and only
 * the run that still holds it may end it (the database part is one transaction that also marks
 * the import finished, so it lands at most once). A run cut short is started over by the next; a
 * run whose lease ran out while it worked, and that another run took over, stops without a
 * trace; a run after the import ended only finishes what is left (the overwrite swap, the
 * archive's removal).
 */
export async function runImport(c: Container, payload: { projectId: number }, job: ImportJobInfo = { attempts: 1, maxAttempts: 1 }): Promise<void> {
  const project = await findProjectById(c.db, payload.projectId);
  const imp = project ? await findImport(c.db, project.id) : undefined;
  if (!project || !imp) return;
  const token = crypto.randomBytes(12).toString('hex');
  const ended = imp.ended_at !== null || project.import_status === 'finished' || project.import_status === 'failed';
  if (ended || !(await claimImportRun(c.db, project.id, token, nowIso()))) return afterEnd(c, project.id);
  // Still `started`: every earlier run was cut short (a run that fails records it). On the last
  // attempt the import is not tried again: it may be what stopped the server.
  if (project.import_status === 'started' && job.attempts >= job.maxAttempts) {
    c.log.error({ projectId: project.id, attempts: job.attempts }, 'an import was cut short on each attempt; it has failed for good');
    return failImport(c, project, token, `The import stopped before it finished ${job.attempts - 1} times (the server ran out of memory or restarted); it is not tried again`);
  }
  await setImportState(c.db, project.id, { import_status: 'started', updated_at: nowIso() });

  const repo = repositoryDir(c, project.id);
  const dir = path.join(workDir(c, project.id), token);
  const stillMine = () => {
    job.signal?.throwIfAborted();
  };
  try {
    await clearOtherRuns(c, project.id, token);
    await fs.promises.mkdir(path.dirname(dir), { recursive: true });
    if (imp.source_url_encrypted) await downloadArchive(c, imp);
    stillMine();
    const open = async () => {
      const body = imp.archive_key ? await c.storage.get(imp.archive_key) : null;
      if (!body) throw new ImportError('The import file is missing');
      return body;
    };
    await readArchive(open, dir, DEFAULT_LIMITS);
    checkVersion(await readText(path.join(dir, FILES.version), 1024));

    const attributes = await readProjectTree(dir);
    // override_params win over the archive; empty strings are dropped, as the reference does
    const overrideInput = overrideSettings(Object.fromEntries(Object.entries(JSON.parse(imp.override_params) as Record<string, unknown>).filter(([, v]) => v !== '')));
    const { visibility_level: overrideVisibility, ...override } = settingsPatch(overrideInput) as Partial<ProjectRow>;

    // The repository and the files first: the database rows land last, in one transaction.
    stillMine();
    if (!(await holdsImportRun(c.db, project.id, token))) throw new Superseded();
    removeRepository(repo);
    const branchOf = (v: unknown) => (typeof v === 'string' && isValidBranchName(v) ? v : undefined);
    const defaultBranch = branchOf(override.default_branch) ?? branchOf(attributes.default_branch) ?? project.default_branch ?? 'main';
    await initBare(repo, defaultBranch);
    let fetched: FetchedRepository = { head: null, dropped: [] };
    if (isFile(path.join(dir, FILES.bundle))) fetched = await fetchBranches(c, repo, path.join(dir, FILES.bundle), defaultBranch);
    stillMine();
    const avatar = await restoreFiles(c, project.id, dir);
    await restoreRelations(c, project, imp.user_id, imp.correlation_id, dir, {
      attributes, override: { ...override, ...(avatar ? { avatar_path: avatar } : {}) }, overrideVisibility, head: fetched.head, droppedRefs: fetched.dropped, token, signal: job.signal,
    });
  } catch (err) {
    if (err instanceof Superseded) {
      c.log.warn({ projectId: project.id }, 'another run of the import job took the import over; this one stops');
      return;
    }
    // This worker lost the job's lease: the job runs again (its next run takes the import over).
    if (job.signal?.aborted) throw err;
    const message = failureMessage(err);
    if (message === null) c.log.error({ err, projectId: project.id }, 'project import failed');
    return failImport(c, project, token, message ?? `An unexpected error stopped the import (correlation id ${imp.correlation_id})`);
  } finally {
    await removeRunDir(c, project.id, token);
  }
  await finishImport(c, project.id);
}

/** A run after the import ended: what is left to do after a finished import, or the archive of a failed one. */
async function afterEnd(c: Container, projectId: number): Promise<void> {
  const project = await findProjectById(c.db, projectId);
  if (project?.import_status === 'finished') return finishImport(c, projectId);
  await dropArchive(c, projectId);
}

/** The folders of earlier runs (cut short, or superseded by this one) go. */
async function clearOtherRuns(c: Container, projectId: number, token: string): Promise<void> {
  const root = workDir(c, projectId);
  let entries: string[] = [];
  try {
    entries = await fs.promises.readdir(root);
  } catch {
    return;
  }
  for (const e of entries) if (e !== token) await fs.promises.rm(path.join(root, e), { recursive: true, force: true });
}

/** A run's own folder goes, and the import's folder with it when no other run works in it. */
async function removeRunDir(c: Container, projectId: number, token: string): Promise<void> {
  await fs.promises.rm(path.join(workDir(c, projectId), token), { recursive: true, force: true });
  await fs.promises.rmdir(workDir(c, projectId)).catch(() => {});
}

/**
 * Ends an import as failed with a message the user reads, if this run still holds it. No half
 * project: the repository goes back to empty, the files and the working folder go; the rows never
 * landed.
 */
async function failImport(c: Container, project: ProjectRow, token: string, message: string): Promise<void> {
  if (!(await holdsImportRun(c.db, project.id, token))) return;
  const repo = repositoryDir(c, project.id);
  removeRepository(repo);
  await initBare(repo, project.default_branch ?? 'main').catch(() => {});
  await removeRunDir(c, project.id, token);
  await c.storage.deletePrefix(`projects/${project.id}/`);
  const ended = await inTransaction(c.db, async (tx) => {
    if (!(await endImportRun(tx, project.id, token, nowIso()))) return false;
    await setImportState(tx, project.id, { import_status: 'failed', import_error: message, updated_at: nowIso() });
    return true;
  });
  if (ended) await dropArchive(c, project.id);
}

/** What is at a path of the extracted archive (a name may pass through a file: ENOTDIR is "nothing"). */
function statOf(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}
const isFile = (p: string) => statOf(p)?.isFile() ?? false;
const isDirectory = (p: string) => statOf(p)?.isDirectory() ?? false;

/**
 * remote-import and remote-import-objstore: the archive comes down here, in the job, through
 * src/outbound, into blob storage (from the start again after a crash). It must answer 200 and
 * stay within 10 GB and max_import_size, whatever its headers said.
 */
async function downloadArchive(c: Container, imp: ProjectImportRow): Promise<void> {
  const url = decryptSecret(c.config.secretKey, imp.source_url_encrypted!);
  let res: StreamResponse;
  try {
    res = await openStream(url, await outboundPolicy(c, 'project'), { method: 'GET' });
  } catch (err) {
    if (err instanceof OutboundRefused) throw new ImportError(`File url is blocked: ${err.message}`);
    if (err instanceof OutboundFailed) throw new ImportError(`Failed to download the import file: ${err.message}`);
    throw err;
  }
  if (res.status !== 200) {
    res.body.destroy();
    throw new ImportError(`Failed to download the import file: the server answered ${res.status}`);
  }
  const maxMb = Number((await getSettings(c)).max_import_size);
  const limit = maxMb > 0 ? Math.min(REMOTE_MAX_BYTES, maxMb * 1024 * 1024) : REMOTE_MAX_BYTES;
  const tooBig = () => new ImportError(`The import file is larger than ${limit} bytes`);
  if (Number(res.headers['content-length'] ?? 0) > limit) {
    res.body.destroy();
    throw tooBig();
  }
  let received = 0;
  const limited = counter((n) => {
    received += n;
    if (received > limit) throw tooBig();
  });
  res.body.once('error', (err) => limited.destroy(new ImportError(`Failed to download the import file: ${err.message}`)));
  try {
    await c.storage.put(imp.archive_key!, res.body.pipe(limited));
  } finally {
    res.body.destroy();
  }
  await updateImport(c.db, imp.project_id, { source_url_encrypted: null, updated_at: nowIso() });
}

/** After the rows landed (idempotent, so a failure here is retried by the queue): statistics, the overwrite swap, the archive's removal. */
async function finishImport(c: Container, projectId: number): Promise<void> {
  await scheduleRepositoryRefresh(c, projectId);
  await completeOverwrite(c, projectId);
  await dropArchive(c, projectId);
}

async function dropArchive(c: Container, projectId: number): Promise<void> {
  const imp = await findImport(c.db, projectId);
  if (!imp?.archive_key) return;
  await c.storage.delete(imp.archive_key);
  await updateImport(c.db, projectId, { archive_key: null, source_url_encrypted: null, updated_at: nowIso() });
}

/** The message a user reads for an expected failure (never a server path); null for an unexpected one (logged, not shown). */
function failureMessage(err: unknown): string | null {
  if (err instanceof ArchiveError || err instanceof VersionError || err instanceof NdjsonFormatError || err instanceof ImportError) return err.message;
  return null;
}

/** The first `max` bytes of a file as text; null when there is no such file. */
async function readText(file: string, max: number): Promise<string | null> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(max);
    const { bytesRead } = await fh.read(buf, 0, max, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** tree/project.json holds the project's own attributes only: far less than this. */
const MAX_PROJECT_TREE_BYTES = 16 * 1024 * 1024;

async function readProjectTree(dir: string): Promise<Record<string, unknown>> {
  const file = path.join(dir, FILES.projectTree);
  if (!isFile(file)) throw new ImportError('Project tree file tree/project.json is missing');
  if ((await fs.promises.stat(file)).size > MAX_PROJECT_TREE_BYTES) throw new ImportError(`tree/project.json is larger than ${MAX_PROJECT_TREE_BYTES} bytes`);
  const text = await readText(file, MAX_PROJECT_TREE_BYTES);
  let tree: unknown;
  try {
    tree = JSON.parse(text!);
  } catch {
    throw new NdjsonFormatError();
  }
  if (!tree || typeof tree !== 'object' || Array.isArray(tree)) throw new NdjsonFormatError();
  return tree as Record<string, unknown>;
}

interface FetchedRepository {
  /** The default branch of the fetched repository (null: empty repository). */
  head: string | null;
  /** Branches and tags of the bundle that did not arrive. */
  dropped: string[];
}

/**
 * Fetches the bundle's branches and tags; HEAD names the default branch (else the bundle's HEAD,
 * else the first branch). A bundle that lists refs of which none arrives fails the import; refs
 * dropped beside others that arrived are reported as failed relations.
 */
async function fetchBranches(c: Container, repo: string, bundle: string, wanted: string): Promise<FetchedRepository> {
  let fetched: FetchedBundle;
  try {
    fetched = await fetchBundle(repo, bundle);
  } catch (err) {
    // git's own words name server paths: they go to the log, not to the user
    c.log.warn({ err }, 'an imported bundle could not be fetched');
    throw new ImportError('The repository bundle could not be read (not a git bundle, or objects that fail the checks)');
  }
  const { head, offered, dropped } = fetched;
  if (offered > 0 && dropped.length === offered) {
    throw new ImportError(`Nothing of the repository arrived: git refused all ${offered} branch and tag names of the bundle (${dropped.slice(0, 3).map((r) => JSON.stringify(r)).join(', ')}${offered > 3 ? ', …' : ''})`);
  }
  const branches = branchNames(repo);
  if (branches.length === 0) return { head: null, dropped };
  let branch = branches.includes(wanted) ? wanted : null;
  if (!branch && head) {
    for (const b of ['main', 'master', ...branches]) {
      if (branches.includes(b) && (await resolveRevision(repo, `refs/heads/${b}`)) === head) {
        branch = b;
        break;
      }
    }
  }
  branch ??= branches[0]!;
  await setHeadBranch(repo, branch);
  return { head: branch, dropped };
}

interface Restore {
  attributes: Record<string, unknown>;
  override: Partial<ProjectRow>;
  overrideVisibility: number | undefined;
  /** The default branch of the fetched repository (null: empty repository). */
  head: string | null;
  /** Refs of the bundle that did not arrive: each one a failed relation. */
  droppedRefs: string[];
  /** The run's claim: the transaction lands only while the run still holds the import. */
  token: string;
  /** Aborted when the worker lost the job's lease: the transaction is given up. */
  signal?: AbortSignal;
}

/** Every relation Anvil models, in one transaction with the `finished` status. */
async function restoreRelations(c: Container, project: ProjectRow, importerId: number, correlationId: string, dir: string, r: Restore): Promise<void> {
  const relations = (name: string) => path.join(dir, relationFile(name));
  const exists = (name: string) => isFile(relations(name));
  /** A relation's records, at most MAX_RELATION_ROWS of them; a record with a NUL byte anywhere fails as the API would refuse it. */
  async function* records(name: string): AsyncGenerator<{ line: number; record: Record<string, unknown>; error?: RecordError }> {
    let n = 0;
    for await (const { line, record } of readNdjson(relations(name))) {
      if (++n > MAX_RELATION_ROWS) throw new ImportError(`${relationFile(name)} has more than ${MAX_RELATION_ROWS} records`);
      // A long relation must not hold the event loop: the lease of the job is renewed between records.
      if (n % RECORDS_PER_YIELD === 0) await yieldToLoop();
      r.signal?.throwIfAborted();
      try {
        checkRecordValues(record);
        yield { line, record };
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        yield { line, record: {}, error: err };
      }
    }
  }
  const now = nowIso();
  const ns = (await findNamespaceById(c.db, project.namespace_id))!;
  const importer = await findUserById(c.db, importerId);

  // Members first: they map the archive's users to users here.
  const members: { line: number; member?: ExportedMember; error?: RecordError }[] = [];
  if (exists('project_members')) {
    for await (const { line, record, error } of records('project_members')) {
      try {
        if (error) throw error;
        members.push({ line, member: memberFrom(record) });
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        members.push({ line, error: err });
      }
    }
  }
  const found = await usersByEmailOrUsername(
    c.db,
    members.flatMap((m) => (m.member?.email ? [m.member.email] : [])),
    members.flatMap((m) => (m.member?.username ? [m.member.username] : [])),
  );
  const userMap = new Map<number, number>();
  const localOf = (m: ExportedMember): number | null =>
    (m.email ? found.byEmail.find((u) => u.email_lower === m.email || u.public_email.toLowerCase() === m.email)?.id : undefined) ??
    (m.username ? found.byName.find((u) => u.username_lower === m.username)?.id : undefined) ??
    null;
  const mapping = mapsImportedMembers(importer);
  for (const m of members) if (mapping && m.member && m.member.oldUserId !== null) {
    const local = localOf(m.member);
    if (local !== null) userMap.set(m.member.oldUserId, local);
  }
  const mapUser = (old: number | null) => (old !== null ? (userMap.get(old) ?? importerId) : importerId);
  const mapKnownUser = (old: number) => userMap.get(old) ?? null;

  // Attributes: the archive's, then override_params, within what the namespace and instance allow.
  const patch: Partial<ProjectRow> = { ...projectPatchFrom(r.attributes) };
  const settings = await projectSettings(c);
  const fail = async (tx: Db, relation: string, line: number, err: RecordError) =>
    insertImportFailure(tx, {
      project_id: project.id, correlation_id: correlationId, relation_key: relation, relation_index: line, exception_class: err.exceptionClass,
      exception_message: err.message, source: 'process_relation_item!', retry_count: 0, created_at: nowIso(),
    });

  await inTransaction(c.db, async (tx) => {
    // First: this run still holds the import, and from here no other run takes it.
    if (!(await endImportRun(tx, project.id, r.token, nowIso()))) throw new Superseded();
    for (const name of ['project_feature', 'ci_cd_settings'] as const) {
      if (!exists(name)) continue;
      for await (const { record, error } of records(name)) {
        if (!error) Object.assign(patch, name === 'project_feature' ? projectFeaturePatch(record) : ciCdSettingsPatch(record));
      }
    }
    Object.assign(patch, r.override);
    let level = r.overrideVisibility ?? patch.visibility_level ?? project.visibility_level;
    if (ns.kind === 'group') level = Math.min(level, ns.visibility_level);
    if (!importer?.admin && settings.restrictedVisibilityLevels.includes(level)) level = project.visibility_level;
    const finalPatch: Partial<ProjectRow> = { ...patch, visibility_level: level, default_branch: r.head ?? (patch.default_branch as string | undefined) ?? project.default_branch };
    delete (finalPatch as Record<string, unknown>).id;

    for (const m of members) {
      if (m.error) {
        await fail(tx, 'project_members', m.line, m.error);
        continue;
      }
      const local = mapping ? localOf(m.member!) : null;
      // The importer's own role stays as the project's creation gave it.
      if (local === null || local === importerId) continue;
      await insertProjectMember(tx, { project_id: project.id, user_id: local, access_level: m.member!.accessLevel, expires_at: m.member!.expiresAt, created_by_id: importerId, now });
    }
    // The importer administers what it imported (the reference's default member).
    if (ns.kind === 'group') await insertProjectMember(tx, { project_id: project.id, user_id: importerId, access_level: ACCESS.MAINTAINER, expires_at: null, created_by_id: importerId, now });

    await deleteProtectedBranches(tx, project.id);
    if (exists('protected_branches')) {
      for await (const { line, record, error } of records('protected_branches')) {
        try {
          if (error) throw error;
          const pb = protectedBranchFrom(record, mapKnownUser);
          if (!(await insertProtectedBranchRow(tx, { project_id: project.id, name: pb.name, allow_force_push: pb.allowForcePush, code_owner_approval_required: pb.codeOwnerApprovalRequired, now }, pb.entries))) {
            throw new RecordError('ActiveRecord::RecordInvalid', 'Validation failed: Name has already been taken');
          }
        } catch (err) {
          if (!(err instanceof RecordError)) throw err;
          await fail(tx, 'protected_branches', line, err);
        }
      }
    }
    await deleteProtectedTags(tx, project.id);
    if (exists('protected_tags')) {
      for await (const { line, record, error } of records('protected_tags')) {
        try {
          if (error) throw error;
          const pt = protectedTagFrom(record, mapKnownUser);
          if (!(await insertProtectedTagRow(tx, { project_id: project.id, name: pt.name, now }, pt.entries))) {
            throw new RecordError('ActiveRecord::RecordInvalid', 'Validation failed: Name has already been taken');
          }
        } catch (err) {
          if (!(err instanceof RecordError)) throw err;
          await fail(tx, 'protected_tags', line, err);
        }
      }
    }
    if (exists('custom_attributes')) {
      for await (const { line, record, error } of records('custom_attributes')) {
        try {
          if (error) throw error;
          const a = customAttributeFrom(record);
          if (!(await insertProjectCustomAttribute(tx, { project_id: project.id, key: a.key, value: a.value, now }))) {
            throw new RecordError('ActiveRecord::RecordInvalid', 'Validation failed: Key has already been taken');
          }
        } catch (err) {
          if (!(err instanceof RecordError)) throw err;
          await fail(tx, 'custom_attributes', line, err);
        }
      }
    }
    if (exists('project_badges')) {
      for await (const { line, record, error } of records('project_badges')) {
        try {
          if (error) throw error;
          const b = badgeFrom(record);
          await insertBadge(tx, { project_id: project.id, group_id: null, name: b.name, link_url: b.link_url, image_url: b.image_url, created_at: b.created_at ?? now, updated_at: b.updated_at ?? now });
        } catch (err) {
          if (!(err instanceof RecordError)) throw err;
          await fail(tx, 'project_badges', line, err);
        }
      }
    }
    if (exists('ci_pipelines')) {
      let nextIid = (await lastPipelineIid(tx, project.id)) + 1;
      const commits = new Map<string, Awaited<ReturnType<typeof readCommit>>>();
      const repo = repositoryDir(c, project.id);
      for await (const { line, record, error } of records('ci_pipelines')) {
        try {
          if (error) throw error;
          const p = pipelineFrom(record, mapUser, now);
          if (!commits.has(p.row.sha)) {
            if (commits.size >= 1000) commits.clear(); // a cache, not every commit of a long history
            commits.set(p.row.sha, r.head ? await readCommit(repo, p.row.sha).catch(() => null) : null);
          }
          const commit = commits.get(p.row.sha);
          const row = {
            ...p.row, project_id: project.id, iid: p.iid ?? nextIid,
            commit_message: commit?.message ?? null, commit_author_name: commit?.authorName ?? null,
            commit_author_email: commit?.authorEmail ?? null, commit_created_at: commit?.authoredDate ? new Date(commit.authoredDate).toISOString() : null,
          };
          const jobs = p.jobs.map((j) => ({ ...j, project_id: project.id }));
          if (!(await insertImportedPipeline(tx, row, jobs))) {
            // its iid is taken (an archive with two pipelines of one iid): the next free one
            if (!(await insertImportedPipeline(tx, { ...row, iid: Math.max(nextIid, (await lastPipelineIid(tx, project.id)) + 1) }, jobs))) {
              throw new RecordError('ActiveRecord::RecordNotUnique', 'PG::UniqueViolation');
            }
          }
          nextIid = Math.max(nextIid, (await lastPipelineIid(tx, project.id)) + 1);
        } catch (err) {
          if (!(err instanceof RecordError)) throw err;
          await fail(tx, 'ci_pipelines', line, err);
        }
      }
    }
    for (const [i, ref] of r.droppedRefs.slice(0, MAX_FAILED_RELATIONS).entries()) {
      await fail(tx, 'repository', i, new RecordError('Gitlab::ImportExport::Error', `Ref ${JSON.stringify(ref)} was not imported: git refuses its name`));
    }
    await patchImportedProject(tx, project.id, { ...finalPatch, import_status: 'finished', import_error: null, updated_at: nowIso() });
  });
}

/** uploads/<secret>/<file> and avatar/<file> of the archive into blob storage; the avatar's name, if any. */
async function restoreFiles(c: Container, projectId: number, dir: string): Promise<string | null> {
  const uploads = path.join(dir, FILES.uploadsDir);
  if (isDirectory(uploads)) {
    for (const secret of await fs.promises.readdir(uploads)) {
      if (!/^[0-9a-f]{32}$/.test(secret) || !isDirectory(path.join(uploads, secret))) continue;
      for (const file of await fs.promises.readdir(path.join(uploads, secret))) {
        const full = path.join(uploads, secret, file);
        if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(file) || !(await fs.promises.stat(full)).isFile()) continue;
        await c.storage.put(`projects/${projectId}/uploads/${secret}/${file}`, fs.createReadStream(full));
      }
    }
  }
  const avatarDir = path.join(dir, FILES.avatarDir);
  if (isDirectory(avatarDir)) {
    const file = (await fs.promises.readdir(avatarDir)).find((f) => /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(f) && isFile(path.join(avatarDir, f)));
    if (file && (await fs.promises.stat(path.join(avatarDir, file))).size <= 200 * 1024) {
      await c.storage.put(`projects/${projectId}/avatar/${file}`, fs.createReadStream(path.join(avatarDir, file)));
      return file;
    }
  }
  return null;
}

/** overwrite: the finished import takes the replaced project's path and name; the old one goes. */
async function completeOverwrite(c: Container, projectId: number): Promise<void> {
  const imp = await findImport(c.db, projectId);
  if (!imp || imp.replaces_project_id === null) return;
  const oldId = imp.replaces_project_id;
  await destroyProjectRows(c.db, oldId, async (tx) => {
    await c.queue.enqueue(PROJECT_DESTROY_JOB, { projectId: oldId }, { trx: tx });
  });
  const p = (await findProjectById(c.db, projectId))!;
  const ns = (await findNamespaceById(c.db, p.namespace_id))!;
  const full = `${ns.full_path}/${imp.original_path}`;
  await updateProjectRow(c.db, projectId, { path: imp.original_path!, name: imp.original_name!, full_path: full, full_path_lower: full.toLowerCase(), updated_at: nowIso() });
  await updateImport(c.db, projectId, { replaces_project_id: null, updated_at: nowIso() });
}
