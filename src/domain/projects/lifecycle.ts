// Archive and unarchive, deletion (at once, or delayed with restore), and languages.
//
// Deletion follows the reference: with the instance settings' delayed_project_deletion on, DELETE
// archives the project and marks it (marked_for_deletion_on = today); it stays visible, and the
// job `project_destroy` removes it once deletion_adjourned_period days have passed, unless it was
// restored. Without delayed deletion the rows go at once (every lookup and list stops seeing the
// project with the 202) and the same job finishes the work outside the database (blobs).
import type { Container } from '../context.js';
import { clearDeletionMark, destroyProjectRows, markForDeletion, projectIdsInNamespaces, setArchived } from '../../db/repos/project_lifecycle.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import type { Actor } from '../auth/actor.js';
import { apiError, forbidden } from '../errors.js';
import { recordEvent } from '../events/service.js';
import { projectSystemEvent } from '../hooks/events.js';
import { getSettings } from '../settings/service.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { nowIso, today } from '../../shared/time.js';
import { repositoryLanguages } from '../repository/languages.js';
import { removeProjectRepository } from '../repository/service.js';
import { isProjectOwner } from './policy.js';
import { view, type ProjectView } from './service.js';
import { findProject } from './find.js';
import { now as clockNow } from '../../shared/clock.js';

export const PROJECT_DESTROY_JOB = 'project_destroy';
const DAY_MS = 86_400_000;

/** POST /projects/:id/archive and /unarchive: owners and admins; asking for the state it is in changes nothing. */
export async function setProjectArchived(c: Container, actor: Actor, idOrPath: number | string, archived: boolean): Promise<ProjectView> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!isProjectOwner(access)) throw forbidden();
  if ((row.archived === 1) === archived) return view(c, actor, row, { full: true });
  const updated = await setArchived(c.db, row.id, archived, nowIso());
  // The reference archives through its project update service: the event is `updated` (there is no `archived` action).
  await recordEvent(c, { action: 'updated', authorId: actor.user.id, projectId: row.id });
  return view(c, actor, updated, { full: true });
}

/** Everything of the project outside the database: blobs and its repository. */
async function removeProjectFiles(c: Container, projectId: number): Promise<void> {
  await c.storage.deletePrefix(`projects/${projectId}/`);
  removeProjectRepository(c, projectId);
}

/** DELETE /projects/:id: owners and admins; 202 whether the project is marked or gone. */
export async function deleteProject(c: Container, actor: Actor, idOrPath: number | string, ifUnmodifiedSince: Date | null = null): Promise<void> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!isProjectOwner(access)) throw forbidden();
  checkUnmodifiedSince(row.updated_at, ifUnmodifiedSince);

  const settings = await getSettings(c);
  if (settings.delayed_project_deletion) {
    // Marked already: the reference accepts the request and changes nothing.
    if (row.marked_for_deletion_on !== null) return;
    const runAt = new Date(clockNow() + Number(settings.deletion_adjourned_period) * DAY_MS);
    await markForDeletion(c.db, row.id, { on: today(), userId: actor.user.id, at: nowIso() }, async (tx) => {
      await c.queue.enqueue(PROJECT_DESTROY_JOB, { projectId: row.id }, { trx: tx, runAt });
    });
    return;
  }
  // The rows go now; the job queued with them removes the files even if this process stops here.
  await destroyProjectRows(c.db, row.id, async (tx) => {
    await c.queue.enqueue(PROJECT_DESTROY_JOB, { projectId: row.id }, { trx: tx });
    await projectSystemEvent(c, tx, 'project_destroy', row);
  });
  await recordDestroyed(c, row, actor.user.id);
  await removeProjectFiles(c, row.id);
}

/**
 * Removes every project in these namespaces the way a project DELETE without delay does (rows now,
 * files by the queued job), before a group deletion removes the namespaces themselves.
 */
export async function destroyProjectsInNamespaces(c: Container, actor: Actor, namespaceIds: number[]): Promise<void> {
  for (const id of await projectIdsInNamespaces(c.db, namespaceIds)) {
    const row = await findProjectById(c.db, id);
    const gone = await destroyProjectRows(c.db, id, async (tx) => {
      await c.queue.enqueue(PROJECT_DESTROY_JOB, { projectId: id }, { trx: tx });
      if (row) await projectSystemEvent(c, tx, 'project_destroy', row);
    });
    if (gone && row) await recordDestroyed(c, row, actor.user.id);
    await removeProjectFiles(c, id);
  }
}

/** The `destroyed` event: about a project that is gone, so it names the project as its target. */
async function recordDestroyed(c: Container, row: ProjectRow, authorId: number | null): Promise<void> {
  if (authorId === null || !(await findUserById(c.db, authorId))) return;
  await recordEvent(c, { action: 'destroyed', authorId, projectId: null, target: { type: 'Project', id: row.id, title: row.name } });
}

/** POST /projects/:id/restore: owners and admins; clears the deletion mark and the archive that came with it. */
export async function restoreProject(c: Container, actor: Actor, idOrPath: number | string): Promise<ProjectView> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!isProjectOwner(access)) throw forbidden();
  // The reference's restore service refuses a project that is not marked; one whose removal has
  // begun cannot be found here (Anvil removes a project's rows in one transaction).
  if (row.marked_for_deletion_on === null) throw apiError('Project has not been marked for deletion');
  return view(c, actor, await clearDeletionMark(c.db, row.id, nowIso()), { full: true });
}

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * The `project_destroy` job, idempotent: a project that is gone gets its files removed (again); a
 * restored one is left alone; a marked one is removed once its mark is deletion_adjourned_period
 * days old (a later mark, after a restore, or a longer period puts the removal off to that day).
 */
export async function runProjectDestroy(c: Container, payload: { projectId: number }): Promise<void> {
  const id = Number(payload.projectId);
  const row = await findProjectById(c.db, id);
  if (!row) return removeProjectFiles(c, id);
  if (row.marked_for_deletion_on === null) return;
  const due = addDays(row.marked_for_deletion_on, Number((await getSettings(c)).deletion_adjourned_period));
  if (due > today()) {
    await c.queue.enqueue(PROJECT_DESTROY_JOB, { projectId: id }, { runAt: `${due}T00:00:00.000Z` });
    return;
  }
  if (await destroyProjectRows(c.db, id, (tx) => projectSystemEvent(c, tx, 'project_destroy', row))) await recordDestroyed(c, row, row.deleting_user_id);
  await removeProjectFiles(c, id);
}

/** GET /projects/:id/languages: language name → percentage of the default branch's files (repository/languages.ts). */
export const projectLanguages = (c: Container, actor: Actor | null, idOrPath: number | string): Promise<Record<string, number>> =>
  repositoryLanguages(c, actor, idOrPath);
