// System hooks [admin]: CRUD, the test delivery, the delivery log and resend.
import { Type as T } from '@sinclair/typebox';
import {
  createSystemHook, deleteSystemHookById, getSystemHook, listSystemHookLogs, listSystemHooks, resendSystemHookLog, testSystemHook, updateSystemHookById,
} from '../../domain/hooks/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { presentHookLog, presentSystemHook } from './present.js';
import { CreateSystemHookParams, HookLog, ResendResult, SystemHook, UpdateSystemHookParams } from './schemas.js';

const TAG = 'system_hooks';
const IdParam = { id: T.Integer() };

export const systemHookRoutes = [
  route({
    method: 'GET',
    path: '/hooks',
    admin: true,
    tag: TAG,
    summary: 'System hooks (admin)',
    paginated: true,
    response: SystemHook,
    handler: async ({ c, actor, page }) => mapPage(await listSystemHooks(c, actor, page), presentSystemHook),
  }),
  route({
    method: 'GET',
    path: '/hooks/:id',
    admin: true,
    tag: TAG,
    summary: 'One system hook (admin)',
    params: T.Object(IdParam),
    response: SystemHook,
    handler: async ({ c, actor, input }) => presentSystemHook(await getSystemHook(c, actor, input.id)),
  }),
  route({
    method: 'POST',
    path: '/hooks',
    admin: true,
    tag: TAG,
    summary: 'Add a system hook (admin)',
    params: T.Object(CreateSystemHookParams),
    response: SystemHook,
    handler: async ({ c, actor, input }) => presentSystemHook(await createSystemHook(c, actor, input)),
  }),
  route({
    method: 'PUT',
    path: '/hooks/:id',
    admin: true,
    tag: TAG,
    summary: 'Edit a system hook (admin)',
    params: T.Object(UpdateSystemHookParams),
    response: SystemHook,
    handler: async ({ c, actor, input }) => presentSystemHook(await updateSystemHookById(c, actor, input.id, input)),
  }),
  route({
    method: 'POST',
    path: '/hooks/:id',
    admin: true,
    tag: TAG,
    summary: 'Test a system hook: sends the sample project creation (admin)',
    params: T.Object(IdParam),
    response: T.Object({
      project_id: T.Integer(),
      owner_email: T.String(),
      owner_name: T.String(),
      name: T.String(),
      path: T.String(),
      event_name: T.String(),
    }),
    handler: async ({ c, actor, input }) => testSystemHook(c, actor, input.id),
  }),
  route({
    method: 'DELETE',
    path: '/hooks/:id',
    admin: true,
    tag: TAG,
    summary: 'Delete a system hook (admin)',
    params: T.Object(IdParam),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => {
      await deleteSystemHookById(c, actor, input.id, ifUnmodifiedSince);
    },
  }),
  route({
    method: 'GET',
    path: '/hooks/:id/events',
    admin: true,
    tag: TAG,
    summary: "A system hook's delivery log, newest first (admin)",
    params: T.Object(IdParam),
    paginated: true,
    response: HookLog,
    handler: async ({ c, actor, input, page }) => mapPage(await listSystemHookLogs(c, actor, input.id, page), presentHookLog),
  }),
  route({
    method: 'POST',
    path: '/hooks/:id/events/:hook_log_id/resend',
    admin: true,
    tag: TAG,
    summary: 'Send a logged system hook request again (admin)',
    params: T.Object({ ...IdParam, hook_log_id: T.Integer() }),
    response: ResendResult,
    handler: async ({ c, actor, input }) => resendSystemHookLog(c, actor, input.id, input.hook_log_id),
  }),
];
