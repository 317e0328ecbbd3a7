import { Type as T } from '@sinclair/typebox';
import { IdOrPath, Nullable } from '../schemas.js';

/** The reference's Namespace entity (NamespaceBasic plus the member count for those who administer a group). */
export const Namespace = T.Object({
  id: T.Integer(),
  name: T.String(),
  path: T.String(),
  kind: T.String(),
  full_path: T.String(),
  parent_id: Nullable(T.Integer()),
  avatar_url: Nullable(T.String()),
  web_url: T.String(),
  members_count_with_descendants: T.Optional(T.Integer()),
});

export const ListNamespacesParams = {
  search: T.Optional(T.String()),
  owned_only: T.Optional(T.Boolean()),
};

export const NamespaceIdParam = { id: IdOrPath };

export const NamespaceExists = T.Object({ exists: T.Boolean(), suggests: T.Array(T.String()) });
