// Who may do what with issues (the reference's IssuePolicy and the project's issue abilities).
//
// - Reading: whoever sees the project while its issues feature is on for them (`private`:
//   members only). A confidential issue only for reporters and above, admins, its author and
//   its assignees.
// - Opening: signed-in users who may read the project's issues; never in an archived project.
// - Changing title, description and state: reporters and above, the author, the assignees.
//   Metadata (labels, milestone, assignees, due date, confidentiality, lock, weight): reporters
//   and above (admin_issue); others' metadata parameters are ignored, as the reference does.
// - Deleting: owners and admins.
import type { ProjectRow } from '../../db/repos/projects.js';
import { ACCESS } from '../members/policy.js';
import { featureAvailable, type ProjectAccess } from '../projects/policy.js';

export const canReadIssues = (p: ProjectRow, a: ProjectAccess): boolean => a.canRead && featureAvailable(p.issues_access_level, a);
export const canReadConfidentialIssues = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.REPORTER;
export const canCreateIssue = (p: ProjectRow, a: ProjectAccess): boolean => a.signedIn && canReadIssues(p, a) && p.archived !== 1;
export const canAdminIssues = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.REPORTER;
export const canDeleteIssues = (a: ProjectAccess): boolean => a.admin || a.level >= ACCESS.OWNER;

export interface IssueFacts {
  confidential: number;
  author_id: number | null;
}

/** read_issue of one issue, given who is assigned to it. */
export function canReadIssue(p: ProjectRow, a: ProjectAccess, issue: IssueFacts, userId: number | null, assigneeIds: number[]): boolean {
  if (!canReadIssues(p, a)) return false;
  if (issue.confidential !== 1 || canReadConfidentialIssues(a)) return true;
  return userId !== null && (issue.author_id === userId || assigneeIds.includes(userId));
}

/** update_issue: reporters and above, the author, the assignees (never in an archived project). */
export function canUpdateIssue(p: ProjectRow, a: ProjectAccess, issue: IssueFacts, userId: number | null, assigneeIds: number[]): boolean {
  if (p.archived === 1 || userId === null) return false;
  return canAdminIssues(a) || issue.author_id === userId || assigneeIds.includes(userId);
}
