import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { Starrer } from '../../domain/projects/stars.js';
import { presentUserBasic } from '../users/present.js';
import type { Starrer as StarrerSchema } from './stars_schemas.js';

export const presentStarrer = (c: Container, s: Starrer): Static<typeof StarrerSchema> => ({
  starred_since: s.starred_since,
  user: presentUserBasic(c, s),
});
