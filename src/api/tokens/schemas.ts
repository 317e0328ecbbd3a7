import { Type as T } from '@sinclair/typebox';
import { CommaList, DateOnly, Nullable, OneOf, Timestamp } from '../schemas.js';
import { PAT_SCOPES } from '../../domain/tokens/scopes.js';

/** The reference's PersonalAccessToken entity (15.x). */
const tokenFields = {
  id: T.Integer(),
  name: T.String(),
  revoked: T.Boolean(),
  created_at: Timestamp,
  scopes: T.Array(T.String()),
  user_id: T.Integer(),
  last_used_at: Nullable(Timestamp),
  active: T.Boolean(),
  expires_at: Nullable(DateOnly),
};

export const PersonalAccessToken = T.Object(tokenFields);
/** Only in the response that creates (or rotates) the token. */
export const PersonalAccessTokenWithToken = T.Object({ ...tokenFields, token: T.String() });
export const ImpersonationToken = T.Object({ ...tokenFields, impersonation: T.Boolean() });
export const ImpersonationTokenWithToken = T.Object({ ...tokenFields, token: T.String(), impersonation: T.Boolean() });
/** The reference's ResourceAccessToken entity: group and project access tokens. */
export const ResourceAccessToken = T.Object({ ...tokenFields, access_level: T.Integer() });
/** Only in the creation response. */
export const ResourceAccessTokenWithToken = T.Object({ ...tokenFields, access_level: T.Integer(), token: T.String() });

/** YYYY-MM-DD; checked for a real, future date in the domain. */
const ExpiresAt = T.Optional(T.String());

export const CreateTokenParams = {
  name: T.String(),
  scopes: CommaList(OneOf(PAT_SCOPES)),
  expires_at: ExpiresAt,
};

export const CreateImpersonationParams = {
  name: T.String(),
  scopes: T.Optional(CommaList(T.String())),
  expires_at: ExpiresAt,
};

export const RotateParams = { expires_at: ExpiresAt };

export const ListTokensParams = {
  user_id: T.Optional(T.Integer()),
  state: T.Optional(OneOf(['active', 'inactive'] as const)),
  revoked: T.Optional(T.Boolean()),
  created_before: T.Optional(T.String()),
  created_after: T.Optional(T.String()),
  last_used_before: T.Optional(T.String()),
  last_used_after: T.Optional(T.String()),
  search: T.Optional(T.String()),
};
