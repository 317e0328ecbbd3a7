// The CommitStatus resource (the reference's Entities::CommitStatus at the API level Anvil reports).
import { Type as T } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

export const CommitStatus = T.Object({
  id: T.Integer(),
  sha: T.String(),
  ref: T.String(),
  status: T.String(),
  name: T.String(),
  target_url: Nullable(T.String()),
  description: Nullable(T.String()),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  allow_failure: T.Boolean(),
  coverage: Nullable(T.Number()),
  author: Nullable(UserBasic),
});
