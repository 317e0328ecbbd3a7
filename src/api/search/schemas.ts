import { Type as T } from '@sinclair/typebox';
import { SEARCH_SCOPES } from '../../domain/search/service.js';
import { ProjectSimple } from '../projects/schemas.js';
import { OneOf } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

export const SearchParams = T.Object({
  scope: OneOf(SEARCH_SCOPES),
  search: T.String(),
});

/** One result: a project in the reference's BasicProjectDetails form (the list's simple form), or a UserBasic. */
export const SearchItem = T.Union([ProjectSimple, UserBasic]);
