// The Starrer resource (spec "Starrer"): when the user starred the project, and the user.
import { Type as T } from '@sinclair/typebox';
import { Timestamp } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

export const Starrer = T.Object({ starred_since: Timestamp, user: UserBasic });
