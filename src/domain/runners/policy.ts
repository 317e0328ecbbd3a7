// Who may see and change a runner (the reference's RunnerPolicy, as far as Anvil has it):
// administrators every runner; a project's maintainers the project runners assigned to it;
// a group's owners its group runners.
import type { Actor } from '../auth/actor.js';
import { isAdmin } from '../auth/actor.js';
import type { ProjectAccess } from '../projects/policy.js';
import { canAdminProject } from '../projects/policy.js';
import type { GroupAccess } from '../members/policy.js';

/** Lists a project's runners, assigns and unassigns them, resets its registration token. */
export const canManageProjectRunners = (a: ProjectAccess): boolean => canAdminProject(a);
/** Lists a group's runners, resets its registration token. */
export const canManageGroupRunners = (a: GroupAccess): boolean => a.canAdmin;
/** Every runner, the instance's included. */
export const canManageAllRunners = (actor: Actor | null): boolean => isAdmin(actor);
