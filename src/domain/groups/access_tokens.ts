// Group access tokens: each token belongs to a bot user made for it, a member of the group with
// the token's role. Revoking the token removes the bot (and so its membership), as the reference does.
import type { Container } from '../../container.js';
import { deleteBotUsers, findGroupBotToken, pageGroupBotTokens } from '../../db/repos/groups.js';
import { insertMember } from '../../db/repos/members.js';
import { findUserByEmail, findUserByUsername } from '../../db/repos/users.js';
import type { PersonalAccessTokenRow } from '../../db/repos/tokens.js';
import type { Actor } from '../auth/actor.js';
import { badRequest, invalidParams, notFound, unauthorized } from '../errors.js';
import type { PageRequest, PageResult } from '../shared/page.js';
import { isDate, nowIso, today } from '../shared/time.js';
import { issueToken } from '../tokens/service.js';
import { createUserRecord } from '../users/service.js';
import { findGroup } from './service.js';

/** Scopes a group or project bot token may carry (the reference's resource bot scopes). */
export const RESOURCE_BOT_SCOPES = ['api', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry'] as const;

export type GroupTokenRow = PersonalAccessTokenRow & { access_level: number };

const tokenNotFound = (id: number) => notFound(`Could not find group access token with token_id: ${id}`);

/** Reading tokens needs the owner role; the reference answers others with 401. */
async function ownedGroup(c: Container, actor: Actor, idOrPath: number | string) {
  const g = await findGroup(c, actor, idOrPath);
  if (!g.access.canAdmin) throw unauthorized();
  return g.row;
}

export async function listGroupTokens(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<GroupTokenRow>> {
  const group = await ownedGroup(c, actor, idOrPath);
  return pageGroupBotTokens(c.db, group.id, page);
}

export async function getGroupToken(c: Container, actor: Actor, idOrPath: number | string, tokenId: number): Promise<GroupTokenRow> {
  const group = await ownedGroup(c, actor, idOrPath);
  const token = await findGroupBotToken(c.db, group.id, tokenId);
  if (!token) throw tokenNotFound(tokenId);
  return token;
}

export interface CreateGroupTokenInput {
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

export async function createGroupToken(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  input: CreateGroupTokenInput,
): Promise<{ row: GroupTokenRow; token: string }> {
  const { row: group, access } = await findGroup(c, actor, idOrPath);
  if (!access.canAdmin) throw badRequest('User does not have permission to create group access token');
  if (input.expires_at !== undefined && !isDate(input.expires_at)) throw invalidParams('expires_at is invalid');
  const expiresAt = input.expires_at ?? null;
  if (expiresAt !== null && expiresAt <= today()) throw badRequest('Expiration date must be in the future'); // a past date would make a dead token

  const host = new URL(c.config.externalUrl).hostname;
  const username = await firstFree((n) => `group_${group.id}_bot${n}`, async (s) => !!(await findUserByUsername(c.db, s)));
  const email = await firstFree((n) => `group${group.id}_bot${n}@noreply.${host}`, async (s) => !!(await findUserByEmail(c.db, s)));
  const bot = await createUserRecord(c, { username, name: input.name, email, bot: 'group_bot', confirmed: true, canCreateGroup: false, projectsLimit: 0, createdById: actor.user.id });
  const now = nowIso();
  await insertMember(c.db, {
    source_type: 'Namespace',
    source_id: group.id,
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

export async function revokeGroupToken(c: Container, actor: Actor, idOrPath: number | string, tokenId: number): Promise<void> {
  const { row: group, access } = await findGroup(c, actor, idOrPath);
  const token = await findGroupBotToken(c.db, group.id, tokenId);
  if (!token) throw tokenNotFound(tokenId);
  if (!access.canAdmin) throw badRequest(`${actor.user.name} cannot delete ${token.name}`);
  await deleteBotUsers(c.db, [token.user_id]);
}

