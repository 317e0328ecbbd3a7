// Who may see and change users, as the reference's user policy has it.
import type { UserRow } from '../../db/repos/users.js';
import { isAdmin, type Actor } from '../auth/actor.js';

/** Anyone (even anonymous) sees a public profile's details; a private one only its owner and admins. */
export const canReadProfile = (actor: Actor | null, user: UserRow): boolean =>
  user.private_profile !== 1 || isAdmin(actor) || actor?.user.id === user.id;

/**
 * Listing users needs a signed-in caller; an anonymous one may only look a username up
 * (which finds at most one user).
 */
export const canListUsers = (actor: Actor | null, username: string | undefined): boolean =>
  actor !== null || (username !== undefined && username !== '');

/** Blocked in any way: such a user must be unblocked before being activated. */
export const isBlockedState = (state: string): boolean => state === 'blocked' || state === 'ldap_blocked';

/** Days without activity after which an admin may deactivate a user. */
export const MINIMUM_INACTIVE_DAYS = 90;

/** A user seen or signed in within MINIMUM_INACTIVE_DAYS cannot be deactivated. */
export function recentlyActive(user: UserRow, now: Date): boolean {
  const seen = [user.last_activity_on, user.current_sign_in_at].filter((v): v is string => !!v).map((v) => Date.parse(v));
  if (seen.length === 0) return false;
  return Math.max(...seen) > now.getTime() - MINIMUM_INACTIVE_DAYS * 86_400_000;
}
