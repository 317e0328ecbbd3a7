// THE check for every ref change, whatever its path (git push over HTTP, commits API, files API,
// branch create/delete API). Callers collect the updates and call checkRefUpdates before git
// moves any ref; a refusal throws forbidden(<message shown to the user>) and changes nothing.
import type { Container } from '../../container.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { forbidden } from '../errors.js';
import { ACCESS } from '../members/policy.js';
import { projectAccess } from '../projects/policy.js';

export interface RefUpdate {
  /** Full ref name: refs/heads/<branch> or refs/tags/<tag>. */
  ref: string;
  /** ZERO_SHA when the ref is created. */
  oldSha: string;
  /** ZERO_SHA when the ref is deleted. */
  newSha: string;
  /** True when newSha does not descend from oldSha (a force push); computed by the caller. */
  force: boolean;
  /** Paths the update touches (for code-owner rules), when the caller knows them cheaply. */
  changedPaths?: string[];
}

/**
 * Refuses updates the actor may not make. Base rules: archived projects refuse every push;
 * pushing needs developer access. Protected branch rules (push/merge/unprotect levels, user
 * and group entries, force push, deletion, code owners) are applied by the protected
 * branches area inside this same function.
 */
export async function checkRefUpdates(c: Container, actor: Actor, project: ProjectRow, updates: RefUpdate[]): Promise<void> {
  if (project.archived === 1) throw forbidden('You are not allowed to push code to an archived project.');
  const access = await projectAccess(c, actor, project);
  if (!access.admin && access.level < ACCESS.DEVELOPER) throw forbidden('You are not allowed to push code to this project.');
  void updates;
}
