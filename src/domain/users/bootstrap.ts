// First start on an empty database: the admin `root`, its namespace and its token.
import fs from 'node:fs';
import path from 'node:path';
import type { Container } from '../context.js';
import { insertPat } from '../../db/repos/tokens.js';
import { countUsers } from '../../db/repos/users.js';
import { digest, randomToken } from '../shared/secrets.js';
import { TOKEN_PREFIX } from '../tokens/service.js';
import { nowIso } from '../../shared/time.js';
import { createUserRecord } from './service.js';

export const ROOT_TOKEN_SCOPES = ['api', 'read_user', 'sudo', 'admin_mode'];

export interface BootstrapResult {
  created: boolean;
  /** Set only when a token was generated (not given by ANVIL_ROOT_TOKEN). */
  generatedToken: string | null;
  tokenFile: string | null;
}

export async function bootstrapRoot(c: Container): Promise<BootstrapResult> {
  if ((await countUsers(c.db)) > 0) return { created: false, generatedToken: null, tokenFile: null };
  const root = await createUserRecord(c, {
    username: 'root',
    name: 'Administrator',
    email: 'admin@example.com',
    password: c.config.rootPassword,
    admin: true,
    confirmed: true,
  });
  const token = c.config.rootToken ?? randomToken(TOKEN_PREFIX);
  await insertPat(c.db, {
    user_id: root.id,
    name: 'initial root token',
    token_digest: digest(token),
    scopes: JSON.stringify(ROOT_TOKEN_SCOPES),
    expires_at: null,
    created_at: nowIso(),
  });
  if (c.config.rootToken) return { created: true, generatedToken: null, tokenFile: null };
  const tokenFile = path.join(c.config.dataDir, 'initial_root_token');
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  return { created: true, generatedToken: token, tokenFile };
}
