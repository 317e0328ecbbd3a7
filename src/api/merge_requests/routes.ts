// Merge requests: lists (everyone's, a group's, a project's), get, create, update, delete.
import { Type as T } from '@sinclair/typebox';
import {
  createMergeRequest, deleteMergeRequestFor, getMergeRequest, listAllMergeRequests, listGroupMergeRequests, listProjectMergeRequests, updateMergeRequestFields,
  type ListInput, type MergeRequestView,
} from '../../domain/merge_requests/service.js';
import type { Container } from '../../domain/context.js';
import { mapPage, type PageResult } from '../../shared/page.js';
import { route } from '../../http/route.js';
import type { PageInput } from '../../http/pagination.js';
import { IdOrPath } from '../schemas.js';
import { presentMergeRequest, presentMergeRequestBasic, presentMergeRequestSimple } from './present.js';
import { CreateParams, LIST_PARAMS, LIST_RULES, MergeRequest, MergeRequestListItem, MergeRequestParams, UPDATE_AT_LEAST_ONE, UpdateParams } from './schemas.js';

const TAG = 'merge_requests';

/** Keyset pages walk creation order (id), as the default order does. */
const keysetByCreation = (input: PageInput): boolean => input.order_by === undefined || input.order_by === 'created_at' || (input.order_by as string) === 'id';

const present = (c: Container, simple: boolean) => (p: PageResult<MergeRequestView>) =>
  mapPage(p, (v) => (simple ? presentMergeRequestSimple(c, v) : presentMergeRequestBasic(c, v)));

export const mergeRequestRoutes = [
  route({
    method: 'GET',
    path: '/merge_requests',
    tag: TAG,
    summary: "Merge requests the caller may read: theirs (created_by_me, the default), assigned to them, or all (scope)",
    auth: 'optional',
    params: T.Object(LIST_PARAMS),
    paramRules: LIST_RULES,
    response: MergeRequestListItem,
    paginated: true,
    keyset: keysetByCreation,
    handler: async ({ c, actor, input, page }) => present(c, input.view === 'simple')(await listAllMergeRequests(c, actor, input as ListInput, page)),
  }),
  route({
    method: 'GET',
    path: '/groups/:id/merge_requests',
    tag: TAG,
    summary: "Merge requests of a group's projects and its subgroups' (default scope all)",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, ...LIST_PARAMS }),
    paramRules: LIST_RULES,
    response: MergeRequestListItem,
    paginated: true,
    keyset: keysetByCreation,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...rest } = input;
      return present(c, input.view === 'simple')(await listGroupMergeRequests(c, actor, id, { scope: 'all', ...rest } as ListInput, page));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/merge_requests',
    tag: TAG,
    summary: "A project's merge requests",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, ...LIST_PARAMS }),
    paramRules: LIST_RULES,
    response: MergeRequestListItem,
    paginated: true,
    keyset: keysetByCreation,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...rest } = input;
      return present(c, input.view === 'simple')(await listProjectMergeRequests(c, actor, id, { scope: 'all', ...rest } as ListInput, page));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/merge_requests/:merge_request_iid',
    tag: TAG,
    summary: 'One merge request',
    auth: 'optional',
    params: T.Object({
      id: IdOrPath,
      merge_request_iid: T.Integer(),
      render_html: T.Optional(T.Boolean()),
      include_diverged_commits_count: T.Optional(T.Boolean()),
      include_rebase_in_progress: T.Optional(T.Boolean()),
    }),
    response: MergeRequest,
    handler: async ({ c, actor, input }) => {
      const d = await getMergeRequest(c, actor, input.id, input.merge_request_iid);
      return presentMergeRequest(c, d, { includeRebaseInProgress: input.include_rebase_in_progress, divergedCommitsCount: input.include_diverged_commits_count ? d.divergedCommitsCount : undefined });
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/merge_requests',
    tag: TAG,
    summary: 'Open a merge request (the project is the source; target_project_id a fork network member)',
    params: CreateParams,
    response: MergeRequest,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentMergeRequest(c, await createMergeRequest(c, actor, id, rest));
    },
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/merge_requests/:merge_request_iid',
    tag: TAG,
    summary: 'Update a merge request (fields, close/reopen, assignees, reviewers)',
    params: UpdateParams,
    paramRules: { atLeastOneOf: [UPDATE_AT_LEAST_ONE] },
    response: MergeRequest,
    handler: async ({ c, actor, input }) => {
      const { id, merge_request_iid, ...rest } = input;
      return presentMergeRequest(c, await updateMergeRequestFields(c, actor, id, merge_request_iid, rest));
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/merge_requests/:merge_request_iid',
    tag: TAG,
    summary: 'Delete a merge request (owners)',
    params: MergeRequestParams,
    status: 204,
    handler: async ({ c, actor, input }) => deleteMergeRequestFor(c, actor, input.id, input.merge_request_iid),
  }),
];
