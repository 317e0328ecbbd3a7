import { Type as T } from '@sinclair/typebox';
import { CustomAttributesField } from '../custom_attributes/schemas.js';
import { DateOnly, Nullable, Timestamp } from '../schemas.js';

// The reference's user entities, each extending the one before it, in its field order:
// UserBasic < User < UserPublic < UserWithAdmin < UserDetailsWithAdmin.

const basicFields = {
  id: T.Integer(),
  username: T.String(),
  name: T.String(),
  state: T.String(),
  avatar_url: Nullable(T.String()),
  web_url: T.String(),
  /** Only with `with_custom_attributes` (admins). */
  custom_attributes: CustomAttributesField,
};

/** The reference's UserBasic: embedded in most other resources. */
export const UserBasic = T.Object(basicFields);

const profileText = {
  bio: T.String(),
  location: Nullable(T.String()),
  public_email: Nullable(T.String()),
  skype: T.String(),
  linkedin: T.String(),
  twitter: T.String(),
  website_url: T.String(),
  organization: T.String(),
  job_title: T.String(),
  pronouns: Nullable(T.String()),
  bot: T.Boolean(),
  work_information: Nullable(T.String()),
};

/** The reference's User: someone else's profile (created_at, followers... hidden on private profiles). */
export const UserProfile = T.Object({
  ...basicFields,
  created_at: T.Optional(Timestamp),
  ...profileText,
  followers: T.Optional(T.Integer()),
  following: T.Optional(T.Integer()),
  is_followed: T.Optional(T.Boolean()),
  local_time: Nullable(T.String()),
});

const publicFields = {
  ...basicFields,
  created_at: Timestamp,
  ...profileText,
  followers: T.Integer(),
  following: T.Integer(),
  is_followed: T.Boolean(),
  local_time: Nullable(T.String()),
  last_sign_in_at: Nullable(Timestamp),
  confirmed_at: Nullable(Timestamp),
  last_activity_on: Nullable(DateOnly),
  email: T.String(),
  theme_id: T.Integer(),
  color_scheme_id: T.Integer(),
  projects_limit: T.Integer(),
  current_sign_in_at: Nullable(Timestamp),
  identities: T.Array(T.Object({ provider: T.String(), extern_uid: T.String() })),
  can_create_group: T.Boolean(),
  can_create_project: T.Boolean(),
  two_factor_enabled: T.Boolean(),
  external: T.Boolean(),
  private_profile: T.Boolean(),
  commit_email: Nullable(T.String()),
};

/** The reference's UserPublic: the caller's own account (GET /user). */
export const UserPublic = T.Object(publicFields);

const withAdminFields = {
  ...publicFields,
  is_admin: T.Boolean(),
  note: Nullable(T.String()),
  namespace_id: Nullable(T.Integer()),
};

/** The reference's UserWithAdmin: what admins see in lists and get back from create/update. */
export const UserWithAdmin = T.Object(withAdminFields);

/** The reference's UserDetailsWithAdmin: one user as an admin sees it. */
export const UserDetailsWithAdmin = T.Object({
  ...withAdminFields,
  highest_role: T.Integer(),
  current_sign_in_ip: Nullable(T.String()),
  last_sign_in_ip: Nullable(T.String()),
  sign_in_count: T.Integer(),
});

// Routes whose entity depends on the caller: the richest form first, so that serialization
// picks the first schema the presented object satisfies.
export const CurrentUserResponse = T.Union([UserWithAdmin, UserPublic]);
export const ListedUserResponse = T.Union([UserWithAdmin, UserBasic]);
export const SingleUserResponse = T.Union([UserDetailsWithAdmin, UserProfile]);

/** block/unblock/activate/deactivate answer a bare `true`/`false`, or `null` when nothing changed. */
export const StateChangeResponse = Nullable(T.Boolean());
