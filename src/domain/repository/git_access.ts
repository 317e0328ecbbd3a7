// Who may clone, fetch and push, over smart HTTP and SSH alike (the reference's git access
// checks). Over SSH the caller is the owner of the key it signed in with, or a deploy key
// (src/ssh/). Over HTTP credentials are HTTP Basic with any username and, as the password, an access token (personal,
// project, group, impersonation or OAuth) — or the account password while the setting
// password_authentication_enabled_for_git allows it. CI job tokens (user `service-ci-token`)
// belong here too, with the CI area.
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { findUserByEmail, findUserByUsername } from '../../db/repos/users.js';
import type { GitCommand } from '../../git/smart_http.js';
import { actingAs, type Actor } from '../auth/actor.js';
import { authenticate } from '../auth/service.js';
import { JOB_TOKEN_GIT_USERNAMES } from '../ci/job_token.js';
import { DomainError, exactError, forbidden, unauthorized } from '../errors.js';
import { findProject, findProjectRow, projectNotFound } from '../projects/find.js';
import { canReadCode, canReadProject, projectAccess, type ProjectAccess } from '../projects/policy.js';
import { verifyPassword } from '../shared/secrets.js';
import { getSettings } from '../settings/service.js';
import { checkRefUpdates } from './protection.js';
import { repositoryDir } from './service.js';

export interface BasicCredentials {
  username: string;
  password: string;
}

/**
 * Scopes that let a token read a repository, and push to it (the reference's abilities_for_scopes:
 * `read_api` carries the read-only abilities, download_code among them).
 */
const READ_SCOPES = ['api', 'read_api', 'read_repository', 'write_repository'];
const WRITE_SCOPES = ['api', 'write_repository'];

export const PROJECT_NOT_FOUND_MESSAGE = "The project you were looking for could not be found or you don't have permission to view it.";

/** 401: git asks for credentials (or fails with "Authentication failed"). */
export const gitUnauthorized = () => unauthorized();

const notFoundForGit = () => exactError(404, PROJECT_NOT_FOUND_MESSAGE);

/** The actor behind HTTP Basic credentials; null for none; 401 for wrong ones. */
export async function gitActor(c: Container, cred: BasicCredentials | null): Promise<Actor | null> {
  if (!cred) return null;
  // CI job tokens: username `service-ci-token`, the token of a running job as the password.
  if (JOB_TOKEN_GIT_USERNAMES.includes(cred.username)) return authenticate(c, { kind: 'job_token', value: cred.password, accepted: true });
  try {
    const actor = await authenticate(c, { kind: 'token', value: cred.password });
    if (actor) return actor;
  } catch (e) {
    // A blocked account says so; anything else may still be a password.
    if (!(e instanceof DomainError) || e.detail.kind !== 'unauthorized') throw e;
  }
  if (!(await getSettings(c)).password_authentication_enabled_for_git) throw unauthorized();
  const login = cred.username;
  const user = login.includes('@') ? await findUserByEmail(c.db, login) : await findUserByUsername(c.db, login);
  if (!user || !(await verifyPassword(cred.password, user.password_digest))) throw unauthorized();
  if (user.state !== 'active') throw forbidden('Your account has been blocked.');
  // A password is not a scoped credential: the account's own rights apply, as for a web session.
  return actingAs(user);
}

export interface GitTarget {
  project: ProjectRow;
  dir: string;
}

/** How the client reached Anvil: smart HTTP or SSH (the setting enabled_git_access_protocol may allow one only). */
export type GitTransport = 'http' | 'ssh';

/** The reference's refusals of a whole transport (lib/gitlab/git_access.rb). */
const PROTOCOL_REFUSED: Record<GitTransport, string> = {
  http: 'Git access over HTTP is not allowed',
  ssh: 'Git access over SSH is not allowed',
};

/**
 * Checks `actor` may run `command` on the project at `fullPath` (old paths and aliases too), over
 * either transport: the one access check of git. Anonymous callers (HTTP only) get 401 for
 * anything they cannot read, so git asks for credentials; signed-in callers get 404 for a
 * project they cannot see, 403 with the reason for one they may not push to.
 */
export async function gitAccess(c: Container, actor: Actor | null, fullPath: string, command: GitCommand, transport: GitTransport = 'http'): Promise<GitTarget> {
  const settings = await getSettings(c);
  const only = settings.enabled_git_access_protocol;
  if (only && only !== transport && (only === 'http' || only === 'ssh')) throw forbidden(PROTOCOL_REFUSED[transport]);
  let project: ProjectRow;
  let access: ProjectAccess;
  try {
    // A deploy key's rights come from its link to the project alone (projectAccess), not from a visit as its user.
    if (actor?.deployKey) {
      project = await findProjectRow(c, fullPath);
      access = await projectAccess(c, actor, project);
      if (!canReadProject(access)) throw projectNotFound();
    } else {
      ({ row: project, access } = await findProject(c, actor, fullPath));
    }
  } catch (e) {
    if (e instanceof DomainError && e.detail.kind === 'not_found') throw actor ? notFoundForGit() : unauthorized();
    throw e;
  }
  const dir = repositoryDir(c, project.id);
  if (actor?.job) {
    // A job token reads its own project's repository (the runner's clone) and nothing else.
    if (actor.job.projectId !== project.id) throw notFoundForGit();
    if (command !== 'git-upload-pack') throw forbidden('You are not allowed to upload code.');
    return { project, dir };
  }
  if (command !== 'git-receive-pack') {
    // A deploy key that reads the project reads its code (the reference's download check passes deploy keys).
    if (actor?.deployKey) return { project, dir };
    if (actor?.scopes && !actor.scopes.some((s) => READ_SCOPES.includes(s))) throw forbidden('You are not allowed to download code.');
    if (!canReadCode(access)) throw forbidden('You are not allowed to download code from this project.');
    return { project, dir };
  }
  if (!actor) throw unauthorized();
  if (actor.scopes && !actor.scopes.some((s) => WRITE_SCOPES.includes(s))) throw forbidden('You are not allowed to upload code.');
  // The base rules (archived project, developer role) before any pack is sent; each ref is checked again by the hook.
  await checkRefUpdates(c, actor, project, []);
  return { project, dir };
}
