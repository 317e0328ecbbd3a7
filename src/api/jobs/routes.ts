// CI jobs: project and pipeline job lists, bridges, a pipeline's needs (an Anvil extension), one
// job, its log (and when its pieces were stored: an Anvil extension), cancel / retry / erase /
// play, and what a running job's token may read (GET /job, /job/allowed_agents). A project's jobs,
// a job and its log ask for a sign-in, as the reference's jobs API does; a pipeline's jobs and a
// job's artifacts are readable without one where the project's jobs are public.
import { Type as T } from '@sinclair/typebox';
import {
  allowedAgents, cancelProjectJob, currentJob, eraseProjectJob, getJob, jobArtifactsArchive, jobTrace, jobTraceTimes, listPipelineBridges, listPipelineJobs,
  listPipelineNeeds, listProjectJobs, playProjectJob, retryProjectJob,
} from '../../domain/ci/jobs.js';
import { mapPage, type PageResult } from '../../shared/page.js';
import type { Container } from '../../domain/context.js';
import type { JobView } from '../../domain/ci/jobs.js';
import { byteRangeOf } from '../../http/range.js';
import { FileBody, route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentAllowedAgents, presentBridges, presentJob, presentJobNeeds, presentJobs } from './present.js';
import { AllowedAgents, Bridge, ErasedJob, Job, JobNeeds, JobScope, PlayVariable, TraceTime } from './schemas.js';

const TAG = 'jobs';
const JobParams = T.Object({ id: IdOrPath, job_id: T.Integer() });

/** A page of jobs (or bridges) presented as one list, so that what its jobs share is built once. */
const presentPage = <R>(c: Container, page: PageResult<JobView>, present: (c: Container, views: JobView[]) => R[]): PageResult<R> => ({
  ...page,
  items: present(c, page.items),
});

export const jobRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/jobs',
    tag: TAG,
    summary: "The project's jobs, newest first (scope: one status or an array of them)",
    params: T.Object({ id: IdOrPath, scope: JobScope }),
    response: Job,
    paginated: true,
    handler: async ({ c, actor, input, page }) => presentPage(c, await listProjectJobs(c, actor, input.id, input.scope, page), presentJobs),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/jobs',
    tag: TAG,
    summary: "A pipeline's jobs, newest first (retried ones only with include_retried)",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, pipeline_id: T.Integer(), scope: JobScope, include_retried: T.Optional(T.Boolean({ default: false })) }),
    response: Job,
    paginated: true,
    handler: async ({ c, actor, input, page }) =>
      presentPage(
        c,
        await listPipelineJobs(c, actor, input.id, input.pipeline_id, { scope: input.scope, includeRetried: input.include_retried ?? false }, page),
        presentJobs,
      ),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/bridges',
    tag: TAG,
    summary: "A pipeline's trigger jobs (bridges) with the pipelines they started",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, pipeline_id: T.Integer(), scope: JobScope }),
    response: Bridge,
    paginated: true,
    handler: async ({ c, actor, input, page }) =>
      presentPage(c, await listPipelineBridges(c, actor, input.id, input.pipeline_id, input.scope, page), presentBridges),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/needs',
    tag: TAG,
    summary:
      "Anvil extension: a pipeline's current jobs and bridges, newest first, with the names of the jobs each needs " +
      '(null: it waits for the stages before its own); read as the pipeline\'s jobs list',
    auth: 'optional',
    params: T.Object({ id: IdOrPath, pipeline_id: T.Integer() }),
    response: JobNeeds,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listPipelineNeeds(c, actor, input.id, input.pipeline_id, page), presentJobNeeds),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/jobs/:job_id',
    tag: TAG,
    summary: 'One job',
    params: JobParams,
    response: Job,
    handler: async ({ c, actor, input }) => presentJob(c, await getJob(c, actor, input.id, input.job_id)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/jobs/:job_id/trace',
    tag: TAG,
    summary: "The job's log as text (so far, while it runs)",
    params: JobParams,
    handler: async ({ c, actor, input }) => {
      const t = await jobTrace(c, actor, input.id, input.job_id);
      return new FileBody(t.stream, 'text/plain', null, { 'content-disposition': `infile; filename="${t.jobId}.log"` });
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/jobs/:job_id/trace_times',
    tag: TAG,
    summary:
      "Anvil extension: when each piece of the job's log was stored (offset: the piece's first byte in the trace), " +
      'from byte `from` on; the web log shows these beside lines that carry no time of their own',
    params: T.Object({ id: IdOrPath, job_id: T.Integer(), from: T.Optional(T.Integer({ minimum: 0, default: 0 })) }),
    response: T.Array(TraceTime),
    handler: async ({ c, actor, input }) => jobTraceTimes(c, actor, input.id, input.job_id, input.from ?? 0),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/jobs/:job_id/artifacts',
    tag: TAG,
    summary: "The job's artifacts archive (zip)",
    auth: 'optional',
    params: JobParams,
    handler: async ({ c, actor, input, request, reply }) => {
      const a = await jobArtifactsArchive(c, actor, input.id, input.job_id);
      const name = a.filename.replace(/["\\\r\n]/g, '_');
      const headers = {
        'content-disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`,
        'accept-ranges': 'bytes',
      };
      // A part of the archive (the web's artifacts browser reads a zip's directory and one entry).
      const range = byteRangeOf(request.headers.range, a.size);
      if (!range) return new FileBody(await a.open(), 'application/zip', a.size, headers);
      reply.status(206);
      return new FileBody(await a.open(range), 'application/zip', range.end - range.start + 1, {
        ...headers,
        'content-range': `bytes ${range.start}-${range.end}/${a.size}`,
      });
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/jobs/:job_id/cancel',
    tag: TAG,
    summary: 'Cancel a job',
    params: JobParams,
    response: Job,
    handler: async ({ c, actor, input }) => presentJob(c, await cancelProjectJob(c, actor, input.id, input.job_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/jobs/:job_id/retry',
    tag: TAG,
    summary: 'Retry a finished job: a new job with a new id',
    params: JobParams,
    response: Job,
    handler: async ({ c, actor, input }) => presentJob(c, await retryProjectJob(c, actor, input.id, input.job_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/jobs/:job_id/erase',
    tag: TAG,
    summary: "Erase a finished job's artifacts and log",
    params: JobParams,
    response: ErasedJob,
    handler: async ({ c, actor, input }) => ({ ...presentJob(c, await eraseProjectJob(c, actor, input.id, input.job_id)), download_url: null }),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/jobs/:job_id/play',
    tag: TAG,
    summary: 'Start a manual job, optionally with variables',
    params: T.Object({ id: IdOrPath, job_id: T.Integer(), job_variables_attributes: T.Optional(T.Array(PlayVariable)) }),
    response: Job,
    status: 200,
    handler: async ({ c, actor, input }) =>
      presentJob(c, await playProjectJob(c, actor, input.id, input.job_id, input.job_variables_attributes ?? [])),
  }),
  route({
    method: 'GET',
    path: '/job',
    tag: TAG,
    summary: "The job of the CI job token (JOB-TOKEN header, job_token parameter or Bearer), while it runs",
    response: Job,
    handler: async ({ c, actor }) => presentJob(c, await currentJob(c, actor)),
  }),
  route({
    method: 'GET',
    path: '/job/allowed_agents',
    tag: TAG,
    summary: 'Cluster agents the job token may use (none in Anvil), with its job, pipeline, project and user',
    response: AllowedAgents,
    handler: async ({ c, actor }) => presentAllowedAgents(c, await allowedAgents(c, actor)),
  }),
];
