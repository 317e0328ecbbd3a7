// Blobs by their sha (…/repository/blobs/:sha and /raw), and the repository's contributors.
import type { Container } from '../context.js';
import { objectInfo } from '../../git/cat_file.js';
import { authorCounts } from '../../git/history.js';
import { readBlob, readCommit } from '../../git/objects.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { Actor } from '../auth/actor.js';
import { notFound } from '../errors.js';
import { readableRepository } from './commits.js';
import { rawBlobOf, type RawFile } from './files.js';

export interface BlobView {
  size: number;
  encoding: 'base64';
  content: string;
  sha: string;
}

/** A blob named by its (full or abbreviated) sha; anything else is the reference's 404 Blob. */
async function findBlob(c: Container, actor: Actor | null, idOrPath: number | string, sha: string) {
  const repo = await readableRepository(c, actor, idOrPath);
  const info = /^[0-9a-fA-F]{4,40}$/.test(sha) ? await objectInfo(repo.dir, sha.toLowerCase()) : null;
  if (!info || info.type !== 'blob') throw notFound('Blob');
  return { repo, info };
}

export async function getBlob(c: Container, actor: Actor | null, idOrPath: number | string, sha: string): Promise<BlobView> {
  const { repo, info } = await findBlob(c, actor, idOrPath, sha);
  const data = await readBlob(repo.dir, info.sha);
  return { size: info.size, encoding: 'base64', content: data.toString('base64'), sha: info.sha };
}

export async function rawBlob(c: Container, actor: Actor | null, idOrPath: number | string, sha: string): Promise<RawFile> {
  const { repo, info } = await findBlob(c, actor, idOrPath, sha);
  return rawBlobOf(repo.dir, info, null);
}

export interface Contributor {
  name: string;
  email: string;
  commits: number;
  additions: number;
  deletions: number;
}

/** The reference reads this many of the newest commits (merges left out) to count contributors. */
const CONTRIBUTOR_COMMITS = 2000;

/**
 * Authors of a ref's newest commits with their commit counts, ordered by `order_by` (commits,
 * name or email) and `sort`. additions and deletions are 0, as the reference now reports them.
 */
export async function listContributors(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  input: { ref?: string; order_by?: 'commits' | 'name' | 'email'; sort?: 'asc' | 'desc' },
  page: PageRequest,
): Promise<PageResult<Contributor>> {
  const repo = await readableRepository(c, actor, idOrPath);
  const ref = input.ref || repo.row.default_branch || 'HEAD';
  const commit = await readCommit(repo.dir, ref);
  if (!commit) throw notFound();
  const key = input.order_by ?? 'commits';
  const all = (await authorCounts(repo.dir, commit.id, CONTRIBUTOR_COMMITS)).map((a) => ({ name: a.name, email: a.email, commits: a.commits, additions: 0, deletions: 0 }));
  all.sort((a, b) => (key === 'commits' ? a.commits - b.commits : a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
  if (input.sort === 'desc') all.reverse();
  const start = page.kind === 'offset' ? (page.page - 1) * page.perPage : 0;
  return { items: all.slice(start, start + page.perPage), total: all.length, hasNext: start + page.perPage < all.length };
}
