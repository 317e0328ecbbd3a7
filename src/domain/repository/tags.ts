// The tags API: a project's tags with their commits, searched, ordered and paged as the reference's.
import type { Container } from '../context.js';
import { listTags as gitTags, type TagInfo } from '../../git/ref_files.js';
import type { Actor } from '../auth/actor.js';
import { branchSearch } from '../branches/service.js';
import { notFound } from '../errors.js';
import type { PageRequest, PageResult } from '../shared/page.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { readableRepository } from './commits.js';

export interface TagView {
  tag: TagInfo;
  project: ProjectRow;
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
  return {
    items: tags.slice(start, start + perPage).map((tag) => ({ tag, project: repo.row })),
    total: tags.length,
    hasNext: start + perPage < tags.length,
  };
}

export async function getTag(c: Container, actor: Actor | null, idOrPath: number | string, name: string): Promise<TagView> {
  const repo = await readableRepository(c, actor, idOrPath);
  const tag = (await gitTags(repo.dir)).find((t) => t.name === name);
  if (!tag) throw notFound('Tag');
  return { tag, project: repo.row };
}
