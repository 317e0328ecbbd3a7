import type { Static } from '@sinclair/typebox';
import type { PersonalAccessTokenRow } from '../../db/repos/tokens.js';
import type { IssuedToken } from '../../domain/tokens/service.js';
import { today } from '../../shared/time.js';
import type { ResourceTokenRow } from '../../domain/tokens/resource_tokens.js';
import type { ImpersonationToken, PersonalAccessToken, ResourceAccessToken } from './schemas.js';

export function presentToken(t: PersonalAccessTokenRow): Static<typeof PersonalAccessToken> {
  const revoked = t.revoked === 1;
  return {
    id: t.id,
    name: t.name,
    revoked,
    created_at: t.created_at,
    scopes: JSON.parse(t.scopes),
    user_id: t.user_id,
    last_used_at: t.last_used_at,
    active: !revoked && (t.expires_at === null || t.expires_at > today()),
    expires_at: t.expires_at,
  };
}

/** A group or project access token: a personal one with the bot's role. */
export const presentResourceToken = (t: ResourceTokenRow): Static<typeof ResourceAccessToken> => ({ ...presentToken(t), access_level: t.access_level });

export const presentTokenWithToken = (i: IssuedToken) => ({ ...presentToken(i.row), token: i.token });

export const presentImpersonationToken = (t: PersonalAccessTokenRow): Static<typeof ImpersonationToken> => ({
  ...presentToken(t),
  impersonation: t.impersonation === 1,
});

export const presentImpersonationTokenWithToken = (i: IssuedToken) => ({ ...presentImpersonationToken(i.row), token: i.token });
