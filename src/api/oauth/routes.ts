// OAuth 2 endpoints, outside /api/v4, as Doorkeeper serves them.
import { Type as T } from '@sinclair/typebox';
import { route } from '../../http/route.js';
import { exchangeToken, revokeOauth, tokenInfo } from '../../domain/oauth/service.js';
import { OauthToken, OauthTokenInfo, TokenParams } from './schemas.js';

const tag = 'oauth';

export const oauthRoutes = [
  route({
    method: 'POST',
    path: '/oauth/token',
    outsideApi: true,
    ownCredentials: true,
    auth: 'optional',
    tag,
    summary: 'Exchange a password or a refresh token for an access token',
    params: TokenParams,
    status: 200,
    response: OauthToken,
    handler: async ({ c, input, reply }) => {
      const token = await exchangeToken(c, input);
      // RFC 6749 §5.1: token responses must not be cached
      reply.header('cache-control', 'no-store');
      reply.header('pragma', 'no-cache');
      return token;
    },
  }),
  route({
    method: 'GET',
    path: '/oauth/token/info',
    outsideApi: true,
    ownCredentials: true,
    auth: 'optional',
    tag,
    summary: 'What an OAuth access token is',
    params: T.Object({ access_token: T.Optional(T.String()) }),
    response: OauthTokenInfo,
    handler: async ({ c, input, request }) => {
      const bearer = /^Bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim();
      return tokenInfo(c, bearer ?? input.access_token ?? null);
    },
  }),
  route({
    method: 'POST',
    path: '/oauth/revoke',
    outsideApi: true,
    ownCredentials: true,
    auth: 'optional',
    tag,
    summary: 'Revoke an OAuth access or refresh token',
    params: T.Object({ token: T.Optional(T.String()), token_type_hint: T.Optional(T.String()) }),
    status: 200,
    response: T.Object({}),
    handler: async ({ c, input }) => {
      await revokeOauth(c, input.token);
      return {};
    },
  }),
];
