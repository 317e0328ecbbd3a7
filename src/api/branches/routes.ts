// Branches: list, get (and HEAD), create, delete, delete merged branches.
import { Type as T } from '@sinclair/typebox';
import { branchExists, createBranch, deleteBranch, deleteMergedBranches, divergingCounts, getBranch, listBranches } from '../../domain/branches/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath, NotBlank } from '../schemas.js';
import { presentBranch } from './present.js';
import { Accepted, Branch, DivergingCounts } from './schemas.js';

const TAG = 'branches';

export const branchRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/repository/branches',
    tag: TAG,
    summary: 'Branches sorted by name (search: ^prefix, suffix$, or part of the name)',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, search: T.Optional(T.String()) }),
    response: Branch,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listBranches(c, actor, input.id, input.search, page), (b) => presentBranch(c, b)),
  }),
  route({
    method: 'GET',
    // Anvil's: the reference answers these counts from its web (…/-/branches/diverging_commit_counts),
    // not its API; here the web reads them through the API like everything else.
    path: '/projects/:id/repository/diverging_commit_counts',
    tag: TAG,
    summary: 'Commits each named branch is behind and ahead of the default branch (for the branches page)',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, names: T.Array(T.String(), { maxItems: 100 }) }),
    response: DivergingCounts,
    handler: async ({ c, actor, input }) => Object.fromEntries(await divergingCounts(c, actor, input.id, input.names)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/repository/branches/:branch',
    tag: TAG,
    summary: 'One branch (HEAD: 204 when it exists, 404 otherwise)',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, branch: T.String() }),
    response: Branch,
    handler: async ({ c, actor, input, request, reply }) => {
      // Fastify answers HEAD with this GET route; the reference's HEAD only says whether the branch exists.
      if (request.method === 'HEAD') {
        await branchExists(c, actor, input.id, input.branch);
        reply.status(204);
        return undefined;
      }
      return presentBranch(c, await getBranch(c, actor, input.id, input.branch));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/repository/branches',
    tag: TAG,
    summary: 'Create a branch from a branch name or commit SHA',
    params: T.Object({ id: IdOrPath, branch: NotBlank(T.String()), ref: NotBlank(T.String()) }),
    response: Branch,
    handler: async ({ c, actor, input }) => presentBranch(c, await createBranch(c, actor, input.id, input.branch, input.ref)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/repository/branches/:branch',
    tag: TAG,
    summary: 'Delete a branch',
    params: T.Object({ id: IdOrPath, branch: T.String() }),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => deleteBranch(c, actor, input.id, input.branch, ifUnmodifiedSince),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/repository/merged_branches',
    tag: TAG,
    summary: 'Delete every branch merged into the default branch (in the background; protected branches kept)',
    params: T.Object({ id: IdOrPath }),
    response: Accepted,
    status: 202,
    handler: async ({ c, actor, input }) => {
      await deleteMergedBranches(c, actor, input.id);
      return { message: '202 Accepted' };
    },
  }),
];
