// The runners REST API (the reference's lib/api/ci/runners.rb): Runner and RunnerDetails shapes.
import { Type as T, type Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import { route } from '../../http/route.js';
import { CommaList, IdOrPath, Nullable, OneOf } from '../schemas.js';
import type { RunnerRow } from '../../db/repos/runners.js';
import { mapPage } from '../../shared/page.js';
import { runnerStatus, tagsOf, RUNNER_TYPES } from '../../domain/runners/runners.js';
import {
  assignProjectRunner, createUserRunner, deleteRunnerById, getRunner, listAllRunners, listGroupRunners, listOwnedRunners, listProjectRunners,
  resetGroupRegistrationToken, resetProjectRegistrationToken, resetRunnerTokenById, runnerJobs, unassignProjectRunner, updateRunnerSettings,
  type RunnerDetails,
} from '../../domain/runners/service.js';
import { presentRunner } from '../jobs/present.js';
import { JobRunner } from '../jobs/schemas.js';

const TAG = 'runners';
const Runner = JobRunner;
const RunnerDetailsShape = T.Object({
  ...JobRunner.properties,
  tag_list: T.Array(T.String()),
  run_untagged: T.Boolean(),
  locked: T.Boolean(),
  maximum_timeout: Nullable(T.Integer()),
  access_level: T.String(),
  version: Nullable(T.String()),
  revision: Nullable(T.String()),
  platform: Nullable(T.String()),
  architecture: Nullable(T.String()),
  contacted_at: Nullable(T.String()),
  maintenance_note: Nullable(T.String()),
  projects: T.Array(T.Object({ id: T.Integer(), name: T.String(), name_with_namespace: T.String(), path: T.String(), path_with_namespace: T.String() })),
  groups: T.Array(T.Object({ id: T.Integer(), web_url: T.String(), name: T.String() })),
});
const RunnerManager = T.Object({
  id: T.Integer(), system_id: T.String(), version: Nullable(T.String()), revision: Nullable(T.String()), platform: Nullable(T.String()),
  architecture: Nullable(T.String()), created_at: T.String(), contacted_at: Nullable(T.String()), ip_address: Nullable(T.String()), status: T.String(),
});
const CreatedRunner = T.Object({ id: T.Integer(), token: T.String(), token_expires_at: Nullable(T.String()) });
const ListParams = {
  type: T.Optional(OneOf(RUNNER_TYPES)),
  paused: T.Optional(T.Boolean()),
  status: T.Optional(OneOf(['online', 'offline', 'stale', 'never_contacted', 'active', 'paused'])),
  tag_list: T.Optional(CommaList(T.String())),
  scope: T.Optional(T.String()),
};
const Settings = {
  description: T.Optional(T.String()),
  active: T.Optional(T.Boolean()),
  paused: T.Optional(T.Boolean()),
  tag_list: T.Optional(CommaList(T.String())),
  run_untagged: T.Optional(T.Boolean()),
  locked: T.Optional(T.Boolean()),
  access_level: T.Optional(T.String()),
  maximum_timeout: T.Optional(T.Integer()),
  maintenance_note: T.Optional(T.String()),
};
const RunnerId = { id: T.Integer({ format: 'int32' }) };

const present = (c: Container) => (r: RunnerRow) => presentRunner(c, r);

function presentDetails(c: Container, d: RunnerDetails): Static<typeof RunnerDetailsShape> {
  const r = d.runner;
  return {
    ...presentRunner(c, r),
    tag_list: tagsOf(r).sort(),
    run_untagged: r.run_untagged === 1,
    locked: r.locked === 1,
    maximum_timeout: r.maximum_timeout,
    access_level: r.access_level,
    version: r.version,
    revision: r.revision,
    platform: r.platform,
    architecture: r.architecture,
    contacted_at: r.contacted_at,
    maintenance_note: r.maintenance_note,
    projects: d.projects.map((p) => ({ id: p.id, name: p.name, name_with_namespace: p.name, path: p.path, path_with_namespace: p.full_path })),
    groups: d.group ? [{ id: d.group.id, web_url: `${c.config.externalUrl}/groups/${d.group.full_path}`, name: d.group.name }] : [],
  };
}

export const runnerRestRoutes = [
  route({
    method: 'GET', path: '/runners', summary: "Runners of the projects and groups the user manages", tag: TAG, paginated: true, params: T.Object(ListParams), response: Runner,
    handler: async ({ c, actor, input, page }) => mapPage(await listOwnedRunners(c, actor, input, page), present(c)),
  }),
  route({
    method: 'GET', path: '/runners/all', summary: 'Every runner (administrators)', tag: TAG, admin: true, paginated: true, params: T.Object(ListParams), response: Runner,
    handler: async ({ c, actor, input, page }) => mapPage(await listAllRunners(c, actor, input, page), present(c)),
  }),
  route({
    method: 'GET', path: '/runners/:id', summary: "A runner's details", tag: TAG, params: T.Object(RunnerId), response: RunnerDetailsShape,
    handler: async ({ c, actor, input }) => presentDetails(c, await getRunner(c, actor, input.id)),
  }),
  route({
    method: 'PUT', path: '/runners/:id', summary: "Updates a runner's settings", tag: TAG, params: T.Object({ ...RunnerId, ...Settings }), response: RunnerDetailsShape,
    handler: async ({ c, actor, input }) => presentDetails(c, await updateRunnerSettings(c, actor, input.id, input)),
  }),
  route({
    method: 'DELETE', path: '/runners/:id', summary: 'Deletes a runner', tag: TAG, status: 204, params: T.Object(RunnerId),
    handler: async ({ c, actor, input }) => deleteRunnerById(c, actor, input.id),
  }),
  route({
    method: 'GET', path: '/runners/:id/managers', summary: "A runner's managers", tag: TAG, params: T.Object(RunnerId), response: T.Array(RunnerManager),
    handler: async ({ c, actor, input }) =>
      (await getRunner(c, actor, input.id)).managers.map((m) => ({
        id: m.id, system_id: m.system_id, version: m.version, revision: m.revision, platform: m.platform, architecture: m.architecture,
        created_at: m.created_at, contacted_at: m.contacted_at, ip_address: m.ip_address, status: runnerStatus(c, { id: 0, contacted_at: m.contacted_at, created_at: m.created_at }),
      })),
  }),
  route({
    method: 'GET', path: '/runners/:id/jobs', summary: 'The jobs a runner ran', tag: TAG, paginated: true,
    params: T.Object({ ...RunnerId, status: T.Optional(T.String()) }),
    response: T.Object({ id: T.Integer(), status: T.String(), stage: T.String(), name: T.String(), ref: T.String(), created_at: T.String(), started_at: Nullable(T.String()), finished_at: Nullable(T.String()), project: T.Object({ id: T.Integer() }) }),
    handler: async ({ c, actor, input, page }) =>
      mapPage(await runnerJobs(c, actor, input.id, input.status ? [input.status] : null, page), (j) => ({
        id: j.id, status: j.status, stage: j.stage, name: j.name, ref: j.ref, created_at: j.created_at, started_at: j.started_at, finished_at: j.finished_at, project: { id: j.project_id },
      })),
  }),
  route({
    method: 'POST', path: '/runners/:id/reset_authentication_token', summary: "Resets a runner's token", tag: TAG, params: T.Object(RunnerId), response: T.Object({ token: T.String(), token_expires_at: Nullable(T.String()) }),
    handler: async ({ c, actor, input }) => {
      const r = await resetRunnerTokenById(c, actor, input.id);
      return { token: r.token, token_expires_at: r.runner.token_expires_at };
    },
  }),
  route({
    method: 'POST', path: '/user/runners', summary: 'Creates a runner; its token registers gitlab-runner (`register --token`)', tag: TAG,
    scopes: ['api', 'create_runner'],
    params: T.Object({ runner_type: OneOf(RUNNER_TYPES), group_id: T.Optional(T.Integer()), project_id: T.Optional(T.Integer()), ...Settings }),
    response: CreatedRunner,
    handler: async ({ c, actor, input }) => {
      const r = await createUserRunner(c, actor, input);
      return { id: r.runner.id, token: r.token, token_expires_at: r.runner.token_expires_at };
    },
  }),
  route({
    method: 'GET', path: '/projects/:id/runners', summary: "Runners available to a project", tag: TAG, paginated: true, params: T.Object({ id: IdOrPath, ...ListParams }), response: Runner,
    handler: async ({ c, actor, input, page }) => mapPage(await listProjectRunners(c, actor, input.id, input, page), present(c)),
  }),
  route({
    method: 'POST', path: '/projects/:id/runners', summary: 'Assigns a project runner to the project', tag: TAG, params: T.Object({ id: IdOrPath, runner_id: T.Integer() }), response: Runner,
    handler: async ({ c, actor, input }) => presentRunner(c, await assignProjectRunner(c, actor, input.id, input.runner_id)),
  }),
  route({
    method: 'DELETE', path: '/projects/:id/runners/:runner_id', summary: 'Unassigns a project runner', tag: TAG, params: T.Object({ id: IdOrPath, runner_id: T.Integer() }), response: Runner,
    handler: async ({ c, actor, input }) => presentRunner(c, await unassignProjectRunner(c, actor, input.id, input.runner_id)),
  }),
  route({
    method: 'POST', path: '/projects/:id/runners/reset_registration_token', summary: "Resets a project's runner registration token", tag: TAG, params: T.Object({ id: IdOrPath }), response: T.Object({ token: T.String(), token_expires_at: Nullable(T.String()) }),
    handler: async ({ c, actor, input }) => ({ token: await resetProjectRegistrationToken(c, actor, input.id), token_expires_at: null }),
  }),
  route({
    method: 'GET', path: '/groups/:id/runners', summary: "A group's runners", tag: TAG, paginated: true, params: T.Object({ id: IdOrPath, ...ListParams }), response: Runner,
    handler: async ({ c, actor, input, page }) => mapPage(await listGroupRunners(c, actor, input.id, input, page), present(c)),
  }),
  route({
    method: 'POST', path: '/groups/:id/runners/reset_registration_token', summary: "Resets a group's runner registration token", tag: TAG, params: T.Object({ id: IdOrPath }), response: T.Object({ token: T.String(), token_expires_at: Nullable(T.String()) }),
    handler: async ({ c, actor, input }) => ({ token: await resetGroupRegistrationToken(c, actor, input.id), token_expires_at: null }),
  }),
];
