// Milestones of projects and groups: list, get, create, change, delete, promote.
import { Type as T } from '@sinclair/typebox';
import {
  changeMilestone, createMilestone, getMilestone, listMilestones, promoteMilestone, removeMilestone, type MilestoneParentType,
} from '../../domain/milestones/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { CommaList, IdOrPath, OneOf } from '../schemas.js';
import { presentMilestone } from './present.js';
import { Milestone } from './schemas.js';

const TAG = 'milestones';

const dates = { description: T.Optional(T.String()), due_date: T.Optional(T.String()), start_date: T.Optional(T.String()) };

function endpoints(type: MilestoneParentType) {
  const base = `/${type}s/:id/milestones`;
  const withId = { id: IdOrPath, milestone_id: T.Integer() };
  return [
    route({
      method: 'GET',
      path: base,
      tag: TAG,
      summary: `A ${type}'s milestones`,
      params: T.Object({
        id: IdOrPath,
        state: T.Optional(OneOf(['active', 'closed', 'all'] as const)),
        iids: T.Optional(CommaList(T.Integer())),
        title: T.Optional(T.String()),
        search: T.Optional(T.String()),
        include_parent_milestones: T.Optional(T.Boolean()),
        ...(type === 'project' ? { include_ancestors: T.Optional(T.Boolean()) } : { include_descendants: T.Optional(T.Boolean()) }),
        updated_before: T.Optional(T.String({ format: 'date-time' })),
        updated_after: T.Optional(T.String({ format: 'date-time' })),
      }),
      response: Milestone,
      paginated: true,
      handler: async ({ c, actor, input, page }) => {
        const { id, ...rest } = input;
        return mapPage(await listMilestones(c, actor, type, id, rest, page), (v) => presentMilestone(c, v));
      },
    }),
    route({
      method: 'GET',
      path: `${base}/:milestone_id`,
      tag: TAG,
      summary: `One milestone of a ${type}`,
      params: T.Object(withId),
      response: Milestone,
      handler: async ({ c, actor, input }) => presentMilestone(c, await getMilestone(c, actor, type, input.id, input.milestone_id)),
    }),
    route({
      method: 'POST',
      path: base,
      tag: TAG,
      summary: `Create a ${type} milestone`,
      params: T.Object({ id: IdOrPath, title: T.String(), ...dates }),
      response: Milestone,
      handler: async ({ c, actor, input }) => {
        const { id, ...rest } = input;
        return presentMilestone(c, await createMilestone(c, actor, type, id, rest));
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/:milestone_id`,
      tag: TAG,
      summary: `Change a ${type} milestone; state_event closes or activates it`,
      params: T.Object({ ...withId, title: T.Optional(T.String()), state_event: T.Optional(OneOf(['close', 'activate'] as const)), ...dates }),
      paramRules: { atLeastOneOf: [['title', 'description', 'start_date', 'due_date', 'state_event']] },
      response: Milestone,
      handler: async ({ c, actor, input }) => {
        const { id, milestone_id, ...rest } = input;
        return presentMilestone(c, await changeMilestone(c, actor, type, id, milestone_id, rest));
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/:milestone_id`,
      tag: TAG,
      summary: `Delete a ${type} milestone`,
      params: T.Object(withId),
      status: 204,
      handler: async ({ c, actor, input }) => removeMilestone(c, actor, type, input.id, input.milestone_id),
    }),
    ...(type === 'project'
      ? [
          route({
            method: 'POST',
            path: `${base}/:milestone_id/promote`,
            tag: TAG,
            summary: "Promote a project milestone to its group's (answers 200 with the status, as the reference)",
            params: T.Object(withId),
            response: T.Integer(),
            status: 200,
            handler: async ({ c, actor, input }) => {
              await promoteMilestone(c, actor, input.id, input.milestone_id);
              return 200;
            },
          }),
        ]
      : []),
  ];
}

export const milestoneRoutes = [...endpoints('project'), ...endpoints('group')];
