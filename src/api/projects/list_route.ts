// A list of projects found under one id (a group's projects, the projects shared with a group, a
// project's forks): the projects list's filters, paging (keyset by id too) and shape.
import { Type as T, type TProperties } from '@sinclair/typebox';
import type { Actor } from '../../domain/auth/actor.js';
import type { Container } from '../../domain/context.js';
import type { ListProjectsInput, ProjectView } from '../../domain/projects/service.js';
import { mapPage, type PageRequest, type PageResult } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentProject } from './present.js';
import { keysetById, LIST_PARAMS, ProjectAny } from './schemas.js';

type ListUnder = (c: Container, actor: Actor | null, id: number | string, input: ListProjectsInput, page: PageRequest) => Promise<PageResult<ProjectView>>;

export const projectListRoute = (path: string, summary: string, list: ListUnder, extraParams: TProperties = {}) =>
  route({
    method: 'GET',
    path,
    tag: 'projects',
    summary,
    auth: 'optional',
    params: T.Object({ id: IdOrPath, ...extraParams, ...LIST_PARAMS }),
    response: ProjectAny,
    paginated: true,
    keyset: keysetById,
    handler: async ({ c, actor, input, page }) => {
      const { id, ...rest } = input as { id: number | string } & Record<string, unknown>;
      return mapPage(await list(c, actor, id, rest as unknown as ListProjectsInput, page), (v) => presentProject(c, v));
    },
  });
