// OAuth 2 as Doorkeeper answers it: the password and refresh_token grants, token info and
// revocation. Errors are Doorkeeper's `{error, error_description}` bodies, not the API's.
import type { Container } from '../context.js';
import {
  findOauthByDigest,
  findOauthByRefreshDigest,
  insertOauthToken,
  revokeOauthToken,
  type OauthTokenRow,
} from '../../db/repos/tokens.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { exactError } from '../errors.js';
import { digest, randomToken } from '../shared/secrets.js';
import { nowIso } from '../../shared/time.js';
import { userByPassword } from '../auth/password.js';
import { getSettings } from '../settings/service.js';
import { PAT_SCOPES } from '../tokens/scopes.js';
import { now as clockNow } from '../../shared/clock.js';

/** Access tokens live two hours, as the reference configures Doorkeeper. */
export const OAUTH_EXPIRES_IN = 7200;
const DEFAULT_SCOPES = ['api'];

const DESCRIPTIONS = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
};

type OauthError = keyof typeof DESCRIPTIONS;

const oauthError = (error: OauthError, status = 400) => exactError(status, { error, error_description: DESCRIPTIONS[error] });

export interface TokenRequest {
  grant_type?: string;
  username?: string;
  password?: string;
  refresh_token?: string;
  scope?: string;
}

export interface IssuedOauthToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
}

const splitScopes = (s: string): string[] => s.split(/\s+/).filter(Boolean);

const usable = (u: UserRow | undefined): u is UserRow => !!u && u.state === 'active';

async function issue(c: Container, userId: number, scopes: string[]): Promise<IssuedOauthToken> {
  const access = randomToken('', 32);
  const refresh = randomToken('', 32);
  const row = await insertOauthToken(c.db, {
    user_id: userId,
    token_digest: digest(access),
    refresh_digest: digest(refresh),
    scopes: scopes.join(' '),
    expires_in: OAUTH_EXPIRES_IN,
    created_at: nowIso(),
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: row.expires_in,
    refresh_token: refresh,
    scope: row.scopes,
    created_at: Math.floor(Date.parse(row.created_at) / 1000),
  };
}

async function passwordGrant(c: Container, req: TokenRequest): Promise<IssuedOauthToken> {
  if (!req.username || !req.password) throw oauthError('invalid_request');
  // With password sign-in turned off, the reference finds no user for any credentials (invalid_grant).
  if (!(await getSettings(c)).password_authentication_enabled_for_web) throw oauthError('invalid_grant');
  const scopes = req.scope === undefined || req.scope.trim() === '' ? DEFAULT_SCOPES : splitScopes(req.scope);
  if (scopes.some((s) => !PAT_SCOPES.includes(s))) throw oauthError('invalid_scope');
  const user = await userByPassword(c, req.username, req.password);
  if (!user) throw oauthError('invalid_grant');
  return issue(c, user.id, scopes);
}

async function refreshGrant(c: Container, req: TokenRequest): Promise<IssuedOauthToken> {
  if (!req.refresh_token) throw oauthError('invalid_request');
  const old = await findOauthByRefreshDigest(c.db, digest(req.refresh_token));
  if (!old || old.revoked_at) throw oauthError('invalid_grant');
  const granted = splitScopes(old.scopes);
  const scopes = req.scope === undefined || req.scope.trim() === '' ? granted : splitScopes(req.scope);
  if (scopes.some((s) => !granted.includes(s))) throw oauthError('invalid_scope');
  const user = await findUserById(c.db, old.user_id);
  if (!usable(user)) throw oauthError('invalid_grant');
  // A refresh token is single-use: whoever revokes the old token first gets the new one.
  if (!(await revokeOauthToken(c.db, old.id, nowIso()))) throw oauthError('invalid_grant');
  return issue(c, user.id, scopes);
}

/** POST /oauth/token */
export async function exchangeToken(c: Container, req: TokenRequest): Promise<IssuedOauthToken> {
  if (!req.grant_type) throw oauthError('invalid_request');
  if (req.grant_type === 'password') return passwordGrant(c, req);
  if (req.grant_type === 'refresh_token') return refreshGrant(c, req);
  throw oauthError('unsupported_grant_type');
}

const secondsLeft = (t: OauthTokenRow): number => Math.round((Date.parse(t.created_at) + t.expires_in * 1000 - clockNow()) / 1000);

export interface TokenInfo {
  resource_owner_id: number;
  scope: string[];
  expires_in: number;
  application: { uid: null };
  created_at: number;
  scopes: string[];
  expires_in_seconds: number;
}

/** GET /oauth/token/info: an unknown, expired or revoked token is a 401 invalid_request, as the reference answers. */
export async function tokenInfo(c: Container, token: string | null): Promise<TokenInfo> {
  const t = token ? await findOauthByDigest(c.db, digest(token)) : undefined;
  if (!t || t.revoked_at || secondsLeft(t) <= 0) throw oauthError('invalid_request', 401);
  const scopes = splitScopes(t.scopes);
  const left = secondsLeft(t);
  return {
    resource_owner_id: t.user_id,
    scope: scopes,
    expires_in: left,
    application: { uid: null },
    created_at: Math.floor(Date.parse(t.created_at) / 1000),
    // the reference keeps these two for older clients
    scopes,
    expires_in_seconds: left,
  };
}

/** POST /oauth/revoke (RFC 7009): revokes an access or refresh token; unknown tokens are not an error. */
export async function revokeOauth(c: Container, token: string | undefined): Promise<void> {
  if (!token) throw oauthError('invalid_request');
  const d = digest(token);
  const t = (await findOauthByDigest(c.db, d)) ?? (await findOauthByRefreshDigest(c.db, d));
  if (t && !t.revoked_at) await revokeOauthToken(c.db, t.id, nowIso());
}
