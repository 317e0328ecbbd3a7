// Registration tokens of projects and groups (`runners_token`): secrets like the others. A new
// one is random (the reference's `GR1348941` prefix); it is stored encrypted with the instance
// key, found by its SHA-256 digest, and shown only to those who manage the project's or group's
// runners. Values written before they were encrypted are sealed when the server starts.
import type { Container } from '../context.js';
import { plainRunnersTokens, sealRunnersToken, type StoredRegistrationToken } from '../../db/repos/runners.js';
import { decryptSecret, encryptSecret } from '../shared/encryption.js';
import { digest, randomToken } from '../shared/secrets.js';

export const REGISTRATION_TOKEN_PREFIX = 'GR1348941';

/** The stored form of a registration token. */
export const storedRegistrationToken = (c: Container, token: string): StoredRegistrationToken => ({
  runners_token: encryptSecret(c.config.secretKey, token),
  runners_token_digest: digest(token),
});

/** A new registration token: the value to show, and the columns to store. */
export function newRegistrationToken(c: Container): { token: string; stored: StoredRegistrationToken } {
  const token = randomToken(REGISTRATION_TOKEN_PREFIX);
  return { token, stored: storedRegistrationToken(c, token) };
}

/** The token of a stored value (a value not yet sealed is the token itself); null for none or one the key cannot open. */
export function openRegistrationToken(c: Container, stored: string | null): string | null {
  if (!stored) return null;
  if (!stored.startsWith('v1:')) return stored;
  try {
    return decryptSecret(c.config.secretKey, stored);
  } catch {
    return null;
  }
}

/** Encrypts the registration tokens still stored plain (once, at start; a no-op afterwards). */
export async function sealPlainRegistrationTokens(c: Container): Promise<number> {
  let sealed = 0;
  for (const table of ['projects', 'namespaces'] as const) {
    for (;;) {
      const rows = await plainRunnersTokens(c.db, table, 500);
      for (const r of rows) await sealRunnersToken(c.db, table, r.id, r.runners_token, storedRegistrationToken(c, r.runners_token));
      sealed += rows.length;
      if (rows.length < 500) break;
    }
  }
  return sealed;
}
