// Web sessions: the `_service_session` cookie the front end carries. The API honours it
// (domain/auth) but never hands one out; this is how one is made (sign-in, tests).
import type { Container } from '../context.js';
import { insertSession } from '../../db/repos/tokens.js';
import { digest, randomToken } from '../shared/secrets.js';
import { addSeconds, nowIso } from '../shared/time.js';

/** A week, as the reference's default session lifetime. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

/** Creates a session for the user; returns the cookie value (only its digest is stored). */
export async function createSession(c: Container, userId: number, ttlSeconds = SESSION_TTL_SECONDS): Promise<{ value: string; expiresAt: string }> {
  const value = randomToken('', 32);
  const now = nowIso();
  const expiresAt = addSeconds(now, ttlSeconds);
  await insertSession(c.db, { user_id: userId, session_digest: digest(value), expires_at: expiresAt, created_at: now });
  return { value, expiresAt };
}
