// The repository tree API: the entries of a directory at a ref, optionally recursive, paged.
import type { Container } from '../context.js';
import { listTree as lsTree, readCommit, type TreeEntry } from '../../git/objects.js';
import type { Actor } from '../auth/actor.js';
import { notFound } from '../errors.js';
import { COUNT_CAP, type PageRequest, type PageResult } from '../shared/page.js';
import { readableRepository } from './commits.js';

export interface TreeInput {
  ref?: string;
  path?: string;
  recursive?: boolean;
}

const TYPE_ORDER: Record<TreeEntry['type'], number> = { tree: 0, blob: 1, commit: 2 };

/**
 * One page of a directory's entries. A directory lists trees first, then files, then submodules,
 * each by name (as the reference answers); a recursive listing keeps git's walk order.
 * An unknown ref or a path that is not a directory is 404 Tree Not Found.
 */
export async function listTree(c: Container, actor: Actor | null, idOrPath: number | string, input: TreeInput, page: PageRequest): Promise<PageResult<TreeEntry>> {
  const repo = await readableRepository(c, actor, idOrPath);
  const commit = await readCommit(repo.dir, input.ref || repo.row.default_branch || 'HEAD');
  if (!commit) throw notFound('Tree');
  const entries = await lsTree(repo.dir, commit.id, input.path ?? '', input.recursive === true);
  if (!entries) throw notFound('Tree');
  if (!input.recursive) entries.sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const pageNo = page.kind === 'offset' ? page.page : 1;
  const start = (pageNo - 1) * page.perPage;
  return {
    items: entries.slice(start, start + page.perPage),
    total: entries.length > COUNT_CAP ? null : entries.length,
    hasNext: entries.length > start + page.perPage,
  };
}
