// Group and project access tokens, one way: each token belongs to a bot user made for it
// (`group_<id>_bot`, `project_<id>_bot`, numbered when taken), a member of the group or
// project with the token's role. Revoking the token removes the bot and so its membership.
import type { Container } from '../context.js';
import { deleteBotUsers } from '../../db/repos/groups.js';
import { insertMember, type SourceRef } from '../../db/repos/members.js';
import { findBotToken, pageBotTokens } from '../../db/repos/resource_tokens.js';
import type { PersonalAccessTokenRow } from '../../db/repos/tokens.js';
import { findUserByEmail, findUserByUsername } from '../../db/repos/users.js';
import type { Actor } from '../auth/actor.js';
import { badRequest, invalidParams, notFound } from '../errors.js';
import { ACCESS } from '../members/policy.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { isDate, nowIso, today } from '../../shared/time.js';
import { createUserRecord } from '../users/service.js';
import { issueToken } from './service.js';

/** Scopes a group or project bot token may carry (the reference's resource bot scopes). */
export const RESOURCE_BOT_SCOPES = ['api', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry'] as const;

export type ResourceTokenRow = PersonalAccessTokenRow & { access_level: number };

/** The group or project a token belongs to. */
export interface TokenResource {
  kind: 'group' | 'project';
  id: number;
}

const sourceOf = (r: TokenResource): SourceRef => ({ type: r.kind === 'group' ? 'Namespace' : 'Project', id: r.id });
const botKindOf = (r: TokenResource) => `${r.kind}_bot`;

export const pageResourceTokens = (c: Container, r: TokenResource, page: PageRequest): Promise<PageResult<ResourceTokenRow>> =>
  pageBotTokens(c.db, sourceOf(r), botKindOf(r), page);

/** The token, or 404 in the reference's words. */
export async function findResourceToken(c: Container, r: TokenResource, tokenId: number): Promise<ResourceTokenRow> {
  const token = await findBotToken(c.db, sourceOf(r), botKindOf(r), tokenId);
  if (!token) throw notFound(`Could not find ${r.kind} access token with token_id: ${tokenId}`);
  return token;
}

export interface CreateResourceTokenInput {
  name: string;
  scopes: string[];
  expires_at?: string;
  access_level: number;
}

/** The reference's uniquify: `base`, then `base1`, `base2`, … until free. */
async function firstFree(base: (n: string) => string, taken: (s: string) => Promise<boolean>): Promise<string> {
  for (let i = 0; ; i++) {
    const candidate = base(i === 0 ? '' : String(i));
    if (!(await taken(candidate))) return candidate;
  }
}

/** What the creator is to the group or project: their role, and whether they have owner_access (owners, admins). */
export interface CreatorAccess {
  level: number;
  owner: boolean;
}

/**
 * No token above its creator, as the reference's create service has it: an owner-level project
 * token only from an owner (manage_owners); otherwise the creator's own role bounds the token's,
 * except for owners and bots (a token's bot already holds no more than its own token's role).
 */
function ensureGrantable(actor: Actor, r: TokenResource, accessLevel: number, creator: CreatorAccess): void {
  if (r.kind === 'project' && accessLevel === ACCESS.OWNER && !creator.owner) throw badRequest('Could not provision owner access to project access token');
  if (actor.user.bot_kind !== null || creator.owner || creator.level >= accessLevel) return;
  throw badRequest("Access level of the token can't be greater the access level of the user who created the token");
}

/** Makes the bot user, its membership and its token. The caller has checked who may do this. */
export async function createResourceToken(
  c: Container,
  actor: Actor,
  r: TokenResource,
  input: CreateResourceTokenInput,
  creator: CreatorAccess,
): Promise<{ row: ResourceTokenRow; token: string }> {
  ensureGrantable(actor, r, input.access_level, creator);
  if (input.expires_at !== undefined && !isDate(input.expires_at)) throw invalidParams('expires_at is invalid');
  const expiresAt = input.expires_at ?? null;
  if (expiresAt !== null && expiresAt <= today()) throw badRequest('Expiration date must be in the future'); // a past date would make a dead token

  const host = new URL(c.config.externalUrl).hostname;
  const username = await firstFree((n) => `${r.kind}_${r.id}_bot${n}`, async (s) => !!(await findUserByUsername(c.db, s)));
  const email = await firstFree((n) => `${r.kind}${r.id}_bot${n}@noreply.${host}`, async (s) => !!(await findUserByEmail(c.db, s)));
  const bot = await createUserRecord(c, {
    username,
    name: input.name,
    email,
    bot: botKindOf(r),
    confirmed: true,
    canCreateGroup: false,
    projectsLimit: 0,
    createdById: actor.user.id,
  });
  const now = nowIso();
  const source = sourceOf(r);
  await insertMember(c.db, {
    source_type: source.type,
    source_id: source.id,
    user_id: bot.id,
    access_level: input.access_level,
    expires_at: expiresAt,
    created_by_id: actor.user.id,
    created_at: now,
    updated_at: now,
  });
  const { row, token } = await issueToken(c, { userId: bot.id, name: input.name, scopes: input.scopes, expiresAt });
  return { row: { ...row, access_level: input.access_level }, token };
}

/** Revoking removes the bot user outright (its tokens and membership go with it). */
export const revokeResourceToken = (c: Container, token: ResourceTokenRow) => deleteBotUsers(c.db, [token.user_id]);
