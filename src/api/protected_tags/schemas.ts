// The Protected tag resource (the reference's Entities::ProtectedTag with ProtectedRefAccess entries).
import { Type as T } from '@sinclair/typebox';
import { AccessEntry } from '../protected_branches/schemas.js';

export const ProtectedTag = T.Object({
  name: T.String(),
  create_access_levels: T.Array(AccessEntry),
});
