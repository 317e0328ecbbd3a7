// The runner API: what gitlab-runner calls (network/gitlab.go). Its own credentials: a runner
// token in the body, a job token in the JOB-TOKEN header or the body. Every JSON answer is
// `application/json` (the runner counts anything else as a failure).
import { Type as T } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Container } from '../../domain/context.js';
import { FileBody, route, sendJson, API_PREFIX, type ApiRoute } from '../../http/route.js';
import { Nullable } from '../schemas.js';
import {
  authenticateRunner, registerRunner, resetRunnerToken, touchRunner, unregisterManager, unregisterRunner, verifyRunner, type RunnerInfo,
} from '../../domain/runners/runners.js';
import { requestJob } from '../../domain/runners/queue.js';
import {
  appendTrace, authenticateRunnerJob, requireRunning, dependencyArchive, TRACE_UPDATE_INTERVAL_S, updateRunnerJob, uploadRunnerArtifact, type ArtifactUpload,
} from '../../domain/runners/jobs.js';
import { notFound } from '../../domain/errors.js';
import type { UploadedFile } from '../../http/content.js';

const TAG = 'runner API';
const RegisteredRunner = T.Object({ id: T.Integer(), token: T.String(), token_expires_at: Nullable(T.String()) });
const ResetToken = T.Object({ token: T.String(), token_expires_at: Nullable(T.String()) });
const RunnerSettings = {
  description: T.Optional(T.String()),
  info: T.Optional(T.Any()),
  active: T.Optional(T.Boolean()),
  paused: T.Optional(T.Boolean()),
  locked: T.Optional(T.Boolean()),
  run_untagged: T.Optional(T.Boolean()),
  tag_list: T.Optional(T.Any()),
  access_level: T.Optional(T.String()),
  maximum_timeout: T.Optional(T.Integer()),
  maintenance_note: T.Optional(T.String()),
};
/** A job's route: its id, and its job token (the JOB-TOKEN header, else `token`). */
const JobParams = { id: T.Integer({ format: 'int32' }), token: T.Optional(T.String()) };

/** The job token of a runner's job request: the JOB-TOKEN header, else `token` in the body or query. */
function jobTokenOf(req: FastifyRequest, input: { token?: string }): string | undefined {
  const h = req.headers['job-token'];
  return (Array.isArray(h) ? h[0] : h) ?? input.token;
}

/** Runner routes read their own credentials (runner or job token), never a user's. */
const OWN_CREDENTIALS = { tag: TAG, auth: 'optional' as const, ownCredentials: true };

const infoOf = (v: unknown): RunnerInfo | undefined => (v && typeof v === 'object' ? (v as RunnerInfo) : undefined);

export const runnerProtocolRoutes: ApiRoute<any, any>[] = [
  route({
    method: 'POST',
    path: '/runners',
    summary: 'Registers a runner with a registration token (the instance\'s, a group\'s or a project\'s)',
    ...OWN_CREDENTIALS,
    params: T.Object({ token: T.String(), ...RunnerSettings }),
    response: RegisteredRunner,
    handler: async ({ c, input, request }) => {
      const paused = input.paused ?? (input.active === undefined ? undefined : !input.active);
      const { runner, token } = await registerRunner(c, { ...input, paused, info: infoOf(input.info) });
      await touchRunner(c, runner, infoOf(input.info), null, request.ip);
      return { id: runner.id, token, token_expires_at: runner.token_expires_at };
    },
  }),
  route({
    method: 'POST',
    path: '/runners/verify',
    summary: 'Verifies a runner token (and records the runner manager of system_id)',
    ...OWN_CREDENTIALS,
    status: 200,
    params: T.Object({ token: T.String(), system_id: T.Optional(T.String()), info: T.Optional(T.Any()) }),
    response: RegisteredRunner,
    handler: async ({ c, input, request }) => {
      const runner = await verifyRunner(c, { ...input, info: infoOf(input.info) }, request.ip);
      return { id: runner.id, token: input.token, token_expires_at: runner.token_expires_at };
    },
  }),
  route({
    method: 'DELETE',
    path: '/runners',
    summary: 'Unregisters the runner of the token',
    ...OWN_CREDENTIALS,
    status: 204,
    params: T.Object({ token: T.String() }),
    handler: async ({ c, input }) => unregisterRunner(c, input.token),
  }),
  route({
    method: 'DELETE',
    path: '/runners/managers',
    summary: 'Unregisters one manager (system_id) of the runner of the token',
    ...OWN_CREDENTIALS,
    status: 204,
    params: T.Object({ token: T.String(), system_id: T.String() }),
    handler: async ({ c, input }) => {
      if (!(await unregisterManager(c, input.token, input.system_id))) throw notFound();
    },
  }),
  route({
    method: 'POST',
    path: '/runners/reset_authentication_token',
    summary: 'Gives the runner of the token a new token',
    ...OWN_CREDENTIALS,
    params: T.Object({ token: T.String() }),
    response: ResetToken,
    handler: async ({ c, input }) => {
      const runner = await authenticateRunner(c, input.token);
      const reset = await resetRunnerToken(c, runner);
      return { token: reset.token, token_expires_at: reset.runner.token_expires_at };
    },
  }),
  route({
    method: 'POST',
    path: '/jobs/request',
    summary: 'A pending job for the runner (201), or none (204); long polls while nothing changed since last_update',
    ...OWN_CREDENTIALS,
    params: T.Object({
      token: T.String(),
      system_id: T.Optional(T.String()),
      last_update: T.Optional(T.String()),
      info: T.Optional(T.Any()),
      session: T.Optional(T.Any()),
    }),
    response: T.Any(),
    handler: async ({ c, input, request, reply }) => {
      const runner = await authenticateRunner(c, input.token);
      await touchRunner(c, runner, infoOf(input.info), input.system_id ?? null, request.ip);
      const gone = new AbortController();
      request.raw.once('close', () => gone.abort());
      const got = await requestJob(c, runner, input.last_update ?? null, gone.signal);
      if (got.kind === 'none') {
        // Only a runner that found nothing keeps the queue's version (as the reference): after a
        // job it asks again at once, since other jobs may be waiting for it.
        reply.header('X-GitLab-Last-Update', got.version);
        reply.status(204);
        return undefined;
      }
      return got.payload;
    },
  }),
  route({
    method: 'PUT',
    path: '/jobs/:id',
    summary: "The runner's update of a job: its state, failure reason and exit code",
    ...OWN_CREDENTIALS,
    params: T.Object({
      ...JobParams,
      state: T.Optional(T.String()),
      failure_reason: T.Optional(T.String()),
      exit_code: T.Optional(T.Integer()),
      checksum: T.Optional(T.String()),
      output: T.Optional(T.Any()),
      info: T.Optional(T.Any()),
    }),
    handler: async ({ c, input, request, reply }) => {
      const rj = await authenticateRunnerJob(c, input.id, jobTokenOf(request, input));
      const result = await updateRunnerJob(c, rj, input);
      reply.header('Job-Status', result.jobStatus);
      if (result.status === 202) reply.header('X-GitLab-Trace-Update-Interval', String(TRACE_UPDATE_INTERVAL_S));
      reply.status(result.status);
      return undefined;
    },
  }),
  route({
    method: 'POST',
    path: '/jobs/:id/artifacts',
    summary: 'Uploads an artifact of the job (multipart `file`: an archive, or a report)',
    ...OWN_CREDENTIALS,
    params: T.Object({
      ...JobParams,
      file: T.Any(),
      metadata: T.Optional(T.Any()),
      artifact_type: T.Optional(T.String()),
      artifact_format: T.Optional(T.String()),
      expire_in: T.Optional(T.String()),
    }),
    handler: async ({ c, input, request }) => {
      const rj = await authenticateRunnerJob(c, input.id, jobTokenOf(request, input));
      requireRunning(rj);
      const file = input.file as UploadedFile | undefined;
      if (!file || typeof file !== 'object' || !('path' in file)) throw notFound();
      await uploadRunnerArtifact(c, rj, { ...input, file, metadata: (input.metadata as UploadedFile | undefined) ?? null } as ArtifactUpload);
    },
  }),
  route({
    method: 'GET',
    path: '/jobs/:id/artifacts',
    summary: "Downloads a job's archive with the token of that job or of a job that depends on it",
    ...OWN_CREDENTIALS,
    params: T.Object({ ...JobParams, direct_download: T.Optional(T.Boolean()) }),
    handler: async ({ c, input, request }) => {
      const a = await dependencyArchive(c, input.id, jobTokenOf(request, input));
      return new FileBody(a.stream, 'application/octet-stream', a.size, { 'content-disposition': `attachment; filename="${a.filename.replace(/"/g, '')}"` });
    },
  }),
];

/**
 * `PATCH /jobs/:id/trace`: a piece of the log as raw bytes at `Content-Range: start-end`. Its
 * own Fastify route, since the body is not a form: 202 with `Range: 0-<length>`, or 416 with the
 * stored length when the piece does not follow.
 */
export function registerRunnerTrace(app: FastifyInstance, c: Container): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 16 * 1024 * 1024 }, (_req, body, done) => done(null, body));
    scope.patch(`${API_PREFIX}/jobs/:id/trace`, async (req, reply) => {
      const id = Number((req.params as { id: string }).id);
      if (!Number.isSafeInteger(id)) return sendJson(reply, 404, JSON.stringify({ message: '404 Not found' }));
      const token = req.headers['job-token'];
      const rj = await authenticateRunnerJob(c, id, Array.isArray(token) ? token[0] : token);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const range = req.headers['content-range'];
      const result = await appendTrace(c, rj, Array.isArray(range) ? range[0] : range, body);
      reply.header('Job-Status', rj.remoteState);
      reply.header('Range', `0-${result.size}`);
      reply.header('X-GitLab-Trace-Update-Interval', String(TRACE_UPDATE_INTERVAL_S));
      if (result.kind === 'range') return sendJson(reply, 416, JSON.stringify({ message: '416 Range Not Satisfiable' }));
      return reply.code(202).send();
    });
  });
}
