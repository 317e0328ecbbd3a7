// Turning a credential into an Actor, and sudo. The HTTP layer only extracts credentials.
import type { Container } from '../context.js';
import { jobByTokenDigest } from '../../db/repos/ci_jobs.js';
import { findOauthByDigest, findPatWithUserByDigest, findSessionByDigest, touchPat } from '../../db/repos/tokens.js';
import { findUserById, findUserByIdOrUsername, type UserRow } from '../../db/repos/users.js';
import { isJobTokenShaped } from '../ci/job_token.js';
import { forbidden, insufficientScope, notFound, unauthorized } from '../errors.js';
import { digest } from '../shared/secrets.js';
import { nowIso, today } from '../../shared/time.js';
import { actingAs, isAdmin, type Actor } from './actor.js';
import { getSettings } from '../settings/service.js';
import { csrfTokenMatches } from '../tokens/sessions.js';
import { now as clockNow } from '../../shared/clock.js';

export type Credential =
  // PAT, project/group/impersonation token or OAuth token; `personalOnly`: not OAuth (PRIVATE-TOKEN);
  // `jobToken`: a CI job token is accepted too (Bearer)
  | { kind: 'token'; value: string; personalOnly?: boolean; jobToken?: boolean }
  // The web session cookie; a write (`safeMethod` false) counts only with the session's CSRF token
  | { kind: 'session'; value: string; csrfToken: string | null; safeMethod: boolean }
  // A CI job token (JOB-TOKEN header, `job_token` parameter); `accepted`: the endpoint takes job tokens
  | { kind: 'job_token'; value: string; accepted: boolean };

function ensureActive(user: UserRow): void {
  if (user.state === 'blocked' || user.state === 'ldap_blocked') throw forbidden('Your account has been blocked.');
  if (user.state === 'blocked_pending_approval') throw forbidden('Your account is pending approval from your administrator and hence blocked.');
  if (user.state === 'deactivated') {
    throw forbidden('Your account has been deactivated by your administrator. Please log back in to reactivate your account.');
  }
}

/**
 * A CI job token: valid only while its job runs (the digest is cleared when it ends). The actor
 * is the job's user, marked `job_token`, with the job attached; endpoints that take job tokens
 * decide what it may do.
 */
async function fromJobToken(c: Container, value: string): Promise<Actor> {
  const job = await jobByTokenDigest(c.db, digest(value));
  if (!job || job.status !== 'running' || job.user_id === null) throw unauthorized();
  const user = await findUserById(c.db, job.user_id);
  if (!user) throw unauthorized();
  ensureActive(user);
  return { user, via: 'job_token', scopes: null, tokenId: null, sudoer: null, job: { id: job.id, projectId: job.project_id } };
}

async function fromToken(c: Container, cred: Extract<Credential, { kind: 'token' }>): Promise<Actor> {
  const { value } = cred;
  if (cred.jobToken && isJobTokenShaped(value)) return fromJobToken(c, value);
  const d = digest(value);
  // Kept for up to half a second: src/shared/recent_reads.ts says why that stays correct.
  const found = await c.authCache.read(d, () => findPatWithUserByDigest(c.db, d));
  if (found) {
    const { pat, user } = found;
    if (pat.revoked || (pat.expires_at !== null && pat.expires_at <= today())) throw unauthorized();
    if (pat.impersonation && !c.config.impersonationEnabled) throw unauthorized();
    ensureActive(user);
    // last_used_at is advisory; write it at most once a minute per token
    if (!pat.last_used_at || clockNow() - Date.parse(pat.last_used_at) > 60_000) await touchPat(c.db, pat.id, nowIso());
    return {
      user,
      via: pat.impersonation ? 'impersonation_token' : 'personal_access_token',
      scopes: JSON.parse(pat.scopes),
      tokenId: pat.id,
      sudoer: null,
    };
  }
  if (cred.personalOnly) throw unauthorized();
  const oauth = await findOauthByDigest(c.db, d);
  if (oauth) {
    if (oauth.revoked_at || Date.parse(oauth.created_at) + oauth.expires_in * 1000 <= clockNow()) throw unauthorized();
    const user = await findUserById(c.db, oauth.user_id);
    if (!user) throw unauthorized();
    ensureActive(user);
    return { user, via: 'oauth', scopes: oauth.scopes.split(/\s+/).filter(Boolean), tokenId: oauth.id, sudoer: null };
  }
  if (cred.jobToken) return fromJobToken(c, value);
  throw unauthorized();
}

async function fromSession(c: Container, cred: Extract<Credential, { kind: 'session' }>): Promise<Actor | null> {
  // As the reference's API: a write whose CSRF token does not verify is made by nobody (401), so
  // another site cannot make a signed-in browser write through the API.
  if (!cred.safeMethod && !csrfTokenMatches(c, cred.value, cred.csrfToken)) return null;
  const s = await findSessionByDigest(c.db, digest(cred.value));
  // An unknown or stale cookie is ignored, as a browser session would be: the caller is anonymous.
  if (!s || s.expires_at <= nowIso()) return null;
  const user = await findUserById(c.db, s.user_id);
  if (!user) return null;
  ensureActive(user);
  return withAdminMode(c, actingAs(user), s.admin_mode_until !== null && s.admin_mode_until > nowIso());
}

export async function authenticate(c: Container, cred: Credential): Promise<Actor | null> {
  switch (cred.kind) {
    case 'session':
      return fromSession(c, cred);
    case 'job_token':
      // A job token where the endpoint does not take one is a wrong credential, not no credential.
      if (!cred.accepted) throw unauthorized();
      return withAdminMode(c, await fromJobToken(c, cred.value), false);
    case 'token': {
      const actor = await fromToken(c, cred);
      return withAdminMode(c, actor, actor.scopes?.includes('admin_mode') ?? false);
    }
  }
}

/**
 * Admin mode: with the `admin_mode` setting on, an administrator's credential counts as an
 * administrator's only in admin mode (a token with the `admin_mode` scope, a session that entered
 * it with the password); otherwise it acts as a normal user.
 */
async function withAdminMode(c: Container, actor: Actor, entered: boolean): Promise<Actor> {
  if (actor.user.admin !== 1 || entered || !(await getSettings(c)).admin_mode) return actor;
  return { ...actor, withoutAdminMode: true };
}

/** Sudo as the reference does it: admin, a token (not a session), the `sudo` scope, a known user. */
export async function sudo(c: Container, actor: Actor | null, identifier: string): Promise<Actor> {
  if (!actor) throw unauthorized();
  if (!isAdmin(actor)) throw forbidden('Must be admin to use sudo');
  if (actor.via === 'session' || actor.via === 'job_token') {
    throw forbidden('Must be authenticated using an OAuth or personal access token to use sudo');
  }
  if (!actor.scopes?.includes('sudo')) throw insufficientScope(['sudo']);
  const target = await findUserByIdOrUsername(c.db, identifier);
  if (!target) throw notFound(`User with ID or username '${identifier}'`);
  return { ...actor, user: target, sudoer: actor.user };
}

/** Throws 403 insufficient_scope unless the credential carries one of `accepted`. */
export function requireScope(actor: Actor, accepted: readonly string[]): void {
  if (actor.scopes === null) return;
  if (accepted.some((s) => actor.scopes!.includes(s))) return;
  throw insufficientScope([...accepted]);
}
