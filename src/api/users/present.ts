import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { UserRow } from '../../db/repos/users.js';
import { PRIVATE_COMMIT_EMAIL, type UserView } from '../../domain/users/service.js';
import type { UserBasic, UserDetailsWithAdmin, UserProfile, UserPublic, UserWithAdmin } from './schemas.js';

export function avatarUrl(c: Container, u: UserRow): string | null {
  return u.avatar_path ? `${c.config.externalUrl}/uploads/-/system/user/avatar/${u.id}/${u.avatar_path}` : null;
}

export function presentUserBasic(c: Container, u: UserRow): Static<typeof UserBasic> {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    avatar_url: avatarUrl(c, u),
    web_url: `${c.config.externalUrl}/${u.username}`,
  };
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** "Job title at Organization", either alone, or null: the reference's profile line (HTML-escaped). */
function workInformation(u: UserRow): string | null {
  if (u.job_title && u.organization) return `${escapeHtml(u.job_title)} at ${escapeHtml(u.organization)}`;
  if (u.job_title) return escapeHtml(u.job_title);
  if (u.organization) return escapeHtml(u.organization);
  return null;
}

// Anvil has no follows, identities, two-factor, time zones or sign-in tracking by IP: those
// fields carry the values the reference gives a user without them.

function presentProfile(c: Container, v: UserView): Static<typeof UserProfile> {
  const u = v.user;
  // Object.assign onto the smaller form, not a spread into a long literal: V8 builds that spread many times slower.
  const out: Static<typeof UserProfile> = Object.assign(presentUserBasic(c, u), {
    bio: u.bio,
    location: u.location,
    public_email: u.public_email,
    skype: u.skype,
    linkedin: u.linkedin,
    twitter: u.twitter,
    website_url: u.website_url,
    organization: u.organization,
    job_title: u.job_title,
    pronouns: u.pronouns,
    bot: u.bot === 1,
    work_information: workInformation(u),
    local_time: null,
  });
  if (v.profileVisible) {
    out.created_at = u.created_at;
    out.followers = 0;
    out.following = 0;
    if (v.viewerSignedIn) out.is_followed = false;
  }
  return out;
}

function commitEmail(c: Container, u: UserRow): string {
  if (u.commit_email === PRIVATE_COMMIT_EMAIL) return `${u.id}-${u.username}@users.noreply.${c.config.externalHostname}`;
  return u.commit_email || u.email;
}

function presentPublic(c: Container, v: UserView): Static<typeof UserPublic> {
  const u = v.user;
  return Object.assign(presentProfile(c, { ...v, profileVisible: true, viewerSignedIn: true }), {
    created_at: u.created_at,
    followers: 0,
    following: 0,
    is_followed: false,
    last_sign_in_at: u.last_sign_in_at,
    confirmed_at: u.confirmed_at,
    last_activity_on: u.last_activity_on,
    email: u.email,
    theme_id: u.theme_id,
    color_scheme_id: u.color_scheme_id,
    projects_limit: u.projects_limit,
    current_sign_in_at: u.current_sign_in_at,
    identities: [],
    can_create_group: u.can_create_group === 1,
    // Personal projects are counted against the limit by the projects area; a zero limit always refuses.
    can_create_project: u.projects_limit > 0,
    two_factor_enabled: false,
    external: u.external === 1,
    private_profile: u.private_profile === 1,
    commit_email: commitEmail(c, u),
  });
}

function presentWithAdmin(c: Container, v: UserView): Static<typeof UserWithAdmin> {
  return Object.assign(presentPublic(c, v), { is_admin: v.user.admin === 1, note: v.user.note, namespace_id: v.user.namespace_id });
}

function presentDetailsWithAdmin(c: Container, v: UserView): Static<typeof UserDetailsWithAdmin> {
  return Object.assign(presentWithAdmin(c, v), { highest_role: v.highestRole, current_sign_in_ip: null, last_sign_in_ip: null, sign_in_count: 0 });
}

/** A user in the entity its view asks for, with `custom_attributes` when they were asked for. */
export function presentUser(c: Container, v: UserView) {
  const out = presentForm(c, v);
  return v.customAttributes ? { ...out, custom_attributes: v.customAttributes } : out;
}

function presentForm(c: Container, v: UserView) {
  switch (v.form) {
    case 'basic':
      return presentUserBasic(c, v.user);
    case 'profile':
      return presentProfile(c, v);
    case 'self':
      return presentPublic(c, v);
    case 'admin':
      return presentWithAdmin(c, v);
    case 'admin_details':
      return presentDetailsWithAdmin(c, v);
  }
}
