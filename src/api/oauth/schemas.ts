import { Type as T } from '@sinclair/typebox';

/** Doorkeeper's token response. */
export const OauthToken = T.Object({
  access_token: T.String(),
  token_type: T.String(),
  expires_in: T.Integer(),
  refresh_token: T.String(),
  scope: T.String(),
  created_at: T.Integer(),
});

/** Doorkeeper's token info, plus the two keys the reference keeps for older clients. */
export const OauthTokenInfo = T.Object({
  resource_owner_id: T.Integer(),
  scope: T.Array(T.String()),
  expires_in: T.Integer(),
  application: T.Object({ uid: T.Null() }),
  created_at: T.Integer(),
  scopes: T.Array(T.String()),
  expires_in_seconds: T.Integer(),
});

/** Every parameter is optional here: a missing one is Doorkeeper's invalid_request, not the API's 400. */
export const TokenParams = T.Object({
  grant_type: T.Optional(T.String()),
  username: T.Optional(T.String()),
  password: T.Optional(T.String()),
  refresh_token: T.Optional(T.String()),
  scope: T.Optional(T.String()),
});
