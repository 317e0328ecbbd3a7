// The web session a sign-up opens, as the cookie the API already honours.
import type { Container } from '../../domain/context.js';
import { SESSION_COOKIE } from '../../http/auth.js';

export function sessionCookie(c: Container, session: { value: string; expiresAt: string }): string {
  const secure = c.config.externalUrl.startsWith('https:') ? '; Secure' : '';
  const expires = new Date(session.expiresAt).toUTCString();
  return `${SESSION_COOKIE}=${encodeURIComponent(session.value)}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${secure}`;
}
