// Protected branches: list, get, protect, update the code-owner option, unprotect (maintainers and up).
import { Type as T } from '@sinclair/typebox';
import {
  getProtectedBranch,
  listProtectedBranches,
  protectBranch,
  unprotectBranch,
  updateProtectedBranchOptions,
} from '../../domain/protected_branches/service.js';
import { mapPage } from '../../shared/page.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { presentProtectedBranch } from './present.js';
import { AccessRequest, Level, ProtectedBranch } from './schemas.js';

const TAG = 'protected_branches';

export const protectedBranchRoutes = [
  route({
    method: 'GET',
    path: '/projects/:id/protected_branches',
    tag: TAG,
    summary: "A project's protected branches (search: part of the name)",
    params: T.Object({ id: IdOrPath, search: T.Optional(T.String()) }),
    response: ProtectedBranch,
    paginated: true,
    handler: async ({ c, actor, input, page }) => mapPage(await listProtectedBranches(c, actor, input.id, input.search, page), presentProtectedBranch),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/protected_branches/:name',
    tag: TAG,
    summary: 'One protected branch or wildcard, by its name',
    params: T.Object({ id: IdOrPath, name: T.String() }),
    response: ProtectedBranch,
    handler: async ({ c, actor, input }) => presentProtectedBranch(await getProtectedBranch(c, actor, input.id, input.name)),
  }),
  route({
    method: 'POST',
    path: '/projects/:id/protected_branches',
    tag: TAG,
    summary: 'Protect a branch or wildcard',
    params: T.Object({
      id: IdOrPath,
      name: T.String(),
      push_access_level: T.Optional(Level),
      merge_access_level: T.Optional(Level),
      unprotect_access_level: T.Optional(Level),
      allow_force_push: T.Optional(T.Boolean()),
      code_owner_approval_required: T.Optional(T.Boolean()),
      allowed_to_push: T.Optional(T.Array(AccessRequest)),
      allowed_to_merge: T.Optional(T.Array(AccessRequest)),
      allowed_to_unprotect: T.Optional(T.Array(AccessRequest)),
    }),
    response: ProtectedBranch,
    handler: async ({ c, actor, input }) => {
      const { id, ...rest } = input;
      return presentProtectedBranch(await protectBranch(c, actor, id, rest));
    },
  }),
  route({
    method: 'PATCH',
    path: '/projects/:id/protected_branches/:name',
    tag: TAG,
    summary: 'Update the code-owner approval option of a protected branch',
    params: T.Object({ id: IdOrPath, name: T.String(), code_owner_approval_required: T.Optional(T.Boolean()) }),
    response: ProtectedBranch,
    handler: async ({ c, actor, input }) =>
      presentProtectedBranch(await updateProtectedBranchOptions(c, actor, input.id, input.name, { code_owner_approval_required: input.code_owner_approval_required })),
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/protected_branches/:name',
    tag: TAG,
    summary: 'Unprotect a branch or wildcard',
    params: T.Object({ id: IdOrPath, name: T.String() }),
    status: 204,
    handler: async ({ c, actor, input, ifUnmodifiedSince }) => unprotectBranch(c, actor, input.id, input.name, ifUnmodifiedSince),
  }),
];
