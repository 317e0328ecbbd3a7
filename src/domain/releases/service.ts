// Releases: one per tag, with asset links, read and changed as the reference's Releases::*Service.
// A release made for a tag that does not exist yet creates the tag from `ref` through the tags
// API's own path (createTag: its checks, its ref change, its push events). Hooks with
// `releases_events` hear of each release created or changed.
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import {
  deleteRelease as deleteReleaseRow, deleteReleaseLink, findReleaseByTag, findReleaseLink, findReleaseLinkByFilepath, insertRelease,
  insertReleaseLink, latestRelease, linksOfReleases, pageReleaseLinks, pageReleases, releasesOfTags, updateRelease as updateReleaseRow,
  updateReleaseLink, type NewReleaseLink, type ReleaseLinkRow, type ReleaseRow,
} from '../../db/repos/releases.js';
import { findUsersByIds, type UserRow } from '../../db/repos/users.js';
import { inTransaction } from '../../db/transaction.js';
import { readCommitsBySha, type CommitInfo } from '../../git/objects.js';
import { TAGS } from '../../git/refs.js';
import { resolveRevision } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { apiError, forbidden, invalidParams, notFound, recordNotFound, refused, unprocessable, validation } from '../errors.js';
import { findProject, type FoundProject } from '../projects/find.js';
import { releaseHookEvent } from '../hooks/events.js';
import { repositoryDir } from '../repository/service.js';
import { createTag } from '../repository/tags.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { dateTimeParam } from '../shared/params.js';
import { canCreateReleases, canDownloadCode, canManageRelease, canReadReleases } from './policy.js';

export const LINK_TYPES = ['other', 'runbook', 'image', 'package'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/** A release with what presenting it needs, as the actor may see it. */
export interface ReleaseView {
  row: ReleaseRow;
  project: ProjectRow;
  author: UserRow | null;
  /** The tag's commit (null when the tag is gone or the actor may not read code). */
  commit: CommitInfo | null;
  links: ReleaseLinkRow[];
  /** download_code: the tag, the commit and the source archives are shown. */
  downloadCode: boolean;
  /** update_release: `_links.edit_url` is shown. */
  canEdit: boolean;
}

/** The project with the actor's access; read_release else 403 (an invisible project is 404). */
async function readableProject(c: Container, actor: Actor | null, idOrPath: number | string): Promise<FoundProject> {
  const found = await findProject(c, actor, idOrPath);
  if (!canReadReleases(found.access)) throw forbidden();
  return found;
}

/** Views of these releases: their authors, commits and links read at once. */
async function views(c: Container, actor: Actor | null, found: FoundProject, rows: ReleaseRow[]): Promise<ReleaseView[]> {
  if (rows.length === 0) return [];
  const downloadCode = canDownloadCode(found.access);
  const authorIds = [...new Set(rows.map((r) => r.author_id).filter((id): id is number => id !== null))];
  const authors = new Map((await findUsersByIds(c.db, authorIds)).map((u) => [u.id, u]));
  const shas = downloadCode ? [...new Set(rows.map((r) => r.sha).filter((s): s is string => !!s))] : [];
  const commits = new Map((shas.length ? await readCommitsBySha(repositoryDir(c, found.row.id), shas) : []).map((m) => [m.id, m]));
  const links = await linksOfReleases(c.db, rows.map((r) => r.id));
  const out: ReleaseView[] = [];
  for (const row of rows) {
    out.push({
      row,
      project: found.row,
      author: row.author_id === null ? null : (authors.get(row.author_id) ?? null),
      commit: row.sha ? (commits.get(row.sha) ?? null) : null,
      links: links.filter((l) => l.release_id === row.id),
      downloadCode,
      canEdit: await canManageRelease(c, actor, found.row, found.access, row.tag),
    });
  }
  return out;
}

const viewOf = async (c: Container, actor: Actor | null, found: FoundProject, row: ReleaseRow) => (await views(c, actor, found, [row]))[0]!;

export interface ListReleasesInput {
  order_by?: 'released_at' | 'created_at';
  sort?: 'asc' | 'desc';
  updated_before?: string;
  updated_after?: string;
}

/** GET /projects/:id/releases: newest released first unless asked otherwise. */
export async function listReleases(c: Container, actor: Actor | null, idOrPath: number | string, input: ListReleasesInput, page: PageRequest): Promise<PageResult<ReleaseView>> {
  const found = await readableProject(c, actor, idOrPath);
  const result = await pageReleases(
    c.db,
    found.row.id,
    {
      orderBy: input.order_by ?? 'released_at',
      sort: input.sort ?? 'desc',
      updatedBefore: dateTimeParam('updated_before', input.updated_before),
      updatedAfter: dateTimeParam('updated_after', input.updated_after),
    },
    page,
  );
  return { ...result, items: await views(c, actor, found, result.items) };
}

/** The project and the release of a tag for a reader of its code (GET of one release, its downloads). */
async function readRelease(c: Container, actor: Actor | null, idOrPath: number | string, tag: string): Promise<{ found: FoundProject; row: ReleaseRow }> {
  const found = await readableProject(c, actor, idOrPath);
  if (!canDownloadCode(found.access)) throw forbidden();
  const row = await findReleaseByTag(c.db, found.row.id, tag);
  if (!row) throw notFound();
  return { found, row };
}

export async function getRelease(c: Container, actor: Actor | null, idOrPath: number | string, tag: string): Promise<ReleaseView> {
  const { found, row } = await readRelease(c, actor, idOrPath, tag);
  return viewOf(c, actor, found, row);
}

/** GET /projects/:id/releases/permalink/latest: the tag of the newest release, for the redirect. */
export async function latestReleaseTag(c: Container, actor: Actor | null, idOrPath: number | string): Promise<{ projectId: number; tag: string }> {
  const found = await readableProject(c, actor, idOrPath);
  if (!canDownloadCode(found.access)) throw forbidden();
  const row = await latestRelease(c.db, found.row.id);
  if (!row) throw notFound();
  return { projectId: found.row.id, tag: row.tag };
}

/** Where a release asset's permanent path (`/-/releases/:tag/downloads/…`) leads: its link's URL. */
export async function releaseDownloadUrl(c: Container, actor: Actor | null, idOrPath: number | string, tag: string, filepath: string): Promise<string> {
  const { row } = await readRelease(c, actor, idOrPath, tag);
  const link = await findReleaseLinkByFilepath(c.db, row.id, `/${filepath.replace(/^\/+/, '')}`);
  if (!link) throw notFound();
  return link.url;
}

/** The releases of these tags (the tags API's `release`), by tag. */
export async function releasesByTag(c: Container, projectId: number, tags: string[]): Promise<Map<string, ReleaseRow>> {
  return new Map((await releasesOfTags(c.db, projectId, tags)).map((r) => [r.tag, r]));
}

// ---- links ----

export interface LinkInput {
  name?: string;
  url?: string;
  filepath?: string;
  link_type?: LinkType;
}

/** The reference's Releases::Link#filepath format: a path from `/` ending in a letter or digit. */
const FILEPATH_RE = /^\/(?:[-.\w]+\/?)*[\da-zA-Z]+$/;
const LINK_SCHEMES = ['http:', 'https:', 'ftp:'];

/** A link's own validation errors (url, filepath), field by field, as the reference's model gives them. */
function linkErrors(l: LinkInput, errors: Record<string, string[]>): void {
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (l.url !== undefined) {
    if (l.url.trim() === '') add('url', "can't be blank");
    else {
      let parsed: URL | null = null;
      try {
        parsed = new URL(l.url.trim());
      } catch {
        add('url', 'is blocked: URI is invalid');
      }
      if (parsed && !LINK_SCHEMES.includes(parsed.protocol)) add('url', 'is blocked: Only allowed schemes are http, https, ftp');
    }
  }
  if (l.name !== undefined && l.name.trim() === '') add('name', "can't be blank");
  if (l.filepath !== undefined && l.filepath !== '' && !FILEPATH_RE.test(l.filepath)) add('filepath', 'is in an invalid format');
}

/** Taken names, URLs and file paths among a release's other links. */
function clashErrors(l: LinkInput, others: ReleaseLinkRow[], errors: Record<string, string[]>): void {
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  if (l.url !== undefined && others.some((o) => o.url === l.url)) add('url', 'has already been taken');
  if (l.name !== undefined && others.some((o) => o.name === l.name)) add('name', 'has already been taken');
  if (l.filepath && others.some((o) => o.filepath === l.filepath)) add('filepath', 'has already been taken');
}

const linkRow = (l: Required<Pick<LinkInput, 'name' | 'url'>> & LinkInput, now: string): NewReleaseLink => ({
  name: l.name,
  url: l.url,
  filepath: l.filepath ? l.filepath : null,
  link_type: l.link_type ?? 'other',
  created_at: now,
  updated_at: now,
});

// ---- create, update, delete ----

export interface CreateReleaseInput {
  tag_name: string;
  tag_message?: string;
  name?: string;
  description?: string;
  ref?: string;
  assets?: { links?: Array<Required<Pick<LinkInput, 'name' | 'url'>> & LinkInput> };
  milestones?: string[];
  released_at?: string;
}

/**
 * Milestones by title. Anvil has no milestones yet: every title is one the reference would not
 * find, and says so; an empty list is fine.
 */
function checkMilestones(titles: string[] | undefined): void {
  const wanted = (titles ?? []).filter((t) => t !== '');
  if (wanted.length) throw apiError(`Milestone(s) not found: ${wanted.join(', ')}`, 400);
}

/** create_release on the project (developers, not archived): 403 Forbidden as the API's own check. */
async function writableProject(c: Container, actor: Actor | null, idOrPath: number | string): Promise<FoundProject> {
  const found = await readableProject(c, actor, idOrPath);
  if (!canCreateReleases(actor, found.row, found.access)) throw forbidden();
  return found;
}

/** POST /projects/:id/releases (also the CI `release:` keyword's way in). */
export async function createRelease(c: Container, actor: Actor, idOrPath: number | string, input: CreateReleaseInput): Promise<ReleaseView> {
  const found = await writableProject(c, actor, idOrPath);
  const project = found.row;
  if (!(await canManageRelease(c, actor, project, found.access, input.tag_name))) throw refused('You are not allowed to create this tag as it is protected.');
  const releasedAt = dateTimeParam('released_at', input.released_at);
  if (await findReleaseByTag(c.db, project.id, input.tag_name)) throw apiError('Release already exists', 409);
  checkMilestones(input.milestones);
  const links = input.assets?.links ?? [];
  const errors: Record<string, string[]> = {};
  links.forEach((l, i) => {
    linkErrors(l, errors);
    clashErrors(l, links.slice(0, i).map((o, j) => ({ id: j, release_id: 0, name: o.name, url: o.url, filepath: o.filepath ?? null, link_type: 'other', created_at: '', updated_at: '' })), errors);
  });
  if (Object.keys(errors).length) {
    const [field, messages] = Object.entries(errors)[0]!;
    throw apiError(`Validation failed: Links ${field} ${messages[0]}`, 400);
  }

  const dir = repositoryDir(c, project.id);
  let sha = await resolveRevision(dir, `${TAGS}${input.tag_name}^{commit}`);
  if (!sha) {
    if (!input.ref) throw unprocessable('Ref is not specified');
    const tag = await createTag(c, actor, project.id, { tag_name: input.tag_name, ref: input.ref, message: input.tag_message });
    sha = tag.tag.commit?.id ?? null;
  }
  const now = nowIso();
  const row = await inTransaction(c.db, async (tx) => {
    const made = await insertRelease(
      tx,
      {
        project_id: project.id,
        tag: input.tag_name,
        name: input.name ?? input.tag_name,
        description: input.description ?? null,
        sha,
        author_id: actor.user.id,
        created_at: now,
        updated_at: now,
        released_at: releasedAt ?? now,
      },
      links.map((l) => linkRow(l, now)),
    );
    if (made) await releaseHookEvent(c, tx, made, 'create', dir);
    return made;
  });
  if (!row) throw apiError('Release already exists', 409);
  return viewOf(c, actor, found, row);
}

export interface UpdateReleaseInput {
  name?: string;
  description?: string;
  released_at?: string;
  milestones?: string[];
}

/** The release of a tag for a change: 403 when there is none or the actor may not change it (authorize! on a nil release). */
async function changeableRelease(c: Container, actor: Actor, idOrPath: number | string, tag: string): Promise<{ found: FoundProject; row: ReleaseRow }> {
  const found = await readableProject(c, actor, idOrPath);
  const row = await findReleaseByTag(c.db, found.row.id, tag);
  if (!row || !(await canManageRelease(c, actor, found.row, found.access, tag))) throw forbidden();
  return { found, row };
}

/** PUT /projects/:id/releases/:tag_name. */
export async function updateRelease(c: Container, actor: Actor, idOrPath: number | string, tag: string, input: UpdateReleaseInput): Promise<ReleaseView> {
  const { found, row } = await changeableRelease(c, actor, idOrPath, tag);
  if (!(await resolveRevision(repositoryDir(c, found.row.id), `${TAGS}${tag}`))) throw apiError('Tag does not exist', 404);
  const releasedAt = dateTimeParam('released_at', input.released_at);
  if (input.name === undefined && input.description === undefined && input.released_at === undefined && input.milestones === undefined) {
    throw apiError('params is empty', 400);
  }
  checkMilestones(input.milestones);
  const patch = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(releasedAt !== undefined ? { released_at: releasedAt } : {}),
    updated_at: nowIso(),
  };
  const updated = await inTransaction(c.db, async (tx) => {
    const u = await updateReleaseRow(tx, row.id, patch);
    if (u) await releaseHookEvent(c, tx, u, 'update', repositoryDir(c, found.row.id));
    return u;
  });
  if (!updated) throw forbidden();
  return viewOf(c, actor, found, updated);
}

/** DELETE /projects/:id/releases/:tag_name: the release goes, its tag stays; answers the release as it was. */
export async function deleteRelease(c: Container, actor: Actor, idOrPath: number | string, tag: string): Promise<ReleaseView> {
  const { found, row } = await changeableRelease(c, actor, idOrPath, tag);
  const view = await viewOf(c, actor, found, row);
  await deleteReleaseRow(c.db, row.id);
  return view;
}

// ---- links API ----

/** The release of a tag whose links the actor may read (404 `Not found` when there is none). */
async function linksRelease(c: Container, actor: Actor | null, idOrPath: number | string, tag: string): Promise<{ found: FoundProject; row: ReleaseRow }> {
  const found = await readableProject(c, actor, idOrPath);
  const row = await findReleaseByTag(c.db, found.row.id, tag);
  if (!row) throw recordNotFound();
  return { found, row };
}

/** The same, for a change of its links: update_release on the release. */
async function linksReleaseToChange(c: Container, actor: Actor, idOrPath: number | string, tag: string) {
  const r = await linksRelease(c, actor, idOrPath, tag);
  if (!(await canManageRelease(c, actor, r.found.row, r.found.access, tag))) throw forbidden();
  return r;
}

export interface LinkView {
  link: ReleaseLinkRow;
  release: ReleaseRow;
  project: ProjectRow;
}

export async function listReleaseLinks(c: Container, actor: Actor | null, idOrPath: number | string, tag: string, page: PageRequest): Promise<PageResult<LinkView>> {
  const { found, row } = await linksRelease(c, actor, idOrPath, tag);
  const result = await pageReleaseLinks(c.db, row.id, page);
  return { ...result, items: result.items.map((link) => ({ link, release: row, project: found.row })) };
}

export async function getReleaseLink(c: Container, actor: Actor | null, idOrPath: number | string, tag: string, linkId: number): Promise<LinkView> {
  const { found, row } = await linksRelease(c, actor, idOrPath, tag);
  const link = await findReleaseLink(c.db, row.id, linkId);
  if (!link) throw recordNotFound();
  return { link, release: row, project: found.row };
}

export async function createReleaseLink(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  tag: string,
  input: Required<Pick<LinkInput, 'name' | 'url'>> & LinkInput,
): Promise<LinkView> {
  const { found, row } = await linksReleaseToChange(c, actor, idOrPath, tag);
  const errors: Record<string, string[]> = {};
  linkErrors(input, errors);
  clashErrors(input, await linksOfReleases(c.db, [row.id]), errors);
  if (Object.keys(errors).length) throw validation(errors);
  const link = await insertReleaseLink(c.db, { ...linkRow(input, nowIso()), release_id: row.id });
  if (!link) throw validation({ name: ['has already been taken'] });
  return { link, release: row, project: found.row };
}

export async function updateReleaseLinkAction(c: Container, actor: Actor, idOrPath: number | string, tag: string, linkId: number, input: LinkInput): Promise<LinkView> {
  const { found, row } = await linksReleaseToChange(c, actor, idOrPath, tag);
  const link = await findReleaseLink(c.db, row.id, linkId);
  if (!link) throw recordNotFound();
  const errors: Record<string, string[]> = {};
  linkErrors(input, errors);
  clashErrors(input, (await linksOfReleases(c.db, [row.id])).filter((l) => l.id !== link.id), errors);
  if (Object.keys(errors).length) throw validation(errors);
  const updated = await updateReleaseLink(c.db, link.id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.filepath !== undefined ? { filepath: input.filepath === '' ? null : input.filepath } : {}),
    ...(input.link_type !== undefined ? { link_type: input.link_type } : {}),
    updated_at: nowIso(),
  });
  if (!updated) throw validation({ name: ['has already been taken'] });
  return { link: updated, release: row, project: found.row };
}

export async function deleteReleaseLinkAction(c: Container, actor: Actor, idOrPath: number | string, tag: string, linkId: number): Promise<LinkView> {
  const { found, row } = await linksReleaseToChange(c, actor, idOrPath, tag);
  const link = await findReleaseLink(c.db, row.id, linkId);
  if (!link) throw recordNotFound();
  await deleteReleaseLink(c.db, link.id);
  return { link, release: row, project: found.row };
}
