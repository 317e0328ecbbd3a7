// Group and project access tokens: the same four routes for both, as members have them.
import { Type as T } from '@sinclair/typebox';
import { createGroupToken, getGroupToken, listGroupTokens, revokeGroupToken } from '../../domain/groups/access_tokens.js';
import { MEMBER_LEVELS } from '../../domain/members/policy.js';
import { createProjectToken, getProjectToken, listProjectTokens, revokeProjectToken } from '../../domain/projects/access_tokens.js';
import { mapPage } from '../../shared/page.js';
import { RESOURCE_BOT_SCOPES } from '../../domain/tokens/resource_tokens.js';
import { route } from '../../http/route.js';
import { IntOneOf } from '../groups/schemas.js';
import { CommaList, IdOrPath, OneOf } from '../schemas.js';
import { presentResourceToken } from './present.js';
import { ResourceAccessToken, ResourceAccessTokenWithToken } from './schemas.js';

const KINDS = {
  group: { prefix: '/groups', tag: 'groups', who: 'owners', list: listGroupTokens, get: getGroupToken, create: createGroupToken, revoke: revokeGroupToken },
  project: { prefix: '/projects', tag: 'projects', who: 'maintainers', list: listProjectTokens, get: getProjectToken, create: createProjectToken, revoke: revokeProjectToken },
} as const;

const IdParam = { id: IdOrPath };
const TokenParams = T.Object({ ...IdParam, token_id: T.Integer() });
const CreateParams = T.Object({
  ...IdParam,
  name: T.String(),
  scopes: CommaList(OneOf(RESOURCE_BOT_SCOPES)),
  expires_at: T.Optional(T.String()),
  access_level: T.Optional(IntOneOf(MEMBER_LEVELS, { default: 40 })),
});

function accessTokenRoutesFor(kind: keyof typeof KINDS) {
  const { prefix, tag, who, ...ops } = KINDS[kind];
  return [
    route({
      method: 'GET',
      path: `${prefix}/:id/access_tokens`,
      tag,
      summary: `A ${kind}'s access tokens (${who})`,
      params: T.Object(IdParam),
      paginated: true,
      response: ResourceAccessToken,
      handler: async ({ c, actor, input, page }) => mapPage(await ops.list(c, actor, input.id, page), presentResourceToken),
    }),
    route({
      method: 'GET',
      path: `${prefix}/:id/access_tokens/:token_id`,
      tag,
      summary: `One ${kind} access token (${who})`,
      params: TokenParams,
      response: ResourceAccessToken,
      handler: async ({ c, actor, input }) => presentResourceToken(await ops.get(c, actor, input.id, input.token_id)),
    }),
    route({
      method: 'POST',
      path: `${prefix}/:id/access_tokens`,
      tag,
      summary: `Create a ${kind} access token (and its bot user)`,
      params: CreateParams,
      response: ResourceAccessTokenWithToken,
      handler: async ({ c, actor, input }) => {
        const { row, token } = await ops.create(c, actor, input.id, {
          name: input.name,
          scopes: input.scopes,
          expires_at: input.expires_at,
          access_level: input.access_level ?? 40,
        });
        return { ...presentResourceToken(row), token };
      },
    }),
    route({
      method: 'DELETE',
      path: `${prefix}/:id/access_tokens/:token_id`,
      tag,
      summary: `Revoke a ${kind} access token (its bot user is removed)`,
      params: TokenParams,
      status: 204,
      handler: async ({ c, actor, input }) => ops.revoke(c, actor, input.id, input.token_id),
    }),
  ];
}

export const accessTokenRoutes = [...accessTokenRoutesFor('group'), ...accessTokenRoutesFor('project')];
