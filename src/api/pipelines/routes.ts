// Pipelines: list, get, variables, test report and summary, create, retry, cancel, delete.
// (Pipeline jobs and bridges are job-shaped: src/api/jobs.)
import { createPipeline, cancelPipelineAction, deletePipeline, getPipeline, listPipelines, listPipelineVariables, pipelineTestReport, pipelineTestReportSummary, retryPipelineAction } from '../../domain/ci/pipelines.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { presentPipeline, presentPipelineBasic, presentTestReport } from './present.js';
import { CreateParams, ListParams, Pipeline, PipelineBasic, PipelineParams, PipelineVariable, TestReport, TestReportSummary } from './schemas.js';
import { Type as T } from '@sinclair/typebox';

const TAG = 'pipelines';

export const pipelineRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/pipelines',
    tag: TAG,
    summary: 'Pipelines of a project (child pipelines left out), filtered and ordered',
    auth: 'optional',
    params: ListParams,
    response: PipelineBasic,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listPipelines(c, actor, input.id, input, page), (v) => presentPipelineBasic(c, v)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id',
    tag: TAG,
    summary: 'One pipeline (child pipelines too)',
    auth: 'optional',
    params: PipelineParams,
    response: Pipeline,
    handler: async ({ c, actor, input }) => presentPipeline(c, await getPipeline(c, actor, input.id, input.pipeline_id)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/variables',
    tag: TAG,
    summary: 'The variables the pipeline was created with (maintainers, or the developer who ran it)',
    auth: 'optional',
    params: PipelineParams,
    response: T.Array(PipelineVariable),
    handler: async ({ c, actor, input }) => listPipelineVariables(c, actor, input.id, input.pipeline_id),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/test_report',
    tag: TAG,
    summary: "The test report from the junit reports of the pipeline's jobs",
    auth: 'optional',
    params: PipelineParams,
    response: TestReport,
    handler: async ({ c, actor, input }) => presentTestReport(await pipelineTestReport(c, actor, input.id, input.pipeline_id)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/test_report_summary',
    tag: TAG,
    summary: 'The test report summary, one entry per suite with its job ids',
    auth: 'optional',
    params: PipelineParams,
    response: TestReportSummary,
    handler: async ({ c, actor, input }) => pipelineTestReportSummary(c, actor, input.id, input.pipeline_id),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/pipeline',
    tag: TAG,
    summary: 'Create a pipeline for a branch or tag (source api)',
    params: CreateParams,
    response: Pipeline,
    handler: async ({ c, actor, input }) => presentPipeline(c, await createPipeline(c, actor, input.id, input)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/pipelines/:pipeline_id/retry',
    tag: TAG,
    summary: 'Retry the failed and canceled jobs of a pipeline',
    params: PipelineParams,
    response: Pipeline,
    handler: async ({ c, actor, input }) => presentPipeline(c, await retryPipelineAction(c, actor, input.id, input.pipeline_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/pipelines/:pipeline_id/cancel',
    tag: TAG,
    summary: 'Cancel the unfinished jobs of a pipeline',
    params: PipelineParams,
    response: Pipeline,
    status: 200,
    handler: async ({ c, actor, input }) => presentPipeline(c, await cancelPipelineAction(c, actor, input.id, input.pipeline_id)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/pipelines/:pipeline_id',
    tag: TAG,
    summary: 'Delete a pipeline with its jobs, logs and artifacts (child pipelines stay)',
    params: PipelineParams,
    status: 204,
    handler: async ({ c, actor, input }) => deletePipeline(c, actor, input.id, input.pipeline_id),
  }),
];
