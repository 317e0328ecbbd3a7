// Protected tags: list, get, protect, unprotect (maintainers and up).
import { Type as T } from '@sinclair/typebox';
import { getProtectedTag, listProtectedTags, protectTag, unprotectTag } from '../../domain/protected_tags/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { AccessRequest, Level } from '../protected_branches/schemas.js';
import { IdOrPath } from '../schemas.js';
import { presentProtectedTag } from './present.js';
import { ProtectedTag } from './schemas.js';

const TAG = 'protected_tags';

export const protectedTagRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/protected_tags',
    tag: TAG,
    summary: "A project's protected tags",
    params: T.Object({ id: IdOrPath }),
    response: ProtectedTag,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listProtectedTags(c, actor, input.id, page), presentProtectedTag),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/protected_tags/:name',
    tag: TAG,
    summary: 'One protected tag or wildcard, by its name',
    params: T.Object({ id: IdOrPath, name: T.String() }),
    response: ProtectedTag,
    handler: async ({ c, actor, input }) => presentProtectedTag(await getProtectedTag(c, actor, input.id, input.name)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/protected_tags',
    tag: TAG,
    summary: 'Protect a tag or wildcard',
    params: T.Object({
      id: IdOrPath,
      name: T.String(),
      create_access_level: T.Optional(Level),
      allowed_to_create: T.Optional(T.Array(AccessRequest)),
    }),
    response: ProtectedTag,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentProtectedTag(await protectTag(c, actor, id, rest));
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/protected_tags/:name',
    tag: TAG,
    summary: 'Unprotect a tag or wildcard',
    params: T.Object({ id: IdOrPath, name: T.String() }),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => unprotectTag(c, actor, input.id, input.name, ifUnmodifiedSince),
  }),
];
