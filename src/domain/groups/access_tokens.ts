// Group access tokens: the group's side (who may list, create and revoke them); the tokens and
// their bot users are made in domain/tokens/resource_tokens.ts, shared with project tokens.
import type { Container } from '../context.js';
import type { Actor } from '../auth/actor.js';
import { badRequest, unauthorized } from '../errors.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import {
  createResourceToken,
  findResourceToken,
  pageResourceTokens,
  revokeResourceToken,
  type CreateResourceTokenInput,
  type ResourceTokenRow,
} from '../tokens/resource_tokens.js';
import { findGroup } from './find.js';

const resource = (id: number) => ({ kind: 'group' as const, id });

/** Reading tokens needs the owner role; the reference answers others with 401. */
async function ownedGroup(c: Container, actor: Actor, idOrPath: number | string) {
  const g = await findGroup(c, actor, idOrPath);
  if (!g.access.canAdmin) throw unauthorized();
  return g.row;
}

export async function listGroupTokens(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<ResourceTokenRow>> {
  const group = await ownedGroup(c, actor, idOrPath);
  return pageResourceTokens(c, resource(group.id), page);
}

export async function getGroupToken(c: Container, actor: Actor, idOrPath: number | string, tokenId: number): Promise<ResourceTokenRow> {
  const group = await ownedGroup(c, actor, idOrPath);
  return findResourceToken(c, resource(group.id), tokenId);
}

export async function createGroupToken(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  input: CreateResourceTokenInput,
): Promise<{ row: ResourceTokenRow; token: string }> {
  const { row: group, access } = await findGroup(c, actor, idOrPath);
  if (!access.canAdmin) throw badRequest('User does not have permission to create group access token');
  return createResourceToken(c, actor, resource(group.id), input, { level: access.level, owner: access.canAdmin });
}

export async function revokeGroupToken(c: Container, actor: Actor, idOrPath: number | string, tokenId: number): Promise<void> {
  const { row: group, access } = await findGroup(c, actor, idOrPath);
  const token = await findResourceToken(c, resource(group.id), tokenId);
  if (!access.canAdmin) throw badRequest(`${actor.user.name} cannot delete ${token.name}`);
  await revokeResourceToken(c, token);
}
