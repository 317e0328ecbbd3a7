// THE check for every ref change, whatever its path (git push over HTTP, commits API, files API,
// branch and tag create/delete API). Callers collect the updates and call checkRefUpdates before git
// moves any ref; a refusal throws pushRefused(<message shown to the user>) and changes nothing.
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { branchesContaining, diffPaths, fileAt, HEADS, TAGS } from '../../git/refs.js';
import { ZERO_SHA } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { pushRefused } from '../errors.js';
import { canDeleteProtectedBranch, canPushCode, projectAccess } from '../projects/policy.js';
import { codeOwnerPatternsMatched, parseCodeOwners } from '../protected_branches/code_owners.js';
import { canCreateTag, isProtectedTag, loadTagProtection } from '../protected_tags/policy.js';
import { anyEntryAllows, entriesFor, loadProtection, matchingRules, type ProtectionSet, type Pusher } from '../protected_branches/policy.js';
import { repositoryDir } from './service.js';

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
  /** Git environment that makes not-yet-accepted objects visible (a push's quarantine), for lazy reads. */
  objectEnv?: Record<string, string>;
}

export interface RefCheckOptions {
  /**
   * Where the change comes from: 'web' for the API (branch, commits and files endpoints), 'git'
   * for a push. Protected branches may be created by mergers and deleted by maintainers only
   * through the API, as the reference allows it only from the web/API. Default 'git' (stricter).
   */
  via?: 'web' | 'git';
  /**
   * The change is a merge request's merge: on a protected branch the merge entries decide instead
   * of the push entries (the reference's can_merge_to_branch?), and code owners approve through
   * the request rather than the push.
   */
  merge?: boolean;
}

/** The reference's git check messages (lib/gitlab/checks/branch_check.rb). */
export const REF_MESSAGES = {
  deleteDefaultBranch: 'The default branch of a project cannot be deleted.',
  forcePushProtected: 'You are not allowed to force push code to a protected branch on this project.',
  nonMaintainerDeleteProtected:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  nonWebDeleteProtected: 'You can only delete protected branches using the web interface.',
  pushProtected: 'You are not allowed to push code to protected branches on this project.',
  createProtected: 'You are not allowed to create protected branches on this project.',
  invalidCommitCreateProtected: 'You can only use an existing protected branch ref as the basis of a new protected branch.',
  nonWebCreateProtected: 'You can only create protected branches using the web interface and API.',
  hexBranchName: 'You cannot create a branch with a 40-character hexadecimal branch name.',
} as const;

/** The reference's refusal of a push by a deploy key without write access (lib/gitlab/git_access.rb). */
export const DEPLOY_KEY_UPLOAD = 'This deploy key does not have write access to this project.';

/** The reference's tag check messages (lib/gitlab/checks/tag_check.rb). */
export const TAG_MESSAGES = {
  updateProtected: 'Protected tags cannot be updated.',
  deleteProtected: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
  nonWebDeleteProtected: 'You can only delete protected tags using the web interface.',
  createProtected: 'You are not allowed to create this tag as it is protected.',
  defaultBranchCollision: 'You cannot use default branch name to create a tag',
} as const;

/**
 * Refuses updates the actor may not make. Base rules: archived projects refuse every push;
 * pushing needs developer access. Then, per branch update, the reference's branch checks: the
 * default branch cannot be deleted; no 40-hex branch names; and on a protected branch (every
 * matching rule, exact name first, then wildcards — the most permissive rule wins):
 * - force push only when a matching rule has allow_force_push;
 * - create: allowed to push, or allowed to merge when the new commit is already on a protected
 *   branch and the change comes from the API;
 * - delete: maintainers (and admins) only, and only through the API;
 * - update: a push entry must allow the actor (role ≥ level; "No one"; admin level; a user; a
 *   member of a group);
 * - code_owner_approval_required: refused when the touched paths match a pattern of the
 *   CODEOWNERS file on the branch's current tip (root, docs/ or .service/).
 */
export async function checkRefUpdates(c: Container, actor: Actor, project: ProjectRow, updates: RefUpdate[], opts: RefCheckOptions = {}): Promise<void> {
  if (project.archived === 1) throw pushRefused('You are not allowed to push code to an archived project.');
  const access = await projectAccess(c, actor, project);
  if (!canPushCode(project, access)) throw pushRefused(actor.deployKey ? DEPLOY_KEY_UPLOAD : 'You are not allowed to push code to this project.');

  const via = opts.via ?? 'git';
  const who: Pusher = { actor, access };
  await checkTagUpdates(c, who, project, updates.filter((u) => u.ref.startsWith(TAGS)), via);

  const branchUpdates = updates.filter((u) => u.ref.startsWith(HEADS));
  if (branchUpdates.length === 0) return;
  const set = await loadProtection(c, project.id);
  const dir = repositoryDir(c, project.id);

  for (const u of branchUpdates) {
    const branch = u.ref.slice(HEADS.length);
    const creation = u.oldSha === ZERO_SHA;
    const deletion = u.newSha === ZERO_SHA;
    if (deletion && branch === project.default_branch) throw pushRefused(REF_MESSAGES.deleteDefaultBranch);
    if (creation && /^[0-9a-f]{40}$/i.test(branch)) throw pushRefused(REF_MESSAGES.hexBranchName);

    const rules = matchingRules(set, branch);
    if (rules.length === 0) continue;

    if (u.force && !deletion && !creation && !rules.some((r) => r.allow_force_push === 1)) throw pushRefused(REF_MESSAGES.forcePushProtected);
    // A deploy key passes a protected branch only by an entry naming it, which Anvil's rules do not have.
    const canPush = !actor.deployKey && (await anyEntryAllows(c, who, entriesFor(set, rules, opts.merge && !creation && !deletion ? 'merge' : 'push')));

    if (creation) {
      if (!canPush) {
        if (actor.deployKey || !(await anyEntryAllows(c, who, entriesFor(set, rules, 'merge')))) throw pushRefused(REF_MESSAGES.createProtected);
        if (!(await onProtectedBranch(dir, set, u.newSha))) throw pushRefused(REF_MESSAGES.invalidCommitCreateProtected);
        if (via !== 'web') throw pushRefused(REF_MESSAGES.nonWebCreateProtected);
      }
      continue; // a new branch has no CODEOWNERS of its own yet
    }
    if (deletion) {
      // push_to_delete_protected_branch: maintainers, owners, admins.
      if (!canDeleteProtectedBranch(access)) throw pushRefused(REF_MESSAGES.nonMaintainerDeleteProtected);
      if (via !== 'web') throw pushRefused(REF_MESSAGES.nonWebDeleteProtected);
      continue;
    }
    if (!canPush) throw pushRefused(REF_MESSAGES.pushProtected);

    if (!opts.merge && rules.some((r) => r.code_owner_approval_required === 1)) {
      const paths = u.changedPaths ?? (await diffPaths(dir, u.oldSha, u.newSha, u.objectEnv)) ?? [];
      const matched = await codeOwnerMatches(dir, u.oldSha, paths);
      if (matched.length) throw pushRefused(codeOwnersMessage(matched));
    }
  }
}

/**
 * The reference's tag checks: a new tag may not take the default branch's name; a protected tag
 * (any matching rule) is never moved; it is deleted only by maintainers and only through the API;
 * and whoever creates or deletes it must be allowed to create it (a create entry lets them through).
 */
async function checkTagUpdates(c: Container, who: Pusher, project: ProjectRow, updates: RefUpdate[], via: 'web' | 'git'): Promise<void> {
  if (updates.length === 0) return;
  const set = await loadTagProtection(c, project.id);
  for (const u of updates) {
    const tag = u.ref.slice(TAGS.length);
    const creation = u.oldSha === ZERO_SHA;
    const deletion = u.newSha === ZERO_SHA;
    if (creation && tag === project.default_branch) throw pushRefused(TAG_MESSAGES.defaultBranchCollision);
    if (!isProtectedTag(set, tag)) continue;
    if (!creation && !deletion) throw pushRefused(TAG_MESSAGES.updateProtected);
    if (deletion) {
      if (!canDeleteProtectedBranch(who.access)) throw pushRefused(TAG_MESSAGES.deleteProtected);
      if (via !== 'web') throw pushRefused(TAG_MESSAGES.nonWebDeleteProtected);
    }
    if (who.actor.deployKey || !(await canCreateTag(c, who, project, set, tag))) throw pushRefused(TAG_MESSAGES.createProtected);
  }
}

/** True when the commit is already on (reachable from) a protected branch. */
async function onProtectedBranch(dir: string, set: ProtectionSet, sha: string): Promise<boolean> {
  return (await branchesContaining(dir, sha)).some((b) => matchingRules(set, b).length > 0);
}

const CODEOWNERS_PATHS = ['CODEOWNERS', 'docs/CODEOWNERS', '.service/CODEOWNERS'];

/** Patterns of the branch tip's CODEOWNERS file (the first found of root, docs/, .service/) that own a touched path. */
async function codeOwnerMatches(dir: string, tip: string, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  for (const p of CODEOWNERS_PATHS) {
    const text = await fileAt(dir, tip, p);
    if (text !== null) return codeOwnerPatternsMatched(parseCodeOwners(text), paths);
  }
  return [];
}

/** The reference's Gitlab::CodeOwners::Validator message. */
function codeOwnersMessage(patterns: string[]): string {
  return (
    'Pushes to protected branches that contain changes to files that\n' +
    'match patterns defined in `CODEOWNERS` are disabled for\n' +
    'this project. Please submit these changes via a merge request.\n\n' +
    'The following pattern(s) from `CODEOWNERS` were matched:\n' +
    patterns.map((p) => `- ${p}\n`).join('')
  );
}
