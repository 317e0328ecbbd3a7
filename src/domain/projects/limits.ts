// The personal project limit (the reference's Project#check_personal_projects_limit): a user may
// own at most `projects_limit` projects in their personal namespace; 0 forbids personal projects.
// New users get the instance's `default_projects_limit`. Group projects are not limited.
import type { Container } from '../context.js';
import type { NamespaceRow } from '../../db/repos/namespaces.js';
import { countProjectsInNamespace } from '../../db/repos/project_limits.js';
import type { UserRow } from '../../db/repos/users.js';

/** The reference's message when `creator` may not create one more personal project, else null. */
export async function personalProjectsLimitError(c: Container, creator: UserRow, ns: NamespaceRow): Promise<string | null> {
  if (ns.kind === 'group') return null;
  const limit = creator.projects_limit;
  const owned = creator.namespace_id === null ? 0 : await countProjectsInNamespace(c.db, creator.namespace_id);
  if (limit - owned > 0) return null;
  return limit === 0
    ? 'Personal project creation is not allowed. Please contact your administrator with questions'
    : `Your project limit is ${limit} projects! Please contact your administrator to increase it`;
}
