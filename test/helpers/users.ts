// Users-area test helpers: the exact key sets of the reference's user entities, and bulk seeding.
import { seedUsers } from '../../src/db/repos/users.js';
import { nowIso } from '../../src/shared/time.js';
import type { TestApp } from './build.js';
import { USER_BASIC_KEYS } from './keys.js';

const sorted = (...lists: string[][]): string[] => lists.flat().sort();

const BASIC = USER_BASIC_KEYS;
const PROFILE = [
  'bio', 'location', 'public_email', 'skype', 'linkedin', 'twitter', 'website_url', 'organization', 'job_title',
  'pronouns', 'bot', 'work_information', 'local_time',
];
const PROFILE_DETAILS = ['created_at', 'followers', 'following'];
const PUBLIC = [
  'last_sign_in_at', 'confirmed_at', 'last_activity_on', 'email', 'theme_id', 'color_scheme_id', 'projects_limit',
  'current_sign_in_at', 'identities', 'can_create_group', 'can_create_project', 'two_factor_enabled', 'external',
  'private_profile', 'commit_email',
];
const ADMIN = ['is_admin', 'note', 'namespace_id'];
const DETAILS = ['highest_role', 'current_sign_in_ip', 'last_sign_in_ip', 'sign_in_count'];

export const KEYS = {
  /** UserBasic: lists for non-admins and anonymous callers. */
  basic: sorted(BASIC),
  /** User, private profile seen by someone else. */
  profileHidden: sorted(BASIC, PROFILE),
  /** User, public profile seen anonymously (no is_followed without a viewer). */
  profileAnonymous: sorted(BASIC, PROFILE, PROFILE_DETAILS),
  /** User, public profile seen by a signed-in non-admin. */
  profile: sorted(BASIC, PROFILE, PROFILE_DETAILS, ['is_followed']),
  /** UserPublic: GET /user for a non-admin. */
  self: sorted(BASIC, PROFILE, PROFILE_DETAILS, ['is_followed'], PUBLIC),
  /** UserWithAdmin: GET /user for admins, admin lists, create and update. */
  admin: sorted(BASIC, PROFILE, PROFILE_DETAILS, ['is_followed'], PUBLIC, ADMIN),
  /** UserDetailsWithAdmin: GET /users/:id for admins. */
  adminDetails: sorted(BASIC, PROFILE, PROFILE_DETAILS, ['is_followed'], PUBLIC, ADMIN, DETAILS),
};

/** Inserts `count` users `<prefix>1..<prefix>count` in one statement. */
export async function seedManyUsers(t: TestApp, count: number, prefix: string): Promise<void> {
  await seedUsers(t.c.db, count, prefix, nowIso());
}

/** Splits a Link header into rel → URL. */
export function links(header: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of String(header ?? '').split(/,\s*/)) {
    const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part.trim());
    if (m) out[m[2]] = m[1];
  }
  return out;
}
