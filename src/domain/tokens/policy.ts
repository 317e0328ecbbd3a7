// Who may do what with access tokens.
import type { PersonalAccessTokenRow } from '../../db/repos/tokens.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { ADMIN_ONLY_SCOPES, PAT_SCOPES } from './scopes.js';

/** An admin manages every token; anyone else only their own. */
export const canManageToken = (actor: Actor, token: PersonalAccessTokenRow): boolean =>
  isAdmin(actor) || token.user_id === actor.user.id;

/** Scopes the actor may put on a token for themselves. */
export const selfScopesFor = (actor: Actor): string[] =>
  isAdmin(actor) ? PAT_SCOPES : PAT_SCOPES.filter((s) => !ADMIN_ONLY_SCOPES.includes(s));
