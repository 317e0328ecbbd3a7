import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { TriggerView } from '../../domain/ci/triggers.js';
import { presentUserBasic } from '../users/present.js';
import type { Trigger } from './schemas.js';

export const presentTrigger = (c: Container, v: TriggerView): Static<typeof Trigger> => ({
  id: v.row.id,
  token: v.token,
  description: v.row.description,
  created_at: v.row.created_at,
  updated_at: v.row.updated_at,
  last_used: v.row.last_used,
  owner: v.owner ? presentUserBasic(c, v.owner) : null,
});
