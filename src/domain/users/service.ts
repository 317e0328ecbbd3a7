// Users: one function per operation. Rules here; SQL in db/repos.
import type { Container } from '../../container.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { findNamespaceByFullPath } from '../../db/repos/namespaces.js';
import { findUserByEmail, findUserByUsername, insertUserWithNamespace, type NewUser, type UserRow } from '../../db/repos/users.js';
import { validation } from '../errors.js';
import { hashPassword } from '../shared/secrets.js';
import { nowIso } from '../shared/time.js';

export interface NewUserInput {
  username: string;
  name: string;
  email: string;
  password?: string | null;
  admin?: boolean;
  external?: boolean;
  bot?: string | null; // project_bot | group_bot
  confirmed?: boolean;
  projectsLimit?: number;
  canCreateGroup?: boolean;
  createdById?: number | null;
  extra?: Partial<Pick<NewUser, 'bio' | 'location' | 'public_email' | 'skype' | 'linkedin' | 'twitter' | 'website_url' | 'organization' | 'job_title' | 'pronouns' | 'note' | 'private_profile' | 'theme_id' | 'color_scheme_id' | 'commit_email'>>;
}

export const USERNAME_RE = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;

/** Creates the user and its personal namespace together; uniqueness errors come back as validation bodies. */
export async function createUserRecord(c: Container, input: NewUserInput): Promise<UserRow> {
  const errors: Record<string, string[]> = {};
  if (await findUserByUsername(c.db, input.username)) errors.username = ['has already been taken'];
  else if (await findNamespaceByFullPath(c.db, input.username)) errors.username = ['has already been taken'];
  if (await findUserByEmail(c.db, input.email)) errors.email = ['has already been taken'];
  if (Object.keys(errors).length) throw validation(errors);

  const now = nowIso();
  try {
    return await insertUserWithNamespace(
      c.db,
      {
        username: input.username,
        username_lower: input.username.toLowerCase(),
        name: input.name,
        email: input.email,
        email_lower: input.email.toLowerCase(),
        password_digest: input.password ? hashPassword(input.password) : null,
        state: 'active',
        admin: input.admin ? 1 : 0,
        external: input.external ? 1 : 0,
        bot: input.bot ? 1 : 0,
        bot_kind: input.bot ?? null,
        projects_limit: input.projectsLimit ?? 100000,
        can_create_group: input.canCreateGroup === false ? 0 : 1,
        created_by_id: input.createdById ?? null,
        created_at: now,
        updated_at: now,
        confirmed_at: input.confirmed ? now : null,
        ...input.extra,
      },
      { visibility_level: 20 },
    );
  } catch (err) {
    // A concurrent request took the name between the check and the insert.
    if (isUniqueViolation(err)) throw validation({ username: ['has already been taken'] });
    throw err;
  }
}
