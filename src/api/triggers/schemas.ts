// The pipeline trigger (the reference's Entities::Trigger).
import { Type as T } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

export const Trigger = T.Object({
  id: T.Integer(),
  token: T.String(),
  description: Nullable(T.String()),
  created_at: T.String(),
  updated_at: T.String(),
  last_used: Nullable(T.String()),
  owner: Nullable(UserBasic),
});
