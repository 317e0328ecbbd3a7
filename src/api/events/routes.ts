import { Type as T } from '@sinclair/typebox';
import { listOwnEvents, listProjectEvents, listUserEvents } from '../../domain/events/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentEvent } from './present.js';
import { EVENT_FILTER_PARAMS, Event } from './schemas.js';

const TAG = 'events';

/**
 * /events and /users/:id/events also accept a `read_user` token (the reference's
 * `allow_access_with_scope :read_user` for GET); `read_api` passes every GET there too.
 * /projects/:id/events takes the usual read scopes only.
 */
const USER_EVENT_SCOPES = ['api', 'read_api', 'read_user'];

export const eventRoutes = [
  route({
    method: 'GET',
    path: '/events',
    tag: TAG,
    summary: "The caller's events (scope=all: every event in the caller's projects)",
    scopes: USER_EVENT_SCOPES,
    params: T.Object({ scope: T.Optional(T.String()), ...EVENT_FILTER_PARAMS }),
    paginated: true,
    response: Event,
    handler: async ({ c, actor, input, page }) => mapPage(await listOwnEvents(c, actor, input, page), (e) => presentEvent(c, e)),
  }),
  route({
    method: 'GET',
    path: '/users/:id/events',
    tag: TAG,
    summary: "A user's events that the caller may see (none for a private profile)",
    auth: 'optional',
    scopes: USER_EVENT_SCOPES,
    params: T.Object({ id: T.String(), ...EVENT_FILTER_PARAMS }),
    paginated: true,
    response: Event,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...filters } = input;
      return mapPage(await listUserEvents(c, actor, id, filters, page), (e) => presentEvent(c, e));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/events',
    tag: TAG,
    summary: "A project's events",
    auth: 'optional',
    params: T.Object({ id: IdOrPath, ...EVENT_FILTER_PARAMS }),
    paginated: true,
    response: Event,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...filters } = input;
      return mapPage(await listProjectEvents(c, actor, id, filters, page), (e) => presentEvent(c, e));
    },
  }),
];
