// Which protected branch rules apply to a branch, and whether a user passes their access entries.
//
// Matching as the reference's ProtectedRefMatcher: a rule matches a branch when its name equals
// the branch name, or when it holds `*` and, read as a pattern where `*` is any run of
// characters (anchored at both ends), matches it. Every matching rule counts, exact names first:
// an action is allowed when ANY matching rule's entries allow it (the reference's "most
// permissive rule wins"); force pushes likewise when any matching rule allows them.
import type { Container } from '../context.js';
import { findNamespaceById } from '../../db/repos/namespaces.js';
import { accessEntriesOf, protectedBranchesOf, type AccessEntryRow, type ProtectedBranchRow } from '../../db/repos/protected_branches.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { ACCESS, accessLevelInGroup } from '../members/policy.js';
import { canPushCode, type ProjectAccess } from '../projects/policy.js';

export const NO_ACCESS = 0;
export const ADMIN_ACCESS = 60;
/** Levels a role entry may have (the reference's allowed_access_levels). */
export const ALLOWED_ACCESS_LEVELS = [ACCESS.DEVELOPER, ACCESS.MAINTAINER, ADMIN_ACCESS, NO_ACCESS] as const;
export const HUMAN_ACCESS_LEVELS: Record<number, string> = {
  [ACCESS.DEVELOPER]: 'Developers + Maintainers',
  [ACCESS.MAINTAINER]: 'Maintainers',
  [ADMIN_ACCESS]: 'Instance admins',
  [NO_ACCESS]: 'No one',
};

export type AccessKind = 'push' | 'merge' | 'unprotect';

/** An entry as stored (of a protected branch or tag): a role, a user or a group. */
export type AccessSpec = Pick<AccessEntryRow, 'access_level' | 'user_id' | 'group_id'>;

export const isWildcard = (name: string): boolean => name.includes('*');

function wildcardRegex(name: string): RegExp {
  const body = name
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${body}$`);
}

export function ruleMatches(ruleName: string, branch: string): boolean {
  return ruleName === branch || (isWildcard(ruleName) && wildcardRegex(ruleName).test(branch));
}

/** A project's rules with their entries, loaded once and matched many times (lists, pushes of many refs). */
export interface ProtectionSet {
  rules: ProtectedBranchRow[];
  entries: Map<number, AccessEntryRow[]>;
}

export async function loadProtection(c: Container, projectId: number): Promise<ProtectionSet> {
  const rules = await protectedBranchesOf(c.db, projectId);
  return { rules, entries: groupBy(await accessEntriesOf(c.db, rules.map((r) => r.id)), (e) => e.protected_branch_id) };
}

/** The rules (of branches or tags) that apply to a ref: the exact name first, then matching wildcards in creation order. */
export function rulesFor<R extends { name: string }>(rules: R[], ref: string): R[] {
  const exact = rules.filter((r) => r.name === ref);
  const wild = rules.filter((r) => r.name !== ref && ruleMatches(r.name, ref));
  return [...exact, ...wild];
}

/** The rules that apply to a branch. */
export const matchingRules = (set: ProtectionSet, branch: string): ProtectedBranchRow[] => rulesFor(set.rules, branch);

/** Rows grouped by one of their columns (a rule's entries by the rule's id), in their order. */
export function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

export const entriesFor = (set: ProtectionSet, rules: ProtectedBranchRow[], kind: AccessKind): AccessEntryRow[] =>
  rules.flatMap((r) => (set.entries.get(r.id) ?? []).filter((e) => e.kind === kind));

/** Who the user is to the project, as the entry checks need it. */
export interface Pusher {
  actor: Actor;
  /** Who the actor is to the project (role, admin). */
  access: ProjectAccess;
}

/**
 * One entry against one user, as the reference's ProtectedRefAccess#check_access: "No one" lets
 * nobody through; the admin level only administrators; a role needs push rights (developer) and
 * at least that role — administrators pass role entries too (push_code is theirs); a user entry
 * names the user; a group entry needs membership of that group (inherited from above counts).
 */
export async function entryAllows(c: Container, who: Pusher, e: AccessSpec): Promise<boolean> {
  const { admin, level: role } = who.access;
  if (e.user_id !== null) return e.user_id === who.actor.user.id;
  if (e.group_id !== null) {
    const group = await findNamespaceById(c.db, e.group_id);
    return !!group && (await accessLevelInGroup(c, who.actor.user.id, group)) > ACCESS.NONE;
  }
  const level = e.access_level ?? NO_ACCESS;
  if (level === NO_ACCESS) return false;
  if (level === ADMIN_ACCESS) return admin;
  return admin || (role >= ACCESS.DEVELOPER && role >= level);
}

export async function anyEntryAllows(c: Container, who: Pusher, entries: AccessSpec[]): Promise<boolean> {
  for (const e of entries) if (await entryAllows(c, who, e)) return true;
  return false;
}

/**
 * The reference's UserAccess#can_push_to_branch?: nobody anonymous; not in an archived project;
 * on a protected branch, a push entry of a matching rule; elsewhere developer access (push_code).
 */
export async function canPushToBranch(c: Container, who: Pusher | null, project: ProjectRow, set: ProtectionSet, branch: string): Promise<boolean> {
  if (!who || project.archived === 1) return false;
  const rules = matchingRules(set, branch);
  if (rules.length === 0) return canPushCode(project, who.access);
  return anyEntryAllows(c, who, entriesFor(set, rules, 'push'));
}

/** developers_can_push / developers_can_merge of the Branch entity: a matching rule has a developer role entry. */
export function developersCan(set: ProtectionSet, branch: string, kind: 'push' | 'merge'): boolean {
  return entriesFor(set, matchingRules(set, branch), kind).some((e) => e.access_level === ACCESS.DEVELOPER);
}

/**
 * The reference's UserAccess#can_merge_to_branch?: as can_push_to_branch?, with the merge entries
 * of a protected branch (who may accept a merge request into it).
 */
export async function canMergeToBranch(c: Container, who: Pusher | null, project: ProjectRow, set: ProtectionSet, branch: string): Promise<boolean> {
  if (!who || project.archived === 1) return false;
  const rules = matchingRules(set, branch);
  if (rules.length === 0) return canPushCode(project, who.access);
  return anyEntryAllows(c, who, entriesFor(set, rules, 'merge'));
}
