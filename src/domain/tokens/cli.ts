// Token creation for the command line (no actor: whoever runs the CLI owns the data dir).
import type { Container } from '../context.js';
import { findUserByUsername } from '../../db/repos/users.js';
import { isDate } from '../../shared/time.js';
import { PAT_SCOPES } from './scopes.js';
import { issueToken } from './service.js';

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
  const { token } = await issueToken(c, { userId: user.id, name: opts.name, scopes: opts.scopes, expiresAt: opts.expiresAt });
  return token;
}
