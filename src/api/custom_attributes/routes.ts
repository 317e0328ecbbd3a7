import { Type as T } from '@sinclair/typebox';
import { deleteAttribute, getAttribute, listAttributes, setAttribute, type CustomAttributeKind } from '../../domain/custom_attributes/service.js';
import { route } from '../../http/route.js';
import { IdOrPath } from '../schemas.js';
import { CustomAttribute } from './schemas.js';

const TAG = 'custom_attributes';

/** The four endpoints for one kind of subject. Users are found by numeric id only, as the reference's users resource requires. */
function endpoints(kind: CustomAttributeKind, base: string, id: typeof IdOrPath | ReturnType<typeof T.Integer>) {
  const params = { id };
  const withKey = { id, key: T.String() };
  return [
    route({
      method: 'GET',
      path: `${base}/custom_attributes`,
      admin: true,
      tag: TAG,
      summary: `Custom attributes of a ${kind} (admin)`,
      params: T.Object(params),
      response: T.Array(CustomAttribute),
      handler: async ({ c, actor, input }) => listAttributes(c, actor, kind, input.id),
    }),
    route({
      method: 'GET',
      path: `${base}/custom_attributes/:key`,
      admin: true,
      tag: TAG,
      summary: `One custom attribute of a ${kind} (admin)`,
      params: T.Object(withKey),
      response: CustomAttribute,
      handler: async ({ c, actor, input }) => getAttribute(c, actor, kind, input.id, input.key),
    }),
    route({
      method: 'PUT',
      path: `${base}/custom_attributes/:key`,
      admin: true,
      tag: TAG,
      summary: `Set a custom attribute of a ${kind} (admin; creates or updates)`,
      params: T.Object({ ...withKey, value: T.String() }),
      response: CustomAttribute,
      handler: async ({ c, actor, input }) => setAttribute(c, actor, kind, input.id, input.key, input.value),
    }),
    route({
      method: 'DELETE',
      path: `${base}/custom_attributes/:key`,
      admin: true,
      tag: TAG,
      summary: `Delete a custom attribute of a ${kind} (admin)`,
      params: T.Object(withKey),
      status: 204,
      handler: async ({ c, actor, input, ifUnmodifiedSince }) => deleteAttribute(c, actor, kind, input.id, input.key, ifUnmodifiedSince),
    }),
  ];
}

export const customAttributeRoutes = [
  ...endpoints('user', '/users/:id(^\\d+$)', T.Integer()),
  ...endpoints('group', '/groups/:id', IdOrPath),
  ...endpoints('project', '/projects/:id', IdOrPath),
];
