// Pipeline trigger tokens (/projects/:id/triggers, maintainers) and the pipelines they start
// (POST /projects/:id/trigger/pipeline, authenticated by the token given, no user token).
import { Type as T } from '@sinclair/typebox';
import { changeTrigger, createTrigger, getTrigger, listTriggers, removeTrigger, triggerPipeline } from '../../domain/ci/triggers.js';
import { route } from '../../http/route.js';
import { presentPipeline } from '../pipelines/present.js';
import { Pipeline } from '../pipelines/schemas.js';
import { IdOrPath } from '../schemas.js';
import { presentTrigger } from './present.js';
import { Trigger } from './schemas.js';

const TAG = 'pipeline_triggers';
const WithTrigger = T.Object({ id: IdOrPath, trigger_id: T.Integer() });

const trigger = (path: string, summary: string) =>
  route({
    method: 'POST',
    path,
    auth: 'optional',
    tag: TAG,
    summary,
    params: T.Object({ id: IdOrPath, ref: T.String(), token: T.String(), variables: T.Optional(T.Any()) }),
    response: Pipeline,
    handler: async ({ c, input }) => presentPipeline(c, await triggerPipeline(c, input.id, input)),
  });

export const triggerRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/triggers',
    tag: TAG,
    summary: "A project's trigger tokens (maintainers; a token in full only to its owner)",
    params: T.Object({ id: IdOrPath }),
    response: Trigger,
    paginated: true,
    handler: async ({ c, actor, input, page }) => {
      const result = await listTriggers(c, actor, input.id, page);
      return { ...result, items: result.items.map((v) => presentTrigger(c, v)) };
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/triggers/:trigger_id',
    tag: TAG,
    summary: 'One trigger token of a project',
    params: WithTrigger,
    response: Trigger,
    handler: async ({ c, actor, input }) => presentTrigger(c, await getTrigger(c, actor, input.id, input.trigger_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/triggers',
    tag: TAG,
    summary: 'Create a trigger token (owned by the caller)',
    params: T.Object({ id: IdOrPath, description: T.String() }),
    response: Trigger,
    handler: async ({ c, actor, input }) => presentTrigger(c, await createTrigger(c, actor, input.id, input.description)),
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/triggers/:trigger_id',
    tag: TAG,
    summary: "Change a trigger token's description",
    params: T.Object({ id: IdOrPath, trigger_id: T.Integer(), description: T.Optional(T.String()) }),
    response: Trigger,
    handler: async ({ c, actor, input }) => presentTrigger(c, await changeTrigger(c, actor, input.id, input.trigger_id, input.description)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/triggers/:trigger_id',
    tag: TAG,
    summary: 'Remove a trigger token',
    params: WithTrigger,
    status: 204,
    handler: async ({ c, actor, input }) => removeTrigger(c, actor, input.id, input.trigger_id),
  }),
  trigger('/projects/:id/trigger/pipeline', 'Start a pipeline with a trigger token or a CI job token (source trigger / pipeline)'),
  trigger('/projects/:id/ref/:ref/trigger/pipeline', 'Start a pipeline of the ref in the path with a trigger token or a CI job token'),
];
