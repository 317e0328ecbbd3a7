import { Type as T } from '@sinclair/typebox';
import { route } from '../../http/route.js';
import { OneOf } from '../schemas.js';
import { mapPage } from '../../shared/page.js';
import { PAT_SCOPES } from '../../domain/tokens/scopes.js';
import * as tokens from '../../domain/tokens/service.js';
import { presentImpersonationToken, presentImpersonationTokenWithToken, presentToken, presentTokenWithToken } from './present.js';
import {
  CreateImpersonationParams,
  CreateTokenParams,
  ImpersonationToken,
  ImpersonationTokenWithToken,
  ListTokensParams,
  PersonalAccessToken,
  PersonalAccessTokenWithToken,
  RotateParams,
} from './schemas.js';

const tag = 'personal_access_tokens';
/** A token may always look at and revoke itself, whatever its scopes. */
const ANY_SCOPE = PAT_SCOPES;

const Id = { id: T.Integer() };
const UserId = { user_id: T.Integer() };

export const tokenRoutes = [
  route({
    method: 'GET',
    path: '/personal_access_tokens',
    tag,
    summary: 'Personal access tokens: all for an admin, else your own',
    params: T.Object(ListTokensParams),
    paginated: true,
    response: PersonalAccessToken,
    handler: async ({ c, actor, input, page }) =>
      mapPage(
        await tokens.listTokens(c, actor, {
          userId: input.user_id,
          state: input.state,
          revoked: input.revoked,
          createdBefore: input.created_before,
          createdAfter: input.created_after,
          lastUsedBefore: input.last_used_before,
          lastUsedAfter: input.last_used_after,
          search: input.search,
        }, page),
        presentToken,
      ),
  }),
  route({
    method: 'GET',
    path: '/personal_access_tokens/self',
    tag,
    summary: 'The token this request uses',
    scopes: ANY_SCOPE,
    response: PersonalAccessToken,
    handler: async ({ c, actor }) => presentToken(await tokens.getSelfToken(c, actor)),
  }),
  route({
    method: 'DELETE',
    path: '/personal_access_tokens/self',
    tag,
    summary: 'Revoke the token this request uses',
    scopes: ANY_SCOPE,
    status: 204,
    handler: async ({ c, actor }) => tokens.revokeSelfToken(c, actor),
  }),
  route({
    method: 'POST',
    path: '/personal_access_tokens/self/rotate',
    tag,
    summary: 'Rotate the token this request uses',
    params: T.Object(RotateParams),
    status: 200,
    response: PersonalAccessTokenWithToken,
    handler: async ({ c, actor, input }) => presentTokenWithToken(await tokens.rotateSelfToken(c, actor, input.expires_at)),
  }),
  route({
    method: 'GET',
    path: '/personal_access_tokens/:id',
    tag,
    summary: 'One personal access token',
    params: T.Object(Id),
    response: PersonalAccessToken,
    handler: async ({ c, actor, input }) => presentToken(await tokens.getToken(c, actor, input.id)),
  }),
  route({
    method: 'DELETE',
    path: '/personal_access_tokens/:id',
    tag,
    summary: 'Revoke a personal access token',
    params: T.Object(Id),
    status: 204,
    handler: async ({ c, actor, input }) => tokens.revokeToken(c, actor, input.id),
  }),
  route({
    method: 'POST',
    path: '/personal_access_tokens/:id/rotate',
    tag,
    summary: 'Rotate a personal access token: a new token, the old one revoked',
    params: T.Object({ ...Id, ...RotateParams }),
    status: 200,
    response: PersonalAccessTokenWithToken,
    handler: async ({ c, actor, input }) => presentTokenWithToken(await tokens.rotateToken(c, actor, input.id, input.expires_at)),
  }),
  route({
    method: 'POST',
    path: '/user/personal_access_tokens',
    tag,
    summary: 'Create a personal access token for yourself',
    params: T.Object(CreateTokenParams),
    response: PersonalAccessTokenWithToken,
    handler: async ({ c, actor, input }) =>
      presentTokenWithToken(await tokens.createOwnToken(c, actor, { name: input.name, scopes: input.scopes, expiresAt: input.expires_at })),
  }),
  route({
    method: 'POST',
    path: '/users/:user_id/personal_access_tokens',
    admin: true,
    tag,
    summary: 'Create a personal access token for a user (admin)',
    params: T.Object({ ...UserId, ...CreateTokenParams }),
    response: PersonalAccessTokenWithToken,
    handler: async ({ c, actor, input }) =>
      presentTokenWithToken(
        await tokens.createPersonalToken(c, actor, input.user_id, { name: input.name, scopes: input.scopes, expiresAt: input.expires_at }),
      ),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/impersonation_tokens',
    admin: true,
    tag: 'impersonation_tokens',
    summary: "A user's impersonation tokens (admin)",
    params: T.Object({ ...UserId, state: T.Optional(OneOf(['all', 'active', 'inactive'] as const, { default: 'all' })) }),
    paginated: true,
    response: ImpersonationToken,
    handler: async ({ c, actor, input, page }) =>
      mapPage(await tokens.listImpersonationTokens(c, actor, input.user_id, input.state ?? 'all', page), presentImpersonationToken),
  }),
  route({
    method: 'POST',
    path: '/users/:user_id/impersonation_tokens',
    admin: true,
    tag: 'impersonation_tokens',
    summary: 'Create an impersonation token (admin)',
    params: T.Object({ ...UserId, ...CreateImpersonationParams }),
    response: ImpersonationTokenWithToken,
    handler: async ({ c, actor, input }) =>
      presentImpersonationTokenWithToken(
        await tokens.createImpersonationToken(c, actor, input.user_id, { name: input.name, scopes: input.scopes, expiresAt: input.expires_at }),
      ),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    admin: true,
    tag: 'impersonation_tokens',
    summary: 'One impersonation token (admin)',
    params: T.Object({ ...UserId, impersonation_token_id: T.Integer() }),
    response: ImpersonationToken,
    handler: async ({ c, actor, input }) =>
      presentImpersonationToken(await tokens.getImpersonationToken(c, actor, input.user_id, input.impersonation_token_id)),
  }),
  route({
    method: 'DELETE',
    path: '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    admin: true,
    tag: 'impersonation_tokens',
    summary: 'Revoke an impersonation token (admin)',
    params: T.Object({ ...UserId, impersonation_token_id: T.Integer() }),
    status: 204,
    handler: async ({ c, actor, input }) => tokens.revokeImpersonationToken(c, actor, input.user_id, input.impersonation_token_id),
  }),
];
