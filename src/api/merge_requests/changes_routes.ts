// What a merge request changes and how it merges: commits, changes, diffs, versions,
// participants, reviewers, pipelines; merge, cancel of an automatic merge, rebase, merge ref.
import { Type as T } from '@sinclair/typebox';
import {
  createPipelineFor, mergeRequestChanges, mergeRequestCommits, mergeRequestDiffs, mergeRequestParticipants, mergeRequestPipelines, mergeRequestReviewers, mergeRequestVersion,
  mergeRequestVersions,
} from '../../domain/merge_requests/changes.js';
import { acceptMergeRequest, cancelAutoMerge, mergeRefOf, rebaseMergeRequest } from '../../domain/merge_requests/merge.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { presentCommit, presentDiff } from '../repository/present.js';
import { Commit, Diff } from '../repository/schemas.js';
import { Pipeline, PipelineBasic } from '../pipelines/schemas.js';
import { presentPipeline, presentPipelineBasic } from '../pipelines/present.js';
import { IdOrPath } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';
import { presentUserBasic } from '../users/present.js';
import { presentMergeRequest, presentVersion } from './present.js';
import { MergeParams, MergeRequest, MergeRequestParams, Reviewer, Version } from './schemas.js';

const TAG = 'merge_requests';
const BASE = '/projects/:id/merge_requests/:merge_request_iid';

const Changes = T.Object({ ...MergeRequest.properties, changes: T.Array(Diff), overflow: T.Boolean() });
const VersionFull = T.Object({ ...Version.properties, commits: T.Array(Commit), diffs: T.Array(Diff) });

export const mergeRequestChangeRoutes = [
  route({
    method: 'GET',
    path: `${BASE}/commits`,
    tag: TAG,
    summary: "A merge request's commits, newest first",
    auth: 'optional',
    params: MergeRequestParams,
    response: Commit,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const r = await mergeRequestCommits(c, actor, input.id, input.merge_request_iid, page);
      return mapPage(r.page, (commit) => presentCommit(c, { commit, project: r.project }));
    },
  }),
  route({
    method: 'GET',
    path: `${BASE}/changes`,
    tag: TAG,
    summary: 'A merge request with the changed files of its latest version',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, merge_request_iid: T.Integer(), access_raw_diffs: T.Optional(T.Boolean()) }),
    response: Changes,
    handler: async ({ c, actor, input }) => {
      const d = await mergeRequestChanges(c, actor, input.id, input.merge_request_iid);
      return { ...presentMergeRequest(c, d), changes: d.changes.map(presentDiff), overflow: false };
    },
  }),
  route({
    method: 'GET',
    path: `${BASE}/diffs`,
    tag: TAG,
    summary: "A page of the changed files of a merge request's latest version",
    auth: 'optional',
    params: MergeRequestParams,
    response: Diff,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await mergeRequestDiffs(c, actor, input.id, input.merge_request_iid, page), presentDiff),
  }),
  route({
    method: 'GET',
    path: `${BASE}/versions`,
    tag: TAG,
    summary: "A merge request's diff versions, newest first (one per head or target the request has had)",
    auth: 'optional',
    params: MergeRequestParams,
    response: T.Array(Version),
    handler: async ({ c, actor, input }) => (await mergeRequestVersions(c, actor, input.id, input.merge_request_iid)).map(presentVersion),
  }),
  route({
    method: 'GET',
    path: `${BASE}/versions/:version_id`,
    tag: TAG,
    summary: 'One version with its commits and diffs',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, merge_request_iid: T.Integer(), version_id: T.Integer() }),
    response: VersionFull,
    handler: async ({ c, actor, input }) => {
      const v = await mergeRequestVersion(c, actor, input.id, input.merge_request_iid, input.version_id);
      return { ...presentVersion(v.version), commits: v.commits.map((commit) => presentCommit(c, { commit, project: v.project })), diffs: v.diffs.map(presentDiff) };
    },
  }),
  route({
    method: 'GET',
    path: `${BASE}/participants`,
    tag: TAG,
    summary: "A merge request's participants",
    auth: 'optional',
    params: MergeRequestParams,
    response: T.Array(UserBasic),
    handler: async ({ c, actor, input }) => (await mergeRequestParticipants(c, actor, input.id, input.merge_request_iid)).map((u) => presentUserBasic(c, u)),
  }),
  route({
    method: 'GET',
    path: `${BASE}/reviewers`,
    tag: TAG,
    summary: "A merge request's reviewers and their review state",
    auth: 'optional',
    params: MergeRequestParams,
    response: T.Array(Reviewer),
    handler: async ({ c, actor, input }) =>
      (await mergeRequestReviewers(c, actor, input.id, input.merge_request_iid)).map((r) => ({ user: presentUserBasic(c, r.user), state: r.state, created_at: r.created_at })),
  }),
  route({
    method: 'GET',
    path: `${BASE}/pipelines`,
    tag: TAG,
    summary: "A merge request's pipelines, newest first",
    auth: 'optional',
    params: MergeRequestParams,
    response: PipelineBasic,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const r = await mergeRequestPipelines(c, actor, input.id, input.merge_request_iid, page);
      return mapPage(r.page, (pipeline) => presentPipelineBasic(c, { pipeline, project: r.project }));
    },
  }),
  route({
    method: 'POST',
    path: `${BASE}/pipelines`,
    tag: TAG,
    summary: "A merge request pipeline at the request's head (source merge_request_event)",
    params: MergeRequestParams,
    response: Pipeline,
    handler: async ({ c, actor, input }) => presentPipeline(c, await createPipelineFor(c, actor, input.id, input.merge_request_iid)),
  }),
  route({
    method: 'PUT',
    path: `${BASE}/merge`,
    tag: TAG,
    summary: "Merge by the project's merge method (or when its pipeline succeeds)",
    params: MergeParams,
    response: MergeRequest,
    status: 200,
    handler: async ({ c, actor, input }) => {
      const { id, merge_request_iid, ...rest } = input;
      return presentMergeRequest(c, await acceptMergeRequest(c, actor, id, merge_request_iid, rest));
    },
  }),
  route({
    method: 'POST',
    path: `${BASE}/cancel_merge_when_pipeline_succeeds`,
    tag: TAG,
    summary: 'Stop waiting for the pipeline to merge',
    params: MergeRequestParams,
    response: MergeRequest,
    handler: async ({ c, actor, input }) => presentMergeRequest(c, await cancelAutoMerge(c, actor, input.id, input.merge_request_iid)),
  }),
  route({
    method: 'PUT',
    path: `${BASE}/rebase`,
    tag: TAG,
    summary: 'Rebase the source branch onto the target branch',
    params: T.Object({ id: IdOrPath, merge_request_iid: T.Integer(), skip_ci: T.Optional(T.Boolean()) }),
    response: T.Object({ rebase_in_progress: T.Boolean() }),
    status: 202,
    handler: async ({ c, actor, input }) => rebaseMergeRequest(c, actor, input.id, input.merge_request_iid),
  }),
  route({
    method: 'GET',
    path: `${BASE}/merge_ref`,
    tag: TAG,
    summary: 'The merge commit the request would make (refs/merge-requests/:iid/merge)',
    auth: 'optional',
    params: MergeRequestParams,
    response: T.Object({ commit_id: T.String() }),
    handler: async ({ c, actor, input }) => mergeRefOf(c, actor, input.id, input.merge_request_iid),
  }),
];
