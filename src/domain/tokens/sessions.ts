// Web sessions: the `_service_session` cookie the web interface carries. The API honours it
// (domain/auth); the web sign-in form makes one, sign-out removes it.
import crypto from 'node:crypto';
import type { Container } from '../context.js';
import { deleteSessionByDigest, findSessionByDigest, insertSession, setSessionAdminMode } from '../../db/repos/tokens.js';
import { findUserById } from '../../db/repos/users.js';
import { userByPassword } from '../auth/password.js';
import { digest, randomToken } from '../shared/secrets.js';
import { addSeconds, nowIso } from '../../shared/time.js';

/** A week, as the reference's default session lifetime. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

export interface NewSession {
  value: string;
  expiresAt: string;
}

/** Creates a session for the user; returns the cookie value (only its digest is stored). */
export async function createSession(c: Container, userId: number, ttlSeconds = SESSION_TTL_SECONDS): Promise<NewSession> {
  const value = randomToken('', 32);
  const now = nowIso();
  const expiresAt = addSeconds(now, ttlSeconds);
  await insertSession(c.db, { user_id: userId, session_digest: digest(value), expires_at: expiresAt, created_at: now });
  return { value, expiresAt };
}

/** The sign-in form: a session for the username (or e-mail) and password, or null. */
export async function signIn(c: Container, login: string, password: string): Promise<NewSession | null> {
  const user = await userByPassword(c, login, password);
  return user ? createSession(c, user.id) : null;
}

/** How long an administrator's session stays in admin mode once entered (the reference's six hours). */
export const ADMIN_MODE_SECONDS = 6 * 3600;

/**
 * Enters admin mode for a session: its user must be an administrator and give their password
 * again. False when either fails (the session stays as it was).
 */
export async function enterAdminMode(c: Container, sessionValue: string, password: string): Promise<boolean> {
  const s = await findSessionByDigest(c.db, digest(sessionValue));
  if (!s || s.expires_at <= nowIso()) return false;
  const user = await findUserById(c.db, s.user_id);
  if (!user || user.admin !== 1 || !(await userByPassword(c, user.username, password))) return false;
  await setSessionAdminMode(c.db, s.session_digest, addSeconds(nowIso(), ADMIN_MODE_SECONDS));
  return true;
}

export async function leaveAdminMode(c: Container, sessionValue: string): Promise<void> {
  await setSessionAdminMode(c.db, digest(sessionValue), null);
}

export async function signOut(c: Container, sessionValue: string): Promise<void> {
  await deleteSessionByDigest(c.db, digest(sessionValue));
}

/**
 * The CSRF token of a session: an HMAC of the cookie value under the instance's secret key, so it
 * needs no storage, is the same on every node, and dies with the session. A write made with the
 * cookie (a form, or the API from a page) must carry it; a cross-site page cannot read it.
 */
export function csrfTokenOf(c: Container, sessionValue: string): string {
  return crypto.createHmac('sha256', c.config.secretKey).update(`csrf:${sessionValue}`).digest('base64url');
}

export function csrfTokenMatches(c: Container, sessionValue: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const want = Buffer.from(csrfTokenOf(c, sessionValue));
  const got = Buffer.from(given);
  return got.length === want.length && crypto.timingSafeEqual(got, want);
}
