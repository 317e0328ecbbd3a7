// CI lint of a project: POST /projects/:id/ci/lint checks the given text (developers and above),
// GET /projects/:id/ci/lint the project's CI file at a commit (whoever may read its code).
import { Type as T, type Static } from '@sinclair/typebox';
import { lintContent, lintProjectFile, type LintResult as Result } from '../../domain/ci/lint.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { LintResult } from './schemas.js';

const TAG = 'ci_lint';

const present = (r: Result, includeJobs: boolean | undefined): Static<typeof LintResult> => {
  const { jobs, ...rest } = r;
  return includeJobs ? { ...rest, jobs } : rest;
};

export const ciLintRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/ci/lint',
    auth: 'optional',
    tag: TAG,
    summary: "Validate the project's CI file at a commit (static check, or a pipeline creation dry run)",
    params: T.Object({
      id: IdOrPath,
      sha: T.Optional(T.String()),
      content_ref: T.Optional(T.String()),
      dry_run: T.Optional(T.Boolean()),
      include_jobs: T.Optional(T.Boolean()),
      ref: T.Optional(T.String()),
      dry_run_ref: T.Optional(T.String()),
    }),
    paramRules: { mutuallyExclusive: [['sha', 'content_ref'], ['ref', 'dry_run_ref']] },
    response: LintResult,
    handler: async ({ c, actor, input }) => present(await lintProjectFile(c, actor, input.id, input), input.include_jobs),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/ci/lint',
    tag: TAG,
    summary: 'Validate a CI configuration in the context of the project (static check, or a pipeline creation dry run)',
    params: T.Object({
      id: IdOrPath,
      content: T.String(),
      dry_run: T.Optional(T.Boolean()),
      include_jobs: T.Optional(T.Boolean()),
      ref: T.Optional(T.String()),
    }),
    response: LintResult,
    status: 200,
    handler: async ({ c, actor, input }) => present(await lintContent(c, actor, input.id, input), input.include_jobs),
  }),
];
