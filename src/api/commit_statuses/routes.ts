// Commit statuses: set one (an external system's report) and list a commit's (every job of its pipelines).
import { Type as T } from '@sinclair/typebox';
import { listCommitStatuses, postCommitStatus } from '../../domain/ci/commit_statuses.js';
import { route } from '../../http/route.js';
import { mapPage } from '../../shared/page.js';
import { IdOrPath, OneOf } from '../schemas.js';
import { presentCommitStatus } from './present.js';
import { CommitStatus } from './schemas.js';

const TAG = 'commit_statuses';

export const commitStatusRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/repository/commits/:sha/statuses',
    tag: TAG,
    summary: "A commit's statuses: the jobs of its pipelines, external statuses included",
    params: T.Object({
      id: IdOrPath,
      sha: T.String(),
      ref: T.Optional(T.String()),
      stage: T.Optional(T.String()),
      name: T.Optional(T.String()),
      all: T.Optional(T.Boolean()),
    }),
    response: CommitStatus,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const { id, sha, ...filters } = input;
      return mapPage(await listCommitStatuses(c, actor, id, sha, filters, page), (v) => presentCommitStatus(c, v));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/statuses/:sha',
    tag: TAG,
    summary: "Set an external status of a commit (it joins the commit's pipeline in stage `external`)",
    params: T.Object({
      id: IdOrPath,
      sha: T.String(),
      state: OneOf(['pending', 'running', 'success', 'failed', 'canceled'] as const),
      ref: T.Optional(T.String()),
      target_url: T.Optional(T.String()),
      description: T.Optional(T.String()),
      name: T.Optional(T.String()),
      context: T.Optional(T.String()),
      coverage: T.Optional(T.Number()),
      pipeline_id: T.Optional(T.Integer({ format: 'int32' })),
    }),
    response: CommitStatus,
    handler: async ({ c, actor, input }) => {
      const { id, sha, ...rest } = input;
      return presentCommitStatus(c, await postCommitStatus(c, actor, id, sha, rest));
    },
  }),
];
