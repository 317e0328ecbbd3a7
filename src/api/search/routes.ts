import { search } from '../../domain/search/service.js';
import { route } from '../../http/route.js';
import { presentSearch } from './present.js';
import { SearchItem, SearchParams } from './schemas.js';

export const searchRoutes = [
  route({
    method: 'GET',
    path: '/search',
    tag: 'search',
    summary: 'Search the instance (projects, users); rate limited per user, or per address when anonymous',
    // The reference refuses anonymous callers here; Anvil lets them search public data so that
    // `search_rate_limit_unauthenticated` has an API to limit (see the report of issue 3).
    auth: 'optional',
    params: SearchParams,
    response: SearchItem,
    paginated: true,
    handler: async ({ c, actor, input, page, request }) => presentSearch(c, await search(c, actor, { ...input, ip: request.ip }, page)),
  }),
];
