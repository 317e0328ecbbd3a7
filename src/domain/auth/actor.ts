import { forbidden, unauthorized } from '../errors.js';
import type { UserRow } from '../../db/repos/users.js';

export type AuthVia = 'personal_access_token' | 'impersonation_token' | 'oauth' | 'session' | 'job_token' | 'ssh_key';

/** Who is acting: the effective user (after sudo) and what the credential allows. */
export interface Actor {
  user: UserRow;
  via: AuthVia;
  /** Token scopes; null when the credential is not scoped (a web session). */
  scopes: readonly string[] | null;
  tokenId: number | null;
  /** The admin who used sudo, when this request runs as someone else. */
  sudoer: UserRow | null;
  /** A CI job token: the running job it belongs to (the user is the job's user). */
  job?: { id: number; projectId: number };
  /**
   * An SSH deploy key (the user is the one who added it): its rights in a project are those of
   * its link to the project alone (src/domain/projects/policy.ts), never the user's.
   */
  deployKey?: { id: number };
  /**
   * An administrator whose credential is not in admin mode while the `admin_mode` setting is on
   * (a token without the `admin_mode` scope, a session that has not entered it): a normal user.
   */
  withoutAdminMode?: true;
}

/**
 * A user acting with their own rights and no credential to narrow them (no scopes, no sudo): a
 * web session, a password over git, and background work done for a user.
 */
export const actingAs = (user: UserRow): Actor => ({ user, via: 'session', scopes: null, tokenId: null, sudoer: null });

/** The one place an administrator's rights are decided (the reference's can_admin_all_resources?). */
export const isAdmin = (actor: Actor | null): boolean => !!actor && actor.user.admin === 1 && !actor.withoutAdminMode;

/** A blocked account (by an admin, by LDAP, or pending approval) may not sign in, and may do nothing. */
export const isBlocked = (user: UserRow): boolean => user.state === 'blocked' || user.state === 'ldap_blocked' || user.state === 'blocked_pending_approval';

/** The reference's `authenticated_as_admin!`: 401 for nobody, 403 for a non-admin. */
export function requireAdmin(actor: Actor | null): Actor {
  if (!actor) throw unauthorized();
  if (!isAdmin(actor)) throw forbidden();
  return actor;
}
