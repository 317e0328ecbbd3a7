// Members routes: the same handlers for groups and projects.
import { Type as T } from '@sinclair/typebox';
import { route } from '../../http/route.js';
import { addMember, changeMember, getMember, listMembers, removeMember, type SourceSpec } from '../../domain/members/service.js';
import { mapPage } from '../../shared/page.js';
import { presentMember } from './present.js';
import { AddMemberParams, ListMembersParams, Member, MemberParams, UpdateMemberParams } from './schemas.js';

function memberRoutesFor(prefix: '/groups' | '/projects', kind: SourceSpec['kind'], tag: string) {
  const spec = (id: number | string): SourceSpec => ({ kind, id });
  return [
    route({
      method: 'GET',
      path: `${prefix}/:id/members`,
      tag,
      summary: 'Direct members',
      params: T.Object(ListMembersParams),
      paginated: true,
      response: Member,
      handler: async ({ c, actor, input, page }) =>
        mapPage(await listMembers(c, actor, spec(input.id), input, page, { inherited: false }), (m) => presentMember(c, m)),
    }),
    route({
      method: 'GET',
      path: `${prefix}/:id/members/all`,
      tag,
      summary: 'Members including those inherited from groups above (highest role wins)',
      params: T.Object(ListMembersParams),
      paginated: true,
      response: Member,
      handler: async ({ c, actor, input, page }) =>
        mapPage(await listMembers(c, actor, spec(input.id), input, page, { inherited: true }), (m) => presentMember(c, m)),
    }),
    route({
      method: 'GET',
      path: `${prefix}/:id/members/:user_id`,
      tag,
      summary: 'One direct member',
      params: T.Object(MemberParams),
      response: Member,
      handler: async ({ c, actor, input }) => presentMember(c, await getMember(c, actor, spec(input.id), input.user_id, { inherited: false })),
    }),
    route({
      method: 'GET',
      path: `${prefix}/:id/members/all/:user_id`,
      tag,
      summary: 'One member, direct or inherited',
      params: T.Object(MemberParams),
      response: Member,
      handler: async ({ c, actor, input }) => presentMember(c, await getMember(c, actor, spec(input.id), input.user_id, { inherited: true })),
    }),
    route({
      method: 'POST',
      path: `${prefix}/:id/members`,
      tag,
      summary: 'Add a member',
      params: T.Object(AddMemberParams),
      response: Member,
      handler: async ({ c, actor, input }) => presentMember(c, await addMember(c, actor, spec(input.id), input)),
    }),
    route({
      method: 'PUT',
      path: `${prefix}/:id/members/:user_id`,
      tag,
      summary: "Change a member's role or expiry",
      params: T.Object(UpdateMemberParams),
      response: Member,
      handler: async ({ c, actor, input }) => presentMember(c, await changeMember(c, actor, spec(input.id), input.user_id, input)),
    }),
    route({
      method: 'DELETE',
      path: `${prefix}/:id/members/:user_id`,
      tag,
      summary: 'Remove a member',
      params: T.Object({ ...MemberParams, skip_subresources: T.Optional(T.Boolean()), unassign_issuables: T.Optional(T.Boolean()) }),
      status: 204,
      handler: async ({ c, actor, input }) => removeMember(c, actor, spec(input.id), input.user_id),
    }),
  ];
}

export const memberRoutes = [...memberRoutesFor('/groups', 'group', 'members'), ...memberRoutesFor('/projects', 'project', 'members')];
