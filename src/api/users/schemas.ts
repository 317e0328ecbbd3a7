import { Type as T } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';

/** The reference's UserBasic: embedded in most other resources. */
export const UserBasic = T.Object({
  id: T.Integer(),
  username: T.String(),
  name: T.String(),
  state: T.String(),
  avatar_url: Nullable(T.String()),
  web_url: T.String(),
});
