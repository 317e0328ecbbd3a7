// Issuing access tokens of every kind (personal, impersonation, project and group bot tokens):
// one place that generates the secret, stores only its digest, and returns it once.
import type { Container } from '../../container.js';
import { insertPat, type PersonalAccessTokenRow } from '../../db/repos/tokens.js';
import { digest, randomToken } from '../shared/secrets.js';
import { nowIso } from '../shared/time.js';

export const TOKEN_PREFIX = 'anvil-';

export interface IssueTokenInput {
  userId: number;
  name: string;
  scopes: string[];
  expiresAt: string | null; // YYYY-MM-DD
  impersonation?: boolean;
}

/** Returns the stored row and the clear token; the clear token exists only in this return value. */
export async function issueToken(c: Container, input: IssueTokenInput): Promise<{ row: PersonalAccessTokenRow; token: string }> {
  const token = randomToken(TOKEN_PREFIX);
  const row = await insertPat(c.db, {
    user_id: input.userId,
    name: input.name,
    token_digest: digest(token),
    scopes: JSON.stringify(input.scopes),
    impersonation: input.impersonation ? 1 : 0,
    expires_at: input.expiresAt,
    created_at: nowIso(),
  });
  return { row, token };
}
