// Pipeline schedules: list, get, create, update, take ownership, delete, play, their pipelines and variables.
import { Type as T } from '@sinclair/typebox';
import {
  createSchedule, createScheduleVariable, deleteScheduleVariableByKey, editSchedule, getSchedule, listSchedules, playSchedule,
  removeSchedule, schedulePipelines, takeOwnership, updateScheduleVariableValue,
} from '../../domain/ci/pipeline_schedules.js';
import { PIPELINE_SCOPES, PIPELINE_STATUSES } from '../../domain/ci/pipelines.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { presentPipelineBasic } from '../pipelines/present.js';
import { PipelineBasic, PipelineVariable } from '../pipelines/schemas.js';
import { IdOrPath, OneOf } from '../schemas.js';
import { presentSchedule, presentScheduleDetails } from './present.js';
import { PipelineSchedule, PipelineScheduleDetails } from './schemas.js';

const TAG = 'pipeline_schedules';
const One = { id: IdOrPath, pipeline_schedule_id: T.Integer() };
const EDIT = {
  description: T.Optional(T.String()),
  ref: T.Optional(T.String()),
  cron: T.Optional(T.String()),
  cron_timezone: T.Optional(T.String()),
  active: T.Optional(T.Boolean()),
};
const VariableType = T.Optional(OneOf(['env_var', 'file'] as const));

export const pipelineScheduleRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/pipeline_schedules',
    tag: TAG,
    summary: "A project's pipeline schedules (scope active|inactive)",
    params: T.Object({ id: IdOrPath, scope: T.Optional(OneOf(['active', 'inactive'] as const)) }),
    response: PipelineSchedule,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listSchedules(c, actor, input.id, input.scope, page), (v) => presentSchedule(c, v)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id',
    tag: TAG,
    summary: 'One pipeline schedule with its last pipeline and variables',
    params: T.Object(One),
    response: PipelineScheduleDetails,
    handler: async ({ c, actor, input }) => presentScheduleDetails(c, await getSchedule(c, actor, input.id, input.pipeline_schedule_id)),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id/pipelines',
    tag: TAG,
    summary: 'The pipelines a schedule made (oldest first unless sort=desc)',
    params: T.Object({
      ...One,
      scope: T.Optional(OneOf(PIPELINE_SCOPES)),
      status: T.Optional(OneOf(PIPELINE_STATUSES)),
      updated_after: T.Optional(T.String()),
      updated_before: T.Optional(T.String()),
      sort: T.Optional(OneOf(['asc', 'desc'] as const)),
    }),
    response: PipelineBasic,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const { id, pipeline_schedule_id, ...rest } = input;
      return mapPage(await schedulePipelines(c, actor, id, pipeline_schedule_id, rest, page), (v) => presentPipelineBasic(c, v));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/pipeline_schedules',
    tag: TAG,
    summary: 'Create a pipeline schedule (the caller owns it)',
    params: T.Object({ ...EDIT, id: IdOrPath, description: T.String(), ref: T.String(), cron: T.String() }),
    response: PipelineScheduleDetails,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentScheduleDetails(c, await createSchedule(c, actor, id, rest));
    },
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id',
    tag: TAG,
    summary: 'Update a pipeline schedule (its next run is computed again)',
    params: T.Object({ ...One, ...EDIT }),
    response: PipelineScheduleDetails,
    handler: async ({ c, actor, input }) => {
      const { id, pipeline_schedule_id, ...rest } = input;
      return presentScheduleDetails(c, await editSchedule(c, actor, id, pipeline_schedule_id, rest));
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership',
    tag: TAG,
    summary: 'Become the owner of a pipeline schedule (200 when already its owner)',
    params: T.Object(One),
    response: PipelineScheduleDetails,
    handler: async ({ c, actor, input, reply }) => {
      const { view, changed } = await takeOwnership(c, actor, input.id, input.pipeline_schedule_id);
      if (!changed) reply.status(200);
      return presentScheduleDetails(c, view);
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id',
    tag: TAG,
    summary: 'Delete a pipeline schedule (its pipelines stay)',
    params: T.Object(One),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => removeSchedule(c, actor, input.id, input.pipeline_schedule_id, ifUnmodifiedSince),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id/play',
    tag: TAG,
    summary: 'Run a pipeline schedule now, as the caller (the next scheduled run stays)',
    params: T.Object(One),
    response: T.Object({ message: T.String() }),
    handler: async ({ c, actor, input }) => {
      await playSchedule(c, actor, input.id, input.pipeline_schedule_id);
      return { message: '201 Created' };
    },
  }),
  route({
    method: 'POST',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables',
    tag: TAG,
    summary: 'Add a variable to a pipeline schedule',
    params: T.Object({ ...One, key: T.String(), value: T.String(), variable_type: VariableType }),
    response: PipelineVariable,
    handler: async ({ c, actor, input }) => {
      const { id, pipeline_schedule_id, ...rest } = input;
      return createScheduleVariable(c, actor, id, pipeline_schedule_id, rest);
    },
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key',
    tag: TAG,
    summary: "Change a pipeline schedule variable's value or type",
    params: T.Object({ ...One, key: T.String(), value: T.Optional(T.String()), variable_type: VariableType }),
    response: PipelineVariable,
    handler: async ({ c, actor, input }) => {
      const { id, pipeline_schedule_id, ...rest } = input;
      return updateScheduleVariableValue(c, actor, id, pipeline_schedule_id, rest);
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key',
    tag: TAG,
    summary: 'Remove a pipeline schedule variable (202 with the variable)',
    params: T.Object({ ...One, key: T.String() }),
    response: PipelineVariable,
    handler: async ({ c, actor, input, reply }) => {
      reply.status(202);
      return deleteScheduleVariableByKey(c, actor, input.id, input.pipeline_schedule_id, input.key);
    },
  }),
];
