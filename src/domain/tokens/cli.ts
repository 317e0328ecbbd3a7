// Token creation for the command line (no actor: whoever runs the CLI owns the data dir).
import type { Container } from '../../container.js';
import { insertPat } from '../../db/repos/tokens.js';
import { findUserByUsername } from '../../db/repos/users.js';
import { TOKEN_PREFIX } from '../users/bootstrap.js';
import { digest, randomToken } from '../shared/secrets.js';
import { isDate, nowIso } from '../shared/time.js';
import { PAT_SCOPES } from './scopes.js';

export async function createTokenForUsername(
  c: Container,
  username: string,
  opts: { name: string; scopes: string[]; expiresAt: string | null },
): Promise<string> {
  const user = await findUserByUsername(c.db, username);
  if (!user) throw new Error(`no user named "${username}"`);
  const bad = opts.scopes.filter((s) => !PAT_SCOPES.includes(s));
  if (bad.length || opts.scopes.length === 0) throw new Error(`scopes must be some of ${PAT_SCOPES.join(', ')}`);
  if (opts.expiresAt !== null && !isDate(opts.expiresAt)) throw new Error('--expires-at must be YYYY-MM-DD');
  const token = randomToken(TOKEN_PREFIX);
  await insertPat(c.db, {
    user_id: user.id,
    name: opts.name,
    token_digest: digest(token),
    scopes: JSON.stringify(opts.scopes),
    expires_at: opts.expiresAt,
    created_at: nowIso(),
  });
  return token;
}
