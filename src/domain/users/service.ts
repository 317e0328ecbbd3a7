// Users: one function per operation. Rules here; SQL in db/repos.
import { dateTimeParam } from '../shared/params.js';
import type { Updateable } from 'kysely';
import type { Container } from '../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { findNamespaceByFullPath } from '../../db/repos/namespaces.js';
import type { UsersTable } from '../../db/schema.js';
import {
  deleteUser as deleteUserRow,
  findUserByEmail,
  findUserById,
  findUserByUsername,
  highestAccessLevel,
  insertUserWithNamespace,
  pageUsers,
  updateUser as updateUserRow,
  updateUserWithNamespace,
  type NewUser,
  type UserFilters,
  type UserOrderBy,
  type UserRow,
} from '../../db/repos/users.js';
import { isAdmin, requireAdmin, type Actor } from '../auth/actor.js';
import { conflict, forbidden, invalidParams, notFound, unauthorized, validation } from '../errors.js';
import { type PageRequest, type PageResult } from '../../shared/page.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { hashPassword, randomToken } from '../shared/secrets.js';
import { nowIso } from '../../shared/time.js';
import { inTransaction } from '../../db/transaction.js';
import { userSystemEvent } from '../hooks/events.js';
import { getSettings } from '../settings/service.js';
import { emailDomainError } from './signup_restrictions.js';
import { customAttributeFilter, withCustomAttributes, type CustomAttributeView } from '../custom_attributes/lists.js';
import { canListUsers, canReadProfile, isBlockedState, MINIMUM_INACTIVE_DAYS, recentlyActive } from './policy.js';
import { nowDate } from '../../shared/clock.js';

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
  /** Default `active`; a sign-up awaiting approval starts `blocked_pending_approval`. */
  state?: 'active' | 'blocked_pending_approval';
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
  // An external user may create neither personal projects nor groups (the reference's User model sets both).
  const projectsLimit = input.external ? 0 : (input.projectsLimit ?? (await getSettings(c)).default_projects_limit);
  const passwordDigest = input.password ? await hashPassword(input.password) : null; // before the transaction: it takes a while
  try {
    return await inTransaction(c.db, async (tx) => {
      const user = await insertUserWithNamespace(
        tx,
        {
          username: input.username,
          username_lower: input.username.toLowerCase(),
          name: input.name,
          email: input.email,
          email_lower: input.email.toLowerCase(),
          password_digest: passwordDigest,
          state: input.state ?? 'active',
          admin: input.admin ? 1 : 0,
          external: input.external ? 1 : 0,
          bot: input.bot ? 1 : 0,
          bot_kind: input.bot ?? null,
          projects_limit: projectsLimit,
          can_create_group: input.canCreateGroup === false || input.external ? 0 : 1,
          created_by_id: input.createdById ?? null,
          created_at: now,
          updated_at: now,
          confirmed_at: input.confirmed ? now : null,
          ...input.extra,
        },
        { visibility_level: 20 },
      );
      await userSystemEvent(c, tx, 'user_create', user);
      return user;
    });
  } catch (err) {
    // A concurrent request took the name between the check and the insert.
    if (isUniqueViolation(err)) throw validation({ username: ['has already been taken'] });
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// The users API

/**
 * Which of the reference's user entities a caller gets: `basic` (UserBasic), `profile` (User),
 * `self` (UserPublic), `admin` (UserWithAdmin), `admin_details` (UserDetailsWithAdmin).
 */
export type UserForm = 'basic' | 'profile' | 'self' | 'admin' | 'admin_details';

export interface UserView {
  user: UserRow;
  form: UserForm;
  /** created_at, followers and following are shown (public profile, its owner, or an admin). */
  profileVisible: boolean;
  /** is_followed is shown only to a signed-in viewer who may see the profile. */
  viewerSignedIn: boolean;
  /** Only for `admin_details`. */
  highestRole: number;
  /** Present when an admin asked `with_custom_attributes`. */
  customAttributes?: CustomAttributeView[];
}

const view = (user: UserRow, form: UserForm, actor: Actor | null, highestRole = 0): UserView => ({
  user,
  form,
  profileVisible: canReadProfile(actor, user),
  viewerSignedIn: actor !== null,
  highestRole,
});

async function findUserOr404(c: Container, id: number): Promise<UserRow> {
  const user = await findUserById(c.db, id);
  if (!user) throw notFound('User');
  return user;
}

/** GET /user: the caller in full; an admin also sees the admin fields. */
export function currentUser(_c: Container, actor: Actor): UserView {
  return view(actor.user, isAdmin(actor) ? 'admin' : 'self', actor);
}

export interface ListUsersInput {
  username?: string;
  externUid?: string;
  provider?: string;
  search?: string;
  active?: boolean;
  blocked?: boolean;
  external?: boolean;
  excludeExternal?: boolean;
  excludeInternal?: boolean;
  withoutProjectBots?: boolean;
  admins?: boolean;
  createdAfter?: string;
  createdBefore?: string;
  orderBy?: UserOrderBy;
  sort?: 'asc' | 'desc';
  customAttributes?: Record<string, unknown>;
  withCustomAttributes?: boolean;
  /** The reference's `use_minimum_char_limit`: true (the API) matches parts of names only for words
   * of 3+ characters; false (the web's user picker) for words of any length. */
  minimumCharLimit?: boolean;
}

/** Splits a search as the reference's fuzzy matching does: words of 3+ characters (any length
 * without the limit), or the whole query. */
function searchTerms(raw: string, minimumCharLimit = true): { whole: string; words: string[] } | null {
  const whole = raw.replace(/^@/, '').trim().replace(/\s+/g, ' ').toLowerCase();
  if (whole === '') return null;
  const min = minimumCharLimit ? 3 : 1;
  const words = [...whole.matchAll(/"([^"]+)"|(\S+)/g)].map((m) => m[1] ?? m[2]).filter((w) => w.length >= min);
  return { whole, words };
}

/** GET /users */
export async function listUsers(c: Container, actor: Actor | null, input: ListUsersInput, page: PageRequest): Promise<PageResult<UserView>> {
  if ((input.externUid === undefined) !== (input.provider === undefined)) {
    throw invalidParams('extern_uid, provider provide all or none of parameters');
  }
  const createdAfter = dateTimeParam('created_after', input.createdAfter);
  const createdBefore = dateTimeParam('created_before', input.createdBefore);
  const identityLookup = input.externUid !== undefined && input.provider !== undefined;
  if (identityLookup) requireAdmin(actor);
  if (!canListUsers(actor, input.username)) throw forbidden('Not authorized to access /api/v4/users');

  const admin = isAdmin(actor);
  const f: UserFilters = {
    username: input.username,
    active: input.active,
    blocked: input.blocked,
    external: input.external,
    nonExternal: input.excludeExternal,
    withoutProjectBots: input.withoutProjectBots,
    // Anvil has no identities: an identity lookup finds nobody.
    none: identityLookup,
    customAttributes: customAttributeFilter(actor, input.customAttributes),
  };
  // exclude_internal is accepted and matches everyone: Anvil has no internal (ghost, support) users.
  if (input.search !== undefined && input.search.trim() !== '') {
    const terms = searchTerms(input.search, input.minimumCharLimit);
    if (!terms) f.none = true;
    else Object.assign(f, { searchWhole: terms.whole, searchWords: terms.words, searchEmail: admin ? 'email' : 'public_email' });
  }
  // Ordering, creation dates and the admins filter are for admins; others' values are ignored.
  if (admin) {
    Object.assign(f, {
      admins: input.admins,
      createdAfter,
      createdBefore,
      orderBy: input.orderBy ?? 'id',
      sort: input.sort ?? 'desc',
    });
  }
  const result = await pageUsers(c.db, f, page);
  const views = result.items.map((u) => view(u, admin ? 'admin' : 'basic', actor));
  return { ...result, items: await withCustomAttributes(c, actor, 'user', views, input.withCustomAttributes, (v) => v.user.id) };
}

/** GET /users/:id */
export async function getUser(c: Container, actor: Actor | null, id: number, opts: { withCustomAttributes?: boolean } = {}): Promise<UserView> {
  const user = await findUserOr404(c, id);
  const v = isAdmin(actor) ? view(user, 'admin_details', actor, await highestAccessLevel(c.db, user.id)) : view(user, 'profile', actor);
  return (await withCustomAttributes(c, actor, 'user', [v], opts.withCustomAttributes, (x) => x.user.id))[0];
}

/** Profile and account attributes that POST and PUT /users take, named as the API names them. */
export interface UserAttributes {
  email?: string;
  username?: string;
  name?: string;
  password?: string;
  skype?: string;
  linkedin?: string;
  twitter?: string;
  website_url?: string;
  organization?: string;
  job_title?: string;
  projects_limit?: number;
  bio?: string;
  location?: string;
  pronouns?: string;
  public_email?: string;
  commit_email?: string;
  admin?: boolean;
  can_create_group?: boolean;
  external?: boolean;
  theme_id?: number;
  color_scheme_id?: number;
  private_profile?: boolean;
  note?: string;
}

export interface CreateUserInput extends UserAttributes {
  email: string;
  username: string;
  name: string;
  reset_password?: boolean;
  force_random_password?: boolean;
  skip_confirmation?: boolean;
}

const EMAIL_RE = /^[^@\s]+@[^@\s]+$/;
const USERNAME_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
const MAX_INT = 2147483647;
/** The commit email that means "my private no-reply address". */
export const PRIVATE_COMMIT_EMAIL = '_private';

const validUsername = (u: string): boolean =>
  USERNAME_RE.test(u) && !u.endsWith('.') && !/\.(git|atom)$/i.test(u);

/** The model validations of the attributes being set; `current` is the user being changed, if any. */
export function attributeErrors(a: UserAttributes, current: UserRow | null): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (a.email !== undefined) {
    if (a.email.trim() === '') add('email', "can't be blank");
    else if (!EMAIL_RE.test(a.email)) add('email', 'is invalid');
  }
  if (a.name !== undefined) {
    if (a.name.trim() === '') add('name', "can't be blank");
    else if (a.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  }
  if (a.username !== undefined) {
    if (a.username === '') add('username', "can't be blank");
    else if (a.username.length > 255) add('username', 'is too long (maximum is 255 characters)');
    else if (!validUsername(a.username)) add('username', USERNAME_MESSAGE);
  }
  if (a.password !== undefined) {
    if (a.password.length < 8) add('password', 'is too short (minimum is 8 characters)');
    else if (a.password.length > 128) add('password', 'is too long (maximum is 128 characters)');
  }
  if (a.projects_limit !== undefined) {
    if (a.projects_limit < 0) add('projects_limit', 'must be greater than or equal to 0');
    else if (a.projects_limit > MAX_INT) add('projects_limit', `must be less than or equal to ${MAX_INT}`);
  }
  // Without secondary emails, the only address a user owns is the primary one.
  const email = (a.email ?? current?.email ?? '').toLowerCase();
  if (a.public_email && a.public_email.toLowerCase() !== email) add('public_email', 'is not an email you own');
  if (a.commit_email && a.commit_email !== PRIVATE_COMMIT_EMAIL && a.commit_email.toLowerCase() !== email) {
    add('commit_email', 'is not an email you own');
  }
  return errors;
}

/** The reference answers duplicates with 409 before any other validation error. */
async function checkConflicts(c: Container, a: { email?: string; username?: string }, selfId: number | null): Promise<void> {
  if (a.email !== undefined) {
    const other = await findUserByEmail(c.db, a.email);
    if (other && other.id !== selfId) throw conflict('Email has already been taken');
  }
  if (a.username !== undefined) {
    const other = await findUserByUsername(c.db, a.username);
    if (other && other.id !== selfId) throw conflict('Username has already been taken');
  }
}

/** Columns for the profile attributes given; account fields (email, username, name, password) are the caller's. */
function profileColumns(a: UserAttributes): Updateable<UsersTable> {
  const out: Updateable<UsersTable> = {};
  const text = ['skype', 'linkedin', 'twitter', 'website_url', 'organization', 'job_title', 'bio', 'location', 'public_email'] as const;
  for (const k of text) if (a[k] !== undefined) out[k] = a[k];
  if (a.pronouns !== undefined) out.pronouns = a.pronouns;
  if (a.commit_email !== undefined) out.commit_email = a.commit_email === '' ? null : a.commit_email;
  if (a.note !== undefined) out.note = a.note;
  if (a.projects_limit !== undefined) out.projects_limit = a.projects_limit;
  if (a.theme_id !== undefined) out.theme_id = a.theme_id;
  if (a.color_scheme_id !== undefined) out.color_scheme_id = a.color_scheme_id;
  if (a.admin !== undefined) out.admin = a.admin ? 1 : 0;
  if (a.external !== undefined) out.external = a.external ? 1 : 0;
  if (a.can_create_group !== undefined) out.can_create_group = a.can_create_group ? 1 : 0;
  if (a.private_profile !== undefined) out.private_profile = a.private_profile ? 1 : 0;
  return out;
}

/** POST /users (admin) */
export async function createUser(c: Container, actor: Actor | null, input: CreateUserInput): Promise<UserView> {
  const admin = requireAdmin(actor);
  await checkConflicts(c, input, null);

  // A reset link or a random password both mean nobody knows the password yet.
  const randomPassword = input.reset_password || input.force_random_password;
  const password = randomPassword ? randomToken('', 32) : input.password;
  const errors = attributeErrors({ ...input, password: randomPassword ? undefined : input.password }, null);
  if (!password) (errors.password ??= []).push("can't be blank");
  // Anvil applies the sign-up domain restrictions to the users an administrator creates, since
  // that is its only way in (the reference exempts them; see the report of issue 3).
  const domainError = errors.email ? null : await emailDomainError(c, input.email);
  if (domainError) (errors.email ??= []).push(domainError);
  if (Object.keys(errors).length) throw validation(errors);

  const { admin: makeAdmin, external, projects_limit, can_create_group, ...rest } = profileColumns(input);
  const user = await createUserRecord(c, {
    username: input.username,
    name: input.name,
    email: input.email,
    password,
    admin: makeAdmin === 1,
    external: external === 1,
    projectsLimit: projects_limit,
    canCreateGroup: can_create_group === undefined ? undefined : can_create_group === 1,
    confirmed: input.skip_confirmation === true,
    createdById: admin.user.id,
    extra: rest as NewUserInput['extra'],
  });
  return view(user, 'admin', actor);
}

/**
 * Becoming external takes away personal projects and group creation; leaving it gives back the
 * defaults, unless the same request sets them (the reference's User model does both).
 */
async function externalLimits(c: Container, user: UserRow, input: UserAttributes): Promise<Updateable<UsersTable>> {
  if (input.external === undefined || (input.external ? 1 : 0) === user.external) return {};
  if (input.external) return { projects_limit: 0, can_create_group: 0 };
  return {
    projects_limit: input.projects_limit ?? (await getSettings(c)).default_projects_limit,
    can_create_group: input.can_create_group === false ? 0 : 1,
  };
}

/** PUT /users/:id (admin) */
export async function updateUser(c: Container, actor: Actor | null, id: number, input: UserAttributes): Promise<UserView> {
  requireAdmin(actor);
  const user = await findUserOr404(c, id);
  await checkConflicts(c, input, user.id);
  const errors = attributeErrors(input, user);
  if (input.username !== undefined && !errors.username && input.username.toLowerCase() !== user.username_lower) {
    const ns = await findNamespaceByFullPath(c.db, input.username);
    if (ns && !(ns.kind === 'user' && ns.owner_id === user.id)) errors.username = ['has already been taken'];
  }
  if (Object.keys(errors).length) throw validation(errors);

  const patch: Updateable<UsersTable> = { ...profileColumns(input), ...(await externalLimits(c, user, input)), updated_at: nowIso() };
  if (input.email !== undefined) Object.assign(patch, { email: input.email, email_lower: input.email.toLowerCase() });
  if (input.username !== undefined) Object.assign(patch, { username: input.username, username_lower: input.username.toLowerCase() });
  if (input.name !== undefined) patch.name = input.name;
  if (input.password !== undefined) patch.password_digest = await hashPassword(input.password);
  let updated: UserRow | undefined;
  try {
    updated = await inTransaction(c.db, async (tx) => {
      const u = await updateUserWithNamespace(tx, user.id, patch);
      if (u && u.username !== user.username) await userSystemEvent(c, tx, 'user_rename', u, user.username);
      return u;
    });
  } catch (err) {
    // A concurrent request took the name or address between the check and the update.
    if (isUniqueViolation(err)) throw validation({ username: ['has already been taken'] });
    throw err;
  }
  if (!updated) throw notFound('User');
  return view(updated, 'admin', actor);
}

/** DELETE /users/:id (admin). Anvil deletes at once; `hard_delete` has nothing more to remove. */
export async function deleteUser(
  c: Container,
  actor: Actor | null,
  id: number,
  opts: { hardDelete?: boolean; ifUnmodifiedSince: Date | null },
): Promise<void> {
  requireAdmin(actor);
  const user = await findUserOr404(c, id);
  checkUnmodifiedSince(user.updated_at, opts.ifUnmodifiedSince);
  await inTransaction(c.db, async (tx) => {
    await userSystemEvent(c, tx, 'user_destroy', user);
    await deleteUserRow(tx, user.id);
  });
}

async function setState(c: Container, user: UserRow, state: string): Promise<void> {
  await updateUserRow(c.db, user.id, { state, updated_at: nowIso() });
}

/**
 * POST /users/:id/block (admin). The reference answers `true` when it blocked the user and an
 * empty (null) body when the user was blocked already. Blocked users' tokens stop working.
 */
export async function blockUser(c: Container, actor: Actor | null, id: number): Promise<boolean | null> {
  const admin = requireAdmin(actor);
  const user = await findUserOr404(c, id);
  if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be modified by the API');
  if (user.id === admin.user.id) throw forbidden('The API initiating user cannot be blocked by the API');
  if (user.state === 'blocked') return null;
  await setState(c, user, 'blocked');
  return true;
}

/** POST /users/:id/unblock (admin): `true` when unblocked, `false` when there was nothing to do. */
export async function unblockUser(c: Container, actor: Actor | null, id: number): Promise<boolean> {
  requireAdmin(actor);
  const user = await findUserOr404(c, id);
  if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be unblocked by the API');
  if (user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
  if (user.state !== 'blocked') return false;
  await setState(c, user, 'active');
  return true;
}

/** POST /users/:id/deactivate (admin): `true`, or null when already deactivated. */
export async function deactivateUser(c: Container, actor: Actor | null, id: number): Promise<boolean | null> {
  requireAdmin(actor);
  const user = await findUserOr404(c, id);
  if (user.state === 'deactivated') return null;
  if (isBlockedState(user.state)) throw forbidden('A blocked user cannot be deactivated by the API');
  if (recentlyActive(user, nowDate())) {
    throw forbidden(`The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`);
  }
  await setState(c, user, 'deactivated');
  return true;
}

/** POST /users/:id/activate (admin): `true` when reactivated, `false` when already active. */
export async function activateUser(c: Container, actor: Actor | null, id: number): Promise<boolean> {
  requireAdmin(actor);
  const user = await findUserOr404(c, id);
  if (isBlockedState(user.state)) throw forbidden('A blocked user must be unblocked to be activated');
  if (user.state !== 'deactivated') return false;
  await setState(c, user, 'active');
  return true;
}
