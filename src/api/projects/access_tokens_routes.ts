// Project access tokens (the reference's resource access tokens for projects).
import { Type as T } from '@sinclair/typebox';
import { createProjectToken, getProjectToken, listProjectTokens, revokeProjectToken } from '../../domain/projects/access_tokens.js';
import { mapPage } from '../../domain/shared/page.js';
import { route } from '../../http/route.js';
import { presentGroupToken as presentResourceToken } from '../groups/present.js';
import { ResourceAccessToken, ResourceAccessTokenWithToken } from '../tokens/schemas.js';
import { CreateProjectTokenParams, ProjectIdParam } from './resources_schemas.js';

const TAG = 'projects';

export const projectAccessTokenRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/access_tokens',
    tag: TAG,
    summary: "A project's access tokens (maintainers)",
    params: T.Object(ProjectIdParam),
    paginated: true,
    response: ResourceAccessToken,
    handler: async ({ c, actor, input, page }) => mapPage(await listProjectTokens(c, actor!, input.id, page), presentResourceToken),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/access_tokens/:token_id',
    tag: TAG,
    summary: 'One project access token (maintainers)',
    params: T.Object({ ...ProjectIdParam, token_id: T.Integer() }),
    response: ResourceAccessToken,
    handler: async ({ c, actor, input }) => presentResourceToken(await getProjectToken(c, actor!, input.id, input.token_id)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/access_tokens',
    tag: TAG,
    summary: 'Create a project access token (and its bot user)',
    params: T.Object(CreateProjectTokenParams),
    response: ResourceAccessTokenWithToken,
    handler: async ({ c, actor, input }) => {
      const { row, token } = await createProjectToken(c, actor!, input.id, {
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
    path: '/projects/:id/access_tokens/:token_id',
    tag: TAG,
    summary: 'Revoke a project access token (its bot user is removed)',
    params: T.Object({ ...ProjectIdParam, token_id: T.Integer() }),
    status: 204,
    handler: async ({ c, actor, input }) => revokeProjectToken(c, actor!, input.id, input.token_id),
  }),
];
