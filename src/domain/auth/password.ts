// Signing in with a password: the one check behind the OAuth password grant and the web sign-in form.
import type { Container } from '../context.js';
import { findUserByEmail, findUserByUsername, type UserRow } from '../../db/repos/users.js';
import { inTransaction } from '../../db/transaction.js';
import { userSystemEvent } from '../hooks/events.js';
import { verifyPassword } from '../shared/secrets.js';
import { getSettings } from '../settings/service.js';

/**
 * The active user whose username (or e-mail address) and password these are; null otherwise, and
 * always null while `password_authentication_enabled_for_web` is off (the reference then finds no
 * user for any credentials).
 */
export async function userByPassword(c: Container, login: string, password: string): Promise<UserRow | null> {
  if (!(await getSettings(c)).password_authentication_enabled_for_web) return null;
  const user = (await findUserByUsername(c.db, login)) ?? (login.includes('@') ? await findUserByEmail(c.db, login) : undefined);
  if (user?.state === 'active' && (await verifyPassword(password, user.password_digest))) return user;
  // The reference tells system hooks when a blocked user tries to sign in.
  if (user?.state === 'blocked') await inTransaction(c.db, (tx) => userSystemEvent(c, tx, 'user_failed_login', user));
  return null;
}
