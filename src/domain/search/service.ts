// GET /search: the instance-wide search, kept thin — each scope is the matching list (projects,
// users) with its `search` filter, so results are exactly what those lists would show the caller.
// Reference: lib/api/search.rb (global scopes of the Community edition). Rate limited per user
// (`search_rate_limit`) or, for anonymous callers, per IP (`search_rate_limit_unauthenticated`).
import type { Container } from '../context.js';
import type { Actor } from '../auth/actor.js';
import { listProjects, type ProjectView } from '../projects/service.js';
import { getSettings } from '../settings/service.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { checkRateLimit } from '../shared/rate_limit.js';
import { listUsers, type UserView } from '../users/service.js';

/** The reference's global scopes. Those whose records Anvil does not have yet find nothing. */
export const SEARCH_SCOPES = ['projects', 'issues', 'merge_requests', 'milestones', 'snippet_titles', 'users'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

export type SearchResult =
  | { scope: 'projects'; page: PageResult<ProjectView> }
  | { scope: 'users'; page: PageResult<UserView> }
  | { scope: 'none'; page: PageResult<never> };

/** Counts a search against the caller's limit: per user when signed in, else per client address. */
export async function checkSearchRateLimit(c: Container, actor: Actor | null, ip: string): Promise<void> {
  const s = await getSettings(c);
  if (actor) await checkRateLimit(c, { name: 'search_rate_limit', threshold: s.search_rate_limit, periodSeconds: 60 }, `user:${actor.user.id}`);
  else await checkRateLimit(c, { name: 'search_rate_limit_unauthenticated', threshold: s.search_rate_limit_unauthenticated, periodSeconds: 60 }, `ip:${ip}`);
}

export async function search(
  c: Container,
  actor: Actor | null,
  input: { scope: SearchScope; search: string; ip: string },
  page: PageRequest,
): Promise<SearchResult> {
  await checkSearchRateLimit(c, actor, input.ip);
  switch (input.scope) {
    case 'projects':
      return { scope: 'projects', page: await listProjects(c, actor, { search: input.search, simple: true, order_by: 'id', sort: 'desc' }, page) };
    case 'users':
      return { scope: 'users', page: await listUsers(c, actor, { search: input.search }, page) };
    default:
      return { scope: 'none', page: { items: [], total: 0, hasNext: false } };
  }
}
