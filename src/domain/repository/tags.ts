// The tags API: a project's tags with their commits, searched, ordered and paged as the reference's;
// created (lightweight, or annotated with a message) and deleted through the ref checks, like a push.
import type { Container } from '../context.js';
import { createTagRef, deleteTagRef, isValidBranchName, TAGS, writeTagObject } from '../../git/refs.js';
import { listTags as gitTags, type TagInfo } from '../../git/ref_files.js';
import { resolveRevision, ZERO_SHA } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { branchSearch } from '../branches/service.js';
import { apiError, forbidden, notFound } from '../errors.js';
import { canDeleteProtectedBranch, canPushCode } from '../projects/policy.js';
import { isProtectedTag, loadTagProtection, type TagProtectionSet } from '../protected_tags/policy.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { releasesOfTags, type ReleaseRow } from '../../db/repos/releases.js';
import { readableRepository, type RepositoryRef } from './commits.js';
import { checkRefUpdates, type RefUpdate } from './protection.js';
import { moveRefs } from './ref_changes.js';

export interface TagView {
  tag: TagInfo;
  project: ProjectRow;
  protected: boolean;
  /** The tag's release (the reference shows its tag name and notes), or null. */
  release: ReleaseRow | null;
}

const viewOf = (repo: RepositoryRef, set: TagProtectionSet, tag: TagInfo, releases: Map<string, ReleaseRow>): TagView => ({
  tag,
  project: repo.row,
  protected: isProtectedTag(set, tag.name),
  release: releases.get(tag.name) ?? null,
});

async function releasesOf(c: Container, projectId: number, tags: TagInfo[]): Promise<Map<string, ReleaseRow>> {
  return new Map((await releasesOfTags(c.db, projectId, tags.map((t) => t.name))).map((r) => [r.tag, r]));
}

export interface ListTagsInput {
  order_by?: 'name' | 'updated' | 'version';
  sort?: 'asc' | 'desc';
  search?: string;
}

/** Dotted numbers compared as numbers (`v1.10` after `v1.9`), the rest as text. */
function versionCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** GET /projects/:id/repository/tags: newest first by default (order_by=updated, sort=desc). */
export async function listTags(c: Container, actor: Actor | null, idOrPath: number | string, input: ListTagsInput, page: PageRequest): Promise<PageResult<TagView>> {
  const repo = await readableRepository(c, actor, idOrPath);
  const all = await gitTags(repo.dir);
  const names = new Set(branchSearch(all.map((t) => t.name), input.search));
  const tags = all.filter((t) => names.has(t.name));
  const by = input.order_by ?? 'updated';
  const cmp =
    by === 'name'
      ? (a: TagInfo, b: TagInfo) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
      : by === 'version'
        ? (a: TagInfo, b: TagInfo) => versionCompare(a.name, b.name)
        : (a: TagInfo, b: TagInfo) => Date.parse(a.date) - Date.parse(b.date) || (a.name < b.name ? -1 : 1);
  tags.sort(cmp);
  if ((input.sort ?? 'desc') === 'desc') tags.reverse();
  const perPage = page.perPage;
  const start = page.kind === 'offset' ? (page.page - 1) * perPage : 0;
  const set = await loadTagProtection(c, repo.row.id);
  const pageTags = tags.slice(start, start + perPage);
  const releases = await releasesOf(c, repo.row.id, pageTags);
  return {
    items: pageTags.map((tag) => viewOf(repo, set, tag, releases)),
    total: tags.length,
    hasNext: start + perPage < tags.length,
  };
}

export async function getTag(c: Container, actor: Actor | null, idOrPath: number | string, name: string): Promise<TagView> {
  const repo = await readableRepository(c, actor, idOrPath);
  const tag = (await gitTags(repo.dir)).find((t) => t.name === name);
  if (!tag) throw notFound('Tag');
  return viewOf(repo, await loadTagProtection(c, repo.row.id), tag, await releasesOf(c, repo.row.id, [tag]));
}

export interface CreateTagInput {
  tag_name: string;
  ref: string;
  message?: string;
}

/** Names the reference's GitRefValidator refuses: git's own rules, and no `refs/…` names. */
const validTagName = (name: string): boolean => isValidBranchName(name) && !name.startsWith('refs/');

/**
 * POST /projects/:id/repository/tags (admin_tag: developers and up). A message makes an annotated
 * tag. The reference's Tags::CreateService answers its refusals as 400 with a message: an invalid
 * name, a taken name, an unknown target, or the ref check's words (a protected tag).
 */
export async function createTag(c: Container, actor: Actor, idOrPath: number | string, input: CreateTagInput): Promise<TagView> {
  const repo = await readableRepository(c, actor, idOrPath);
  if (!canPushCode(repo.row, repo.access)) throw forbidden();
  if (!validTagName(input.tag_name)) throw apiError('Tag name invalid');
  if (await resolveRevision(repo.dir, TAGS + input.tag_name)) throw apiError(`Tag ${input.tag_name} already exists`);
  const commit = await resolveRevision(repo.dir, input.ref);
  if (!commit) throw apiError(`Target ${input.ref} is invalid`);
  const message = input.message?.trim() ?? '';
  const tagger = { name: actor.user.name, email: actor.user.commit_email || actor.user.email };
  const sha = message ? await writeTagObject(repo.dir, input.tag_name, commit, message, tagger) : commit;
  const update: RefUpdate = { ref: TAGS + input.tag_name, oldSha: ZERO_SHA, newSha: sha, force: false };
  await checkRefUpdates(c, actor, repo.row, [update], { via: 'web' });
  if (!(await moveRefs(c, actor, repo.row, [update], () => createTagRef(repo.dir, input.tag_name, sha)))) throw apiError(`Tag ${input.tag_name} already exists`);
  return getTag(c, actor, repo.row.id, input.tag_name);
}

/**
 * DELETE /projects/:id/repository/tags/:tag_name: 404 for an unknown tag; delete_tag (developers,
 * and maintainers for a protected tag) else 403; If-Unmodified-Since against the commit's authored
 * date; then the ref checks (a protected tag needs create rights too).
 */
export async function deleteTag(c: Container, actor: Actor, idOrPath: number | string, name: string, ifUnmodifiedSince: Date | null): Promise<void> {
  const repo = await readableRepository(c, actor, idOrPath);
  const tag = (await gitTags(repo.dir)).find((t) => t.name === name);
  if (!tag) throw notFound('Tag');
  const set = await loadTagProtection(c, repo.row.id);
  if (!canPushCode(repo.row, repo.access) || (isProtectedTag(set, name) && !canDeleteProtectedBranch(repo.access))) throw forbidden();
  if (tag.commit) checkUnmodifiedSince(tag.commit.authoredDate, ifUnmodifiedSince);
  const update: RefUpdate = { ref: TAGS + name, oldSha: tag.target, newSha: ZERO_SHA, force: false };
  await checkRefUpdates(c, actor, repo.row, [update], { via: 'web' });
  if (!(await moveRefs(c, actor, repo.row, [update], () => deleteTagRef(repo.dir, name, tag.target)))) throw apiError('Failed to remove tag');
}
