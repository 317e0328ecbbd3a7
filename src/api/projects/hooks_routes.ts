// Project hooks (maintainers): CRUD, the test delivery, the delivery log and resend.
import { Type as T } from '@sinclair/typebox';
import {
  createHook, deleteHook, getHook, listHookEvents, listHooks, resendHookEvent, testHook, TEST_TRIGGERS, updateHook,
} from '../../domain/projects/hooks.js';
import { presentHookLog } from '../hooks/present.js';
import { HookLog, ResendResult } from '../hooks/schemas.js';
import { OneOf } from '../schemas.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { presentHook } from './resources_present.js';
import { HookParams, ProjectHook, ProjectIdParam } from './resources_schemas.js';

const TAG = 'projects';
const HookIdParams = { ...ProjectIdParam, hook_id: T.Integer() };

export const projectHookRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/hooks',
    tag: TAG,
    summary: "A project's hooks",
    params: T.Object(ProjectIdParam),
    paginated: true,
    response: ProjectHook,
    handler: async ({ c, actor, input, page }) => mapPage(await listHooks(c, actor, input.id, page), presentHook),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/hooks/:hook_id',
    tag: TAG,
    summary: 'One project hook',
    params: T.Object(HookIdParams),
    response: ProjectHook,
    handler: async ({ c, actor, input }) => presentHook(await getHook(c, actor, input.id, input.hook_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/hooks',
    tag: TAG,
    summary: 'Add a project hook',
    params: T.Object(HookParams),
    response: ProjectHook,
    handler: async ({ c, actor, input }) => presentHook(await createHook(c, actor, input.id, input)),
  }),
  route({
    method: 'PUT',
    path: '/projects/:id/hooks/:hook_id',
    tag: TAG,
    summary: 'Edit a project hook',
    params: T.Object({ ...HookParams, hook_id: T.Integer() }),
    response: ProjectHook,
    handler: async ({ c, actor, input }) => presentHook(await updateHook(c, actor, input.id, input.hook_id, input)),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/hooks/:hook_id',
    tag: TAG,
    summary: 'Delete a project hook',
    params: T.Object(HookIdParams),
    status: 204,
    handler: async ({ c, actor, input }) => deleteHook(c, actor, input.id, input.hook_id),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/hooks/:hook_id/test/:trigger',
    tag: TAG,
    summary: 'Send a sample event of a trigger to a project hook',
    params: T.Object({ ...HookIdParams, trigger: OneOf(TEST_TRIGGERS) }),
    response: T.Object({ message: T.String() }),
    handler: async ({ c, actor, input }) => {
      await testHook(c, actor, input.id, input.hook_id, input.trigger);
      return { message: '201 Created' };
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/hooks/:hook_id/events',
    tag: TAG,
    summary: "A project hook's delivery log, newest first",
    params: T.Object(HookIdParams),
    paginated: true,
    response: HookLog,
    handler: async ({ c, actor, input, page }) => mapPage(await listHookEvents(c, actor, input.id, input.hook_id, page), presentHookLog),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/hooks/:hook_id/events/:hook_log_id/resend',
    tag: TAG,
    summary: 'Send a logged project hook request again',
    params: T.Object({ ...HookIdParams, hook_log_id: T.Integer() }),
    response: ResendResult,
    handler: async ({ c, actor, input }) => resendHookEvent(c, actor, input.id, input.hook_id, input.hook_log_id),
  }),
];
