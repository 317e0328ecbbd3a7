import { Type as T } from '@sinclair/typebox';
import { route } from '../../http/route.js';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup, type GroupDetailView, type ListGroupsInput } from '../../domain/groups/service.js';
import { groupDetailProjects } from '../../domain/projects/service.js';
import type { Actor } from '../../domain/auth/actor.js';
import type { Container } from '../../domain/context.js';
import { mapPage } from '../../shared/page.js';
import { presentGroup, presentGroupDetail } from './present.js';
import {
  CreateGroupParams,
  Group,
  GroupDetail,
  GroupIdParam,
  ListGroupsParams,
  UpdateGroupParams,
} from './schemas.js';
import type { PageInput } from '../../http/pagination.js';

const tag = 'groups';

/** Keyset pages exist for groups ordered by name ascending (the spec's one supported order). */
const keysetByName = (i: PageInput) => (i.order_by ?? 'name') === 'name' && (i.sort ?? 'asc') === 'asc';

const listInput = (i: Record<string, any>): ListGroupsInput => ({
  ...i,
  order_by: i.order_by === 'similarity' ? 'name' : i.order_by,
  sort: i.sort,
});

/**
 * A group's detail answer, with its projects and shared projects when the view asks for them (GET
 * with with_projects, PUT); those carry custom attributes too when the group's were asked for.
 */
async function detailAnswer(c: Container, actor: Actor | null, v: GroupDetailView, opts: { withCustomAttributes?: boolean } = {}) {
  return presentGroupDetail(c, v, v.withProjects ? await groupDetailProjects(c, actor, v.row.id, opts) : null);
}

export const groupRoutes = [
  route({
    method: 'GET',
    path: '/groups',
    tag,
    summary: 'List groups',
    auth: 'optional',
    params: T.Object(ListGroupsParams),
    paginated: true,
    keyset: keysetByName,
    response: Group,
    handler: async ({ c, actor, input, page }) => mapPage(await listGroups(c, actor, listInput(input), page), (g) => presentGroup(c, g)),
  }),
  route({
    method: 'POST',
    path: '/groups',
    tag,
    summary: 'Create a group (or a subgroup with parent_id)',
    params: T.Object(CreateGroupParams),
    response: GroupDetail,
    handler: async ({ c, actor, input }) => presentGroupDetail(c, await createGroup(c, actor, input)),
  }),
  route({
    method: 'GET',
    path: '/groups/:id',
    tag,
    summary: 'A group, with its projects unless with_projects=false',
    auth: 'optional',
    params: T.Object({ ...GroupIdParam, with_projects: T.Optional(T.Boolean({ default: true })), with_custom_attributes: T.Optional(T.Boolean()) }),
    response: GroupDetail,
    handler: async ({ c, actor, input }) => {
      const opts = { withCustomAttributes: input.with_custom_attributes };
      return detailAnswer(c, actor, await getGroup(c, actor, input.id, input.with_projects ?? true, opts), opts);
    },
  }),
  route({
    method: 'PUT',
    path: '/groups/:id',
    tag,
    summary: 'Update a group (owners)',
    params: T.Object(UpdateGroupParams),
    response: GroupDetail,
    handler: async ({ c, actor, input }) => {
      const { id, ...changes } = input;
      return detailAnswer(c, actor, await updateGroup(c, actor, id, changes));
    },
  }),
  route({
    method: 'DELETE',
    path: '/groups/:id',
    tag,
    summary: 'Delete a group and everything below it (owners)',
    params: T.Object(GroupIdParam),
    status: 202,
    response: T.Object({ message: T.String() }),
    handler: async ({ c, actor, input }) => {
      await deleteGroup(c, actor, input.id);
      return { message: '202 Accepted' };
    },
  }),
  route({
    method: 'GET',
    path: '/groups/:id/subgroups',
    tag,
    summary: "A group's direct subgroups",
    auth: 'optional',
    params: T.Object({ ...GroupIdParam, ...ListGroupsParams }),
    paginated: true,
    response: Group,
    handler: async ({ c, actor, input, page }) =>
      mapPage(await listGroups(c, actor, listInput(input), page, { parent: input.id }), (g) => presentGroup(c, g)),
  }),
  route({
    method: 'GET',
    path: '/groups/:id/descendant_groups',
    tag,
    summary: 'Every group below a group',
    auth: 'optional',
    params: T.Object({ ...GroupIdParam, ...ListGroupsParams }),
    paginated: true,
    response: Group,
    handler: async ({ c, actor, input, page }) =>
      mapPage(await listGroups(c, actor, listInput(input), page, { parent: input.id, descendants: true }), (g) => presentGroup(c, g)),
  }),
];
