// Project access tokens: maintainers (the reference's admin_project) list, create and revoke
// them; the tokens and their `project_<id>_bot` users come from domain/tokens/resource_tokens.ts.
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
import { canAdminProject, isProjectOwner } from './policy.js';
import { findProject } from './find.js';

const resource = (id: number) => ({ kind: 'project' as const, id });

/** Reading tokens needs maintainer; the reference answers others with 401. */
async function maintainedProject(c: Container, actor: Actor, idOrPath: number | string) {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw unauthorized();
  return row;
}

export async function listProjectTokens(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<ResourceTokenRow>> {
  const project = await maintainedProject(c, actor, idOrPath);
  return pageResourceTokens(c, resource(project.id), page);
}

export async function getProjectToken(c: Container, actor: Actor, idOrPath: number | string, tokenId: number): Promise<ResourceTokenRow> {
  const project = await maintainedProject(c, actor, idOrPath);
  return findResourceToken(c, resource(project.id), tokenId);
}

export async function createProjectToken(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  input: CreateResourceTokenInput,
): Promise<{ row: ResourceTokenRow; token: string }> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw badRequest('User does not have permission to create project access token');
  return createResourceToken(c, actor, resource(row.id), input, { level: access.level, owner: isProjectOwner(access) });
}

export async function revokeProjectToken(c: Container, actor: Actor, idOrPath: number | string, tokenId: number): Promise<void> {
  const { row, access } = await findProject(c, actor, idOrPath);
  const token = await findResourceToken(c, resource(row.id), tokenId);
  if (!canAdminProject(access)) throw badRequest(`${actor.user.name} cannot delete ${token.name}`);
  await revokeResourceToken(c, token);
}
