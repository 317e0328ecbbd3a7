// Access tokens: issuing every kind (personal, impersonation, project and group bot tokens) in
// one place that generates the secret, stores only its digest and returns it once; and the
// personal and impersonation token operations of the API.
import { dateTimeParam } from '../shared/params.js';
import type { Container } from '../context.js';
import {
  findPatById,
  insertPat,
  pagePats,
  replacePat,
  revokePat,
  type PatFilters,
  type PersonalAccessTokenRow,
} from '../../db/repos/tokens.js';
import { findUserById } from '../../db/repos/users.js';
import { isAdmin, requireAdmin, type Actor } from '../auth/actor.js';
import { badRequest, forbidden, invalidParams, methodNotAllowed, notFound, validation } from '../errors.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { digest, randomToken } from '../shared/secrets.js';
import { isDate, nowIso, today } from '../../shared/time.js';
import { canManageToken, selfScopesFor } from './policy.js';
import { PAT_SCOPES } from './scopes.js';

export const TOKEN_PREFIX = 'anvil-';

/** A rotated token without an explicit expiry lives this long, as the reference's rotation does. */
const ROTATION_DAYS = 7;

export interface IssueTokenInput {
  userId: number;
  name: string;
  scopes: string[];
  expiresAt: string | null; // YYYY-MM-DD
  impersonation?: boolean;
  /** Id of the token this one replaces (rotation): revoked in the same transaction. */
  replaces?: number;
  /** The token's value when it is given (ANVIL_ROOT_TOKEN, a test seed's fixed tokens); else a new random one. */
  token?: string;
}

export interface IssuedToken {
  row: PersonalAccessTokenRow;
  token: string;
}

/** Returns the stored row and the clear token; the clear token exists only in this return value. */
export async function issueToken(c: Container, input: IssueTokenInput): Promise<IssuedToken> {
  const token = input.token ?? randomToken(TOKEN_PREFIX);
  const values = {
    user_id: input.userId,
    name: input.name,
    token_digest: digest(token),
    scopes: JSON.stringify(input.scopes),
    impersonation: input.impersonation ? 1 : 0,
    expires_at: input.expiresAt,
    created_at: nowIso(),
  };
  if (input.replaces === undefined) return { row: await insertPat(c.db, values), token };
  const row = await replacePat(c.db, input.replaces, values);
  if (!row) throw badRequest('Token already revoked');
  return { row, token };
}

// ---- helpers ---------------------------------------------------------------------------------

/** `expires_at` as given (YYYY-MM-DD), or null; a date that is not in the future is refused. */
function expiryOf(expiresAt: string | undefined): string | null {
  if (expiresAt === undefined) return null;
  if (!isDate(expiresAt)) throw invalidParams('expires_at is invalid');
  // A token expiring today would already be unusable (expiry is checked by date).
  if (expiresAt <= today()) throw validation({ expires_at: ['must be in the future'] });
  return expiresAt;
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

async function requireUser(c: Container, userId: number) {
  const user = await findUserById(c.db, userId);
  if (!user) throw notFound('User');
  return user;
}

/** A token the actor may manage, or 404 (a caller who cannot see a token is not told it exists). */
async function manageableToken(c: Container, actor: Actor, id: number): Promise<PersonalAccessTokenRow> {
  const token = await findPatById(c.db, id);
  if (!token || !canManageToken(actor, token)) throw notFound();
  return token;
}

/** The personal (or impersonation) token this request authenticated with. */
async function currentToken(c: Container, actor: Actor): Promise<PersonalAccessTokenRow | null> {
  const isPat = actor.via === 'personal_access_token' || actor.via === 'impersonation_token';
  if (!isPat || actor.tokenId === null) return null;
  return (await findPatById(c.db, actor.tokenId)) ?? null;
}

// ---- personal access tokens ------------------------------------------------------------------

export interface NewTokenInput {
  name: string;
  scopes: string[];
  expiresAt?: string;
}

/** Admin: a personal access token for any user. */
export async function createPersonalToken(c: Container, actor: Actor, userId: number, input: NewTokenInput): Promise<IssuedToken> {
  requireAdmin(actor);
  await requireUser(c, userId);
  const expiresAt = expiryOf(input.expiresAt);
  return issueToken(c, { userId, name: input.name, scopes: input.scopes, expiresAt });
}

/** Anyone: a token for themselves, with only the scopes their account may hold. */
export async function createOwnToken(c: Container, actor: Actor, input: NewTokenInput): Promise<IssuedToken> {
  const allowed = selfScopesFor(actor);
  if (input.scopes.some((s) => !allowed.includes(s))) throw invalidParams('scopes does not have a valid value');
  const expiresAt = expiryOf(input.expiresAt);
  return issueToken(c, { userId: actor.user.id, name: input.name, scopes: input.scopes, expiresAt });
}

/** The list filters a caller may give (the rest of PatFilters is set by the rules below). */
export type ListTokensInput = Omit<PatFilters, 'impersonation' | 'today'>;

/** Admins see every token (optionally one user's); others see their own personal tokens. */
/** A date-time filter as stored (ISO 8601 UTC), so text comparison orders correctly. */
export async function listTokens(c: Container, actor: Actor, input: ListTokensInput, page: PageRequest): Promise<PageResult<PersonalAccessTokenRow>> {
  const f: PatFilters = {
    ...input,
    createdBefore: dateTimeParam('created_before', input.createdBefore),
    createdAfter: dateTimeParam('created_after', input.createdAfter),
    lastUsedBefore: dateTimeParam('last_used_before', input.lastUsedBefore),
    lastUsedAfter: dateTimeParam('last_used_after', input.lastUsedAfter),
    today: today(),
  };
  if (isAdmin(actor)) {
    if (input.userId !== undefined && !(await findUserById(c.db, input.userId))) throw notFound();
  } else {
    // Someone else's tokens are invisible to a non-admin: 404 (the reference says 401).
    if (input.userId !== undefined && input.userId !== actor.user.id) throw notFound();
    f.userId = actor.user.id;
    f.impersonation = false;
  }
  return pagePats(c.db, f, page);
}

export const getToken = (c: Container, actor: Actor, id: number) => manageableToken(c, actor, id);

export async function getSelfToken(c: Container, actor: Actor): Promise<PersonalAccessTokenRow> {
  const token = await currentToken(c, actor);
  if (!token) throw badRequest('This endpoint requires token type to be a personal access token');
  return token;
}

export async function revokeToken(c: Container, actor: Actor, id: number): Promise<void> {
  const token = await manageableToken(c, actor, id);
  await revokePat(c.db, token.id);
}

export async function revokeSelfToken(c: Container, actor: Actor): Promise<void> {
  const token = await getSelfToken(c, actor);
  await revokePat(c.db, token.id);
}

async function rotate(c: Container, token: PersonalAccessTokenRow, expiresAtParam: string | undefined): Promise<IssuedToken> {
  if (token.revoked) throw badRequest('Token already revoked');
  const expiresAt = expiryOf(expiresAtParam) ?? addDays(today(), ROTATION_DAYS);
  return issueToken(c, {
    userId: token.user_id,
    name: token.name,
    scopes: JSON.parse(token.scopes),
    impersonation: token.impersonation === 1,
    expiresAt,
    replaces: token.id,
  });
}

export async function rotateToken(c: Container, actor: Actor, id: number, expiresAt?: string): Promise<IssuedToken> {
  return rotate(c, await manageableToken(c, actor, id), expiresAt);
}

export async function rotateSelfToken(c: Container, actor: Actor, expiresAt?: string): Promise<IssuedToken> {
  const token = await currentToken(c, actor);
  if (!token) throw methodNotAllowed();
  return rotate(c, token, expiresAt);
}

// ---- impersonation tokens (admin only) -----------------------------------------------------

export async function listImpersonationTokens(
  c: Container,
  actor: Actor,
  userId: number,
  state: 'all' | 'active' | 'inactive',
  page: PageRequest,
): Promise<PageResult<PersonalAccessTokenRow>> {
  requireAdmin(actor);
  await requireUser(c, userId);
  return pagePats(c.db, { userId, impersonation: true, state: state === 'all' ? undefined : state, today: today() }, page);
}

export async function createImpersonationToken(
  c: Container,
  actor: Actor,
  userId: number,
  input: { name: string; scopes?: string[]; expiresAt?: string },
): Promise<IssuedToken> {
  requireAdmin(actor);
  // Switched off instance-wide: the reference's admin pages answer 404 for every impersonation action.
  if (!c.config.impersonationEnabled) throw notFound();
  await requireUser(c, userId);
  const expiresAt = expiryOf(input.expiresAt);
  // Scopes are checked as the reference's model does (validation errors, not parameter errors).
  if (!input.scopes || input.scopes.length === 0) throw validation({ scopes: ["can't be blank"] });
  if (input.scopes.some((s) => !PAT_SCOPES.includes(s))) throw validation({ scopes: ['can only contain available scopes'] });
  return issueToken(c, { userId, name: input.name, scopes: input.scopes, expiresAt, impersonation: true });
}

export async function getImpersonationToken(c: Container, actor: Actor, userId: number, id: number): Promise<PersonalAccessTokenRow> {
  requireAdmin(actor);
  await requireUser(c, userId);
  const token = await findPatById(c.db, id);
  if (!token || token.user_id !== userId || token.impersonation !== 1) throw notFound('Impersonation Token');
  return token;
}

export async function revokeImpersonationToken(c: Container, actor: Actor, userId: number, id: number): Promise<void> {
  const token = await getImpersonationToken(c, actor, userId, id);
  await revokePat(c.db, token.id);
}
