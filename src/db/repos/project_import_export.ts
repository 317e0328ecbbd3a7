// Project export and import: the export and import state rows, the failed relations, the reads an
// export streams page by page, and the writes of an import (all in one transaction: an import
// lands whole or not at all).
import { sql, type Insertable, type Kysely, type Selectable, type Transaction, type Updateable } from 'kysely';
import type {
  CiJobsTable, CiPipelinesTable, DB, ImportFailuresTable, ProjectExportsTable, ProjectImportsTable, ProtectedBranchAccessLevelsTable,
} from '../schema.js';

export type Db = Kysely<DB> | Transaction<DB>;
export type ProjectExportRow = Selectable<ProjectExportsTable>;
export type ProjectImportRow = Selectable<ProjectImportsTable>;
export type ImportFailureRow = Selectable<ImportFailuresTable>;

// ---- exports ----

export const findExport = (db: Db, projectId: number): Promise<ProjectExportRow | undefined> =>
  db.selectFrom('project_exports').selectAll().where('project_id', '=', projectId).executeTakeFirst();

/**
 * A new export run is queued (superseding one in progress); the last finished archive (if any)
 * stays until the new one is done. Returns the run's number.
 */
export async function queueExport(
  db: Db,
  row: { project_id: number; user_id: number; description: string | null; with_members: number; upload_url_encrypted: string | null; upload_method: string | null; now: string },
): Promise<number> {
  const set = {
    user_id: row.user_id, status: 'queued', description: row.description, with_members: row.with_members, upload_url_encrypted: row.upload_url_encrypted,
    upload_method: row.upload_method, error: null, updated_at: row.now,
  };
  const r = await db
    .insertInto('project_exports')
    .values({ ...set, project_id: row.project_id, created_at: row.now })
    .onConflict((oc) => oc.column('project_id').doUpdateSet({ ...set, run: sql<number>`project_exports.run + 1` }))
    .returning('run')
    .executeTakeFirstOrThrow();
  return r.run;
}

/** Changes the export if it still serves this run; false when a newer request took over. */
export async function setExportStatus(db: Db, projectId: number, run: number, patch: Updateable<ProjectExportsTable>): Promise<boolean> {
  const r = await db.updateTable('project_exports').set(patch).where('project_id', '=', projectId).where('run', '=', run).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Finished archives older than `before` (expired), oldest first. */
export const expiredExports = (db: Db, before: string, limit: number): Promise<ProjectExportRow[]> =>
  db.selectFrom('project_exports').selectAll().where('finished_at', '<', before).where('archive_key', 'is not', null).orderBy('finished_at').limit(limit).execute();

/** Forgets an archive, unless a newer one took its place meanwhile. */
export const clearArchive = (db: Db, projectId: number, key: string, now: string) =>
  db
    .updateTable('project_exports')
    .set({ archive_key: null, archive_filename: null, archive_size: null, finished_at: null, updated_at: now })
    .where('project_id', '=', projectId)
    .where('archive_key', '=', key)
    .execute();

// ---- what an export reads ----

/** The project's direct members with the user fields an importer maps them by. */
export const membersForExport = (db: Db, projectId: number) =>
  db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select([
      'members.id', 'members.access_level', 'members.source_id', 'members.user_id', 'members.created_by_id', 'members.expires_at',
      'members.created_at', 'members.updated_at', 'users.username', 'users.public_email', 'users.email', 'users.bot_kind',
    ])
    .where('members.source_type', '=', 'Project')
    .where('members.source_id', '=', projectId)
    .orderBy('members.id')
    .execute();

/** A page of a project's pipelines by id, for streaming an export. */
export const pipelinesAfter = (db: Db, projectId: number, afterId: number, limit: number) =>
  db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('id', '>', afterId).orderBy('id').limit(limit).execute();

export const jobsOfPipelines = (db: Db, pipelineIds: number[]) =>
  pipelineIds.length === 0
    ? Promise.resolve([] as Selectable<CiJobsTable>[])
    : db.selectFrom('ci_jobs').selectAll().where('pipeline_id', 'in', pipelineIds).orderBy('id').execute();

// ---- imports ----

export const findImport = (db: Db, projectId: number): Promise<ProjectImportRow | undefined> =>
  db.selectFrom('project_imports').selectAll().where('project_id', '=', projectId).executeTakeFirst();

export const insertImport = (db: Db, row: Insertable<ProjectImportsTable>) => db.insertInto('project_imports').values(row).execute();

export const updateImport = (db: Db, projectId: number, patch: Updateable<ProjectImportsTable>) =>
  db.updateTable('project_imports').set(patch).where('project_id', '=', projectId).execute();

/**
 * A run of the import job takes the import over (from a run cut short, or one still going whose
 * lease ran out); false once the import has ended. The run that ends the import must still hold it.
 */
export async function claimImportRun(db: Db, projectId: number, token: string, now: string): Promise<boolean> {
  const r = await db.updateTable('project_imports').set({ run_token: token, updated_at: now }).where('project_id', '=', projectId).where('ended_at', 'is', null).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** True while this run holds the import (a plain read: the ending transaction checks again with endImportRun). */
export async function holdsImportRun(db: Db, projectId: number, token: string): Promise<boolean> {
  const row = await db.selectFrom('project_imports').select('id').where('project_id', '=', projectId).where('run_token', '=', token).where('ended_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}

/**
 * First write of the transaction that ends the import: true when this run still holds it, and
 * from then on (on PostgreSQL the row stays locked until the commit) no other run claims it.
 */
export async function endImportRun(db: Db, projectId: number, token: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('project_imports')
    .set({ ended_at: now, run_token: null, updated_at: now })
    .where('project_id', '=', projectId)
    .where('run_token', '=', token)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export const setImportState = (db: Db, projectId: number, patch: { import_status: string; import_error?: string | null; updated_at: string }) =>
  db.updateTable('projects').set(patch).where('id', '=', projectId).execute();

/** Project columns an import writes (inside its transaction). */
export const patchImportedProject = (db: Db, projectId: number, patch: Updateable<DB['projects']>) =>
  db.updateTable('projects').set(patch).where('id', '=', projectId).execute();

/** The hard failures of one import run, newest first. */
export const importFailures = (db: Db, projectId: number, correlationId: string, limit: number): Promise<ImportFailureRow[]> =>
  db
    .selectFrom('import_failures')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('correlation_id', '=', correlationId)
    .where('retry_count', '=', 0)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

export const insertImportFailure = (db: Db, row: Insertable<ImportFailuresTable>) => db.insertInto('import_failures').values(row).execute();

/** Users an importer maps exported members to, by e-mail (primary or public) or username, case-insensitively. */
export async function usersByEmailOrUsername(db: Db, emails: string[], usernames: string[]) {
  const q = db.selectFrom('users').select(['id', 'email_lower', 'public_email', 'username_lower']).where('state', '=', 'active');
  // in slices: an archive may name many thousands, more than a statement takes parameters
  const slices = (all: string[]) => Array.from({ length: Math.ceil(all.length / 500) }, (_, i) => all.slice(i * 500, i * 500 + 500));
  const byEmail = [];
  for (const some of slices(emails)) byEmail.push(...(await q.where((eb) => eb.or([eb('email_lower', 'in', some), eb('public_email', 'in', some)])).execute()));
  const byName = [];
  for (const some of slices(usernames)) byName.push(...(await q.where('username_lower', 'in', some).execute()));
  return { byEmail, byName };
}

export const insertProjectMember = (db: Db, row: { project_id: number; user_id: number; access_level: number; expires_at: string | null; created_by_id: number | null; now: string }) =>
  db
    .insertInto('members')
    .values({
      source_type: 'Project', source_id: row.project_id, user_id: row.user_id, access_level: row.access_level,
      expires_at: row.expires_at, created_by_id: row.created_by_id, created_at: row.now, updated_at: row.now,
    })
    .onConflict((oc) => oc.columns(['source_type', 'source_id', 'user_id']).doNothing())
    .execute();

/** A protected branch with its access entries; false when the project has that name already. */
export async function insertProtectedBranchRow(
  db: Db,
  row: { project_id: number; name: string; allow_force_push: number; code_owner_approval_required: number; now: string },
  entries: Omit<Insertable<ProtectedBranchAccessLevelsTable>, 'protected_branch_id'>[],
): Promise<boolean> {
  const pb = await db
    .insertInto('protected_branches')
    .values({ project_id: row.project_id, name: row.name, allow_force_push: row.allow_force_push, code_owner_approval_required: row.code_owner_approval_required, created_at: row.now, updated_at: row.now })
    .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!pb) return false;
  if (entries.length) await db.insertInto('protected_branch_access_levels').values(entries.map((e) => ({ ...e, protected_branch_id: pb.id }))).execute();
  return true;
}

/** A protected tag with its create entries; false when the project has that name already. */
export async function insertProtectedTagRow(
  db: Db,
  row: { project_id: number; name: string; now: string },
  entries: { access_level: number | null; user_id: number | null }[],
): Promise<boolean> {
  const pt = await db
    .insertInto('protected_tags')
    .values({ project_id: row.project_id, name: row.name, created_at: row.now, updated_at: row.now })
    .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!pt) return false;
  if (entries.length) await db.insertInto('protected_tag_create_access_levels').values(entries.map((e) => ({ ...e, group_id: null, protected_tag_id: pt.id }))).execute();
  return true;
}

/** Removes the protected tags of a project (an import run again starts from none). */
export async function deleteProtectedTags(db: Db, projectId: number): Promise<void> {
  const ids = db.selectFrom('protected_tags').select('id').where('project_id', '=', projectId);
  await db.deleteFrom('protected_tag_create_access_levels').where('protected_tag_id', 'in', ids).execute();
  await db.deleteFrom('protected_tags').where('project_id', '=', projectId).execute();
}

/** Removes the rules an import replaces (the default branch's protection made at creation). */
export const deleteProtectedBranches = (db: Db, projectId: number) => db.deleteFrom('protected_branches').where('project_id', '=', projectId).execute();

/** False when the project has that key already. */
export async function insertProjectCustomAttribute(db: Db, row: { project_id: number; key: string; value: string; now: string }): Promise<boolean> {
  const r = await db
    .insertInto('custom_attributes')
    .values({ kind: 'project', subject_id: row.project_id, key: row.key, value: row.value, created_at: row.now, updated_at: row.now })
    .onConflict((oc) => oc.columns(['kind', 'subject_id', 'key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** A pipeline kept as history with its jobs; false when its iid is taken. */
export async function insertImportedPipeline(db: Db, row: Insertable<CiPipelinesTable>, jobs: Omit<Insertable<CiJobsTable>, 'pipeline_id'>[]): Promise<boolean> {
  const taken = await db.selectFrom('ci_pipelines').select('id').where('project_id', '=', row.project_id).where('iid', '=', row.iid).executeTakeFirst();
  if (taken) return false;
  const p = await db.insertInto('ci_pipelines').values(row).returning('id').executeTakeFirstOrThrow();
  for (let i = 0; i < jobs.length; i += 50) {
    await db.insertInto('ci_jobs').values(jobs.slice(i, i + 50).map((j) => ({ ...j, pipeline_id: p.id }))).execute();
  }
  return true;
}

export const lastPipelineIid = async (db: Db, projectId: number): Promise<number> =>
  (await db.selectFrom('ci_pipelines').select('iid').where('project_id', '=', projectId).orderBy('iid', 'desc').limit(1).executeTakeFirst())?.iid ?? 0;
