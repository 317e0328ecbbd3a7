// Project export (POST/GET /projects/:id/export, GET …/export/download): a background job writes
// the reference's archive — VERSION, the two version files, tree/project.json and one ndjson
// file per relation, project.bundle, uploads/ and the avatar — and stores it as one blob. The
// last finished archive stays downloadable while a new one is made, and expires after a day.
import fs from 'node:fs';
import path from 'node:path';
import type { Container } from '../context.js';
import {
  clearArchive, expiredExports, findExport, jobsOfPipelines, membersForExport, pipelinesAfter, queueExport, setExportStatus,
  type ProjectExportRow,
} from '../../db/repos/project_import_export.js';
import { inTransaction } from '../../db/transaction.js';
import { accessEntriesOf, protectedBranchesOf } from '../../db/repos/protected_branches.js';
import { createAccessOf, protectedTagsOf } from '../../db/repos/protected_tags.js';
import { projectBadgesOf } from '../../db/repos/badges.js';
import { listCustomAttributes } from '../../db/repos/custom_attributes.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { createBundle } from '../../git/bundle.js';
import { EXPORT_VERSION, FILES, exportFilename, relationFile } from '../../import_export/format.js';
import { writeNdjson } from '../../import_export/ndjson.js';
import { directoryEntries, writeArchive } from '../../import_export/writer.js';
import type { Actor } from '../auth/actor.js';
import { apiError, forbidden, notFound, validation } from '../errors.js';
import { findProject } from '../projects/find.js';
import { view } from '../projects/service.js';
import { repositoryDir } from '../repository/service.js';
import { repositoryStatistics } from '../repository/statistics.js';
import { getSettings } from '../settings/service.js';
import { decryptSecret, encryptSecret } from '../shared/encryption.js';
import { openStream, type StreamResponse } from '../../outbound/stream.js';
import { OutboundFailed, OutboundRefused } from '../../outbound/request.js';
import { outboundPolicy } from '../hooks/delivery.js';
import { checkApiRateLimit, settingRule } from '../shared/rate_limit.js';
import { nowIso } from '../../shared/time.js';
import { ANVIL_REVISION, REFERENCE_API_LEVEL } from '../../version.js';
import {
  badgeRecord, ciCdSettingsRecord, customAttributeRecord, memberRecord, pipelineRecord, projectAttributes, projectFeatureRecord, protectedBranchRecord,
  protectedTagRecord,
} from './relations.js';
import { canExportProject, exportsMembers } from './policy.js';
import { now as clockNow, nowDate } from '../../shared/clock.js';

export const PROJECT_EXPORT_JOB = 'project_export';
/** Sends a finished archive to upload[url]: a job of its own, so a crash before the send is retried. */
export const PROJECT_EXPORT_UPLOAD_JOB = 'project_export_upload';
export const EXPORTS_EXPIRE_JOB = 'project_exports_expire';

/** The reference keeps an export for 24 hours. */
export const EXPORT_TTL_MS = 24 * 3600_000;
export const EXPORTS_EXPIRE_EVERY_MS = 3600_000;
const PIPELINE_PAGE = 100;

export type ExportStatus = 'none' | 'queued' | 'started' | 'finished' | 'regeneration_in_progress';

const archiveLive = (e: ProjectExportRow | undefined, now = clockNow()): boolean =>
  !!e?.archive_key && !!e.finished_at && Date.parse(e.finished_at) + EXPORT_TTL_MS > now;

/**
 * The reference's export_status: a run in progress over a live archive is a regeneration; a run
 * whose archive is being sent to upload[url] is still `started` (the spec: "processing,
 * including follow-up actions such as … uploading to a web server").
 */
export function exportStatusOf(e: ProjectExportRow | undefined): ExportStatus {
  if (e?.status === 'uploading') return 'started';
  const running = e?.status === 'queued' || e?.status === 'started';
  if (running && archiveLive(e)) return 'regeneration_in_progress';
  if (running) return e!.status as ExportStatus;
  return archiveLive(e) ? 'finished' : 'none';
}

/** The export endpoints are there only while project_export_enabled; then admin_project decides. */
async function exportableProject(c: Container, actor: Actor, idOrPath: number | string) {
  if (!(await getSettings(c)).project_export_enabled) throw notFound();
  const found = await findProject(c, actor, idOrPath);
  if (!canExportProject(found.access)) throw forbidden();
  return found;
}

export interface ExportRequest {
  description?: string;
  upload?: { url?: string; http_method?: string };
}

/** POST /projects/:id/export */
export async function requestExport(c: Container, actor: Actor, idOrPath: number | string, input: ExportRequest): Promise<void> {
  const { row, access } = await exportableProject(c, actor, idOrPath);
  await checkApiRateLimit(c, await settingRule(c, 'project_export_limit'), `user:${actor.user.id}`);
  let uploadUrl: string | null = null;
  const method = input.upload?.http_method ?? 'PUT';
  if (input.upload?.url) {
    if (!isHttpUrl(input.upload.url)) throw validation({ url: ['is blocked: Only allowed schemes are http, https'] });
    uploadUrl = encryptSecret(c.config.secretKey, input.upload.url);
  }
  const maxMb = Number((await getSettings(c)).max_export_size);
  if (maxMb > 0) {
    const size = Number((await repositoryStatistics(c, [row.id], { computeMissing: true })).get(row.id)?.repositorySize ?? 0);
    if (size > maxMb * 1024 * 1024) throw apiError('The project size exceeds the export limit.');
  }
  await inTransaction(c.db, async (tx) => {
    const run = await queueExport(tx, {
      project_id: row.id, user_id: actor.user.id, description: input.description ?? null, with_members: exportsMembers(access) ? 1 : 0,
      upload_url_encrypted: uploadUrl, upload_method: uploadUrl ? method : null, now: nowIso(),
    });
    await c.queue.enqueue(PROJECT_EXPORT_JOB, { projectId: row.id, run }, { trx: tx, maxAttempts: 3 });
  });
}

const isHttpUrl = (s: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

export interface ExportStatusView {
  project: Awaited<ReturnType<typeof view>>;
  status: ExportStatus;
}

/** GET /projects/:id/export */
export async function getExportStatus(c: Container, actor: Actor, idOrPath: number | string): Promise<ExportStatusView> {
  const { row } = await exportableProject(c, actor, idOrPath);
  return { project: await view(c, actor, row, { full: false }), status: exportStatusOf(await findExport(c.db, row.id)) };
}

export interface ExportDownload {
  stream: NodeJS.ReadableStream & import('node:stream').Readable;
  size: number;
  filename: string;
}

/** GET /projects/:id/export/download: the last finished archive, while it lives. */
export async function downloadExport(c: Container, actor: Actor, idOrPath: number | string): Promise<ExportDownload> {
  const { row } = await exportableProject(c, actor, idOrPath);
  await checkApiRateLimit(c, await settingRule(c, 'project_download_export_limit'), `user:${actor.user.id}:namespace:${row.namespace_id}`);
  const e = await findExport(c.db, row.id);
  const gone = () => apiError('404 Not found or has expired', 404);
  if (!archiveLive(e)) throw gone();
  const stat = await c.storage.stat(e!.archive_key!);
  const stream = stat ? await c.storage.get(e!.archive_key!) : null;
  if (!stat || !stream) throw apiError('The project export file is not available yet', 404);
  return { stream, size: stat.size, filename: e!.archive_filename! };
}

// ---- the job ----

/** One folder per run: a newer request's job may run beside an older one. */
const workDir = (c: Container, projectId: number, run: number) => path.join(c.config.dataDir, 'tmp', `export-${projectId}-${run}`);

/**
 * Writes the archive. Idempotent: a run cut short (a crash) starts over from a clean folder; a
 * run that a newer request superseded, or that ended, has nothing to do. Never leaves the export
 * `started`: a failure marks it failed (the last finished archive, if any, stays). With
 * upload[url] the run ends `uploading`, and the upload job, queued in the same transaction,
 * sends the archive.
 */
export async function runExport(c: Container, payload: { projectId: number; run: number }): Promise<void> {
  const e = await findExport(c.db, payload.projectId);
  if (!e || e.run !== payload.run || (e.status !== 'queued' && e.status !== 'started')) return;
  const project = await findProjectById(c.db, payload.projectId);
  if (!project) return;
  const run = payload.run;
  if (!(await setExportStatus(c.db, project.id, run, { status: 'started', updated_at: nowIso() }))) return;
  const dir = workDir(c, project.id, run);
  let key: string | null = null;
  try {
    await fs.promises.rm(dir, { recursive: true, force: true });
    await fs.promises.mkdir(path.join(dir, 'stage', FILES.relationsDir), { recursive: true });
    await stageExport(c, project, e, path.join(dir, 'stage'));
    const at = nowDate();
    const filename = exportFilename(project.full_path, at);
    key = `projects/${project.id}/export/${run}-${at.getTime()}-${filename}`;
    const { size } = await c.storage.put(key, writeArchive(directoryEntries(path.join(dir, 'stage'))));
    const previous = (await findExport(c.db, project.id))?.archive_key ?? null;
    const finishedAt = nowIso();
    const upload = e.upload_url_encrypted !== null;
    const current = await inTransaction(c.db, async (tx) => {
      const mine = await setExportStatus(tx, project.id, run, {
        status: upload ? 'uploading' : 'finished', archive_key: key, archive_filename: filename, archive_size: size, finished_at: finishedAt,
        error: null, updated_at: finishedAt,
      });
      if (mine && upload) await c.queue.enqueue(PROJECT_EXPORT_UPLOAD_JOB, { projectId: project.id, run }, { trx: tx, maxAttempts: 5 });
      return mine;
    });
    const stored = key;
    key = null; // from here on it is the export's archive (or superseded and removed): a failure below must not remove it
    if (!current) await c.storage.delete(stored); // superseded meanwhile: the newer run's archive counts
    else if (previous && previous !== stored) {
      await c.storage.delete(previous).catch((err) => c.log.warn({ err, projectId: project.id }, 'an old export archive could not be removed'));
    }
  } catch (err) {
    c.log.error({ err, projectId: project.id }, 'project export failed');
    if (key) await c.storage.delete(key);
    await setExportStatus(c.db, project.id, run, { status: 'failed', error: String((err as Error)?.message ?? err).slice(0, 1000), upload_url_encrypted: null, updated_at: nowIso() });
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/**
 * upload[url] (the reference's web upload strategy): sends the archive of this run there,
 * streamed, through the outbound checks, then marks the export finished. At least once: a crash
 * before the outcome is recorded sends it again; a run already finished or superseded sends
 * nothing. As in the reference, a failed upload is not retried and the archive stays
 * downloadable; the error is logged and kept on the export (the reference mails it to the user).
 */
export async function runExportUpload(c: Container, payload: { projectId: number; run: number }, job: { attempts: number; maxAttempts: number }): Promise<void> {
  const e = await findExport(c.db, payload.projectId);
  if (!e || e.run !== payload.run || e.status !== 'uploading') return;
  let error: string | null;
  try {
    error = await sendArchive(c, e);
  } catch (err) {
    // not the receiver's answer (storage, database): the queue tries again, and the last try gives up
    if (job.attempts < job.maxAttempts) throw err;
    error = String((err as Error)?.message ?? err);
  }
  if (error) c.log.error({ projectId: e.project_id, error }, 'After export strategy failed');
  await setExportStatus(c.db, e.project_id, e.run, { status: 'finished', upload_url_encrypted: null, error: error?.slice(0, 1000) ?? null, updated_at: nowIso() });
}

/** One send of the archive; null when the receiver took it, else the reason (the reference's words). */
async function sendArchive(c: Container, e: ProjectExportRow): Promise<string | null> {
  const url = e.upload_url_encrypted ? decryptSecret(c.config.secretKey, e.upload_url_encrypted) : null;
  const stream = url && e.archive_key ? await c.storage.get(e.archive_key) : null;
  if (!url || !stream) return 'The export file is missing';
  let res: StreamResponse;
  try {
    res = await openStream(url, await outboundPolicy(c, 'project'), {
      method: e.upload_method ?? 'PUT', headers: { 'Content-Type': 'application/gzip' }, body: { stream, length: Number(e.archive_size) },
    });
  } catch (err) {
    stream.destroy();
    if (err instanceof OutboundRefused) return `URL is blocked: ${err.message}`;
    if (err instanceof OutboundFailed) return err.message;
    throw err;
  }
  res.body.resume();
  if (res.status >= 200 && res.status < 300) return null;
  return `Error uploading the project. Code ${res.status}: ${res.body.statusMessage ?? ''}`;
}

/** Writes the archive's files into `stage`, each relation streamed page by page. */
async function stageExport(c: Container, p: ProjectRow, e: ProjectExportRow, stage: string): Promise<void> {
  const write = (name: string, text: string) => fs.promises.writeFile(path.join(stage, name), text);
  // the three version files have no trailing newline, as the reference writes them
  await write(FILES.version, EXPORT_VERSION);
  await write(FILES.appVersion, REFERENCE_API_LEVEL); // what GET /version reports
  await write(FILES.appRevision, ANVIL_REVISION);
  await write(FILES.projectTree, JSON.stringify(projectAttributes(p, e.description)));
  const relation = (name: string, records: AsyncIterable<unknown> | Iterable<unknown>) => writeNdjson(path.join(stage, relationFile(name)), records);

  await relation('project_feature', [projectFeatureRecord(p)]);
  await relation('ci_cd_settings', [ciCdSettingsRecord(p)]);
  const members = e.with_members ? (await membersForExport(c.db, p.id)).filter((m) => m.bot_kind === null) : [];
  await relation('project_members', members.map(memberRecord));
  const branches = await protectedBranchesOf(c.db, p.id);
  const entries = await accessEntriesOf(c.db, branches.map((b) => b.id));
  await relation('protected_branches', branches.map((b) => protectedBranchRecord(b, entries.filter((x) => x.protected_branch_id === b.id))));
  const tags = await protectedTagsOf(c.db, p.id);
  const tagEntries = await createAccessOf(c.db, tags.map((t) => t.id));
  await relation('protected_tags', tags.map((t) => protectedTagRecord(t, tagEntries.filter((x) => x.protected_tag_id === t.id))));
  await relation('custom_attributes', (await listCustomAttributes(c.db, 'project', p.id)).map((a) => customAttributeRecord(a, p.id)));
  await relation('project_badges', (await projectBadgesOf(c.db, p.id)).map(badgeRecord));
  await relation('ci_pipelines', pipelineRecords(c, p.id));

  await createBundle(repositoryDir(c, p.id), path.join(stage, FILES.bundle));
  await copyBlobs(c, `projects/${p.id}/uploads/`, path.join(stage, FILES.uploadsDir));
  if (p.avatar_path) await copyBlobs(c, `projects/${p.id}/avatar/`, path.join(stage, FILES.avatarDir));
}

/** Pipelines with their jobs, a page at a time (memory stays bounded whatever their number). */
async function* pipelineRecords(c: Container, projectId: number): AsyncGenerator<unknown> {
  for (let after = 0; ;) {
    const page = await pipelinesAfter(c.db, projectId, after, PIPELINE_PAGE);
    if (page.length === 0) return;
    const jobs = await jobsOfPipelines(c.db, page.map((p) => p.id));
    for (const p of page) yield pipelineRecord(p, jobs.filter((j) => j.pipeline_id === p.id));
    after = page[page.length - 1]!.id;
  }
}

/** Copies the blobs under a prefix into a folder, keeping their relative names. */
async function copyBlobs(c: Container, prefix: string, into: string): Promise<void> {
  for await (const b of c.storage.list(prefix)) {
    const rel = b.key.slice(prefix.length);
    const target = path.join(into, ...rel.split('/'));
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const body = await c.storage.get(b.key);
    if (!body) continue; // removed meanwhile
    await new Promise<void>((resolve, reject) => body.pipe(fs.createWriteStream(target)).on('finish', resolve).on('error', reject));
  }
}

// ---- expiry ----

/** Removes archives older than the reference's 24 hours. */
export async function expireExports(c: Container, now = clockNow()): Promise<number> {
  let removed = 0;
  for (;;) {
    const batch = await expiredExports(c.db, new Date(now - EXPORT_TTL_MS).toISOString(), 100);
    for (const e of batch) {
      await clearArchive(c.db, e.project_id, e.archive_key!, nowIso());
      await c.storage.delete(e.archive_key!);
      removed += 1;
    }
    if (batch.length < 100) return removed;
  }
}

