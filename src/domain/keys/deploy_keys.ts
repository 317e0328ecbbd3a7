// Deploy keys: an SSH key enabled for projects, each with or without write access (can_push), as
// the reference's deploy keys API. Project maintainers manage a project's keys and may enable
// a key they can already use elsewhere; admins list every key. A link removed from the last
// project takes its key with it.
import type { Container } from '../context.js';
import {
  deployKeyUnused, deleteKey, findDeployKeyLink, findKeyById, findKeyBySha256, findProjectDeployKey, insertKey, linkDeployKey,
  pageDeployKeys, pageProjectDeployKeys, projectsOfDeployKey, setDeployKeyCanPush, unlinkDeployKey, updateKeyTitle, writableProjectsOf,
  type DeployKeyLink, type KeyRow,
} from '../../db/repos/keys.js';
import { projectContexts } from '../../db/repos/project_context.js';
import { findProjectsByIds, type ProjectRow } from '../../db/repos/projects.js';
import { inTransaction } from '../../db/transaction.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso, today } from '../../shared/time.js';
import { isAdmin, requireAdmin, type Actor } from '../auth/actor.js';
import { DomainError, forbidden, notFound, validation, type ValidationMessages } from '../errors.js';
import { fullNamesOf } from '../groups/find.js';
import { findProjectAllowed } from '../projects/find.js';
import { canAdminProject, projectAccess } from '../projects/policy.js';
import { expiryOf } from './service.js';
import { validateNewKey } from './validate.js';

const deployKeyNotFound = () => notFound('Deploy Key');

export interface NewDeployKeyInput {
  title: string;
  key: string;
  can_push?: boolean;
  expires_at?: string | null;
}

/** Projects where the caller manages deploy keys (maintainers): else 404 / 403 as for the project. */
const projectForKeys = (c: Container, actor: Actor, id: number | string): Promise<ProjectRow> => findProjectAllowed(c, actor, id, canAdminProject);

export async function listProjectDeployKeys(c: Container, actor: Actor, id: number | string, page: PageRequest): Promise<PageResult<DeployKeyLink>> {
  const project = await projectForKeys(c, actor, id);
  return pageProjectDeployKeys(c.db, project.id, page);
}

export async function getProjectDeployKey(c: Container, actor: Actor, id: number | string, keyId: number): Promise<DeployKeyLink> {
  const project = await projectForKeys(c, actor, id);
  const link = await findProjectDeployKey(c.db, project.id, keyId);
  if (!link) throw deployKeyNotFound();
  return link;
}

/** How many projects of a key are looked at to decide whether the caller may use it. */
const LINKS_LOOKED_AT = 100;

/** The reference's accessible_deploy_keys: a key enabled for a project the caller maintains (any key, for an admin). */
async function mayUseDeployKey(c: Container, actor: Actor, key: KeyRow): Promise<boolean> {
  if (isAdmin(actor) || key.user_id === actor.user.id) return true;
  for (const p of await findProjectsByIds(c.db, await projectsOfDeployKey(c.db, key.id, LINKS_LOOKED_AT))) {
    if (canAdminProject(await projectAccess(c, actor, p))) return true;
  }
  return false;
}

/** A validation failure of the new key, named as the reference names the link's key's errors. */
function asLinkErrors(e: unknown): never {
  if (e instanceof DomainError && e.detail.kind === 'validation') {
    const named: ValidationMessages = {};
    for (const [k, v] of Object.entries(e.detail.messages)) named[`deploy_key.${k}`] = v;
    throw validation(named);
  }
  throw e;
}

/**
 * POST /projects/:id/deploy_keys: a key already enabled here is answered as it is; a deploy key
 * the caller may use elsewhere is enabled here; else a new deploy key is created.
 */
export async function addProjectDeployKey(c: Container, actor: Actor, id: number | string, input: NewDeployKeyInput): Promise<DeployKeyLink> {
  const project = await projectForKeys(c, actor, id);
  const expiresAt = expiryOf(input.expires_at);
  const parsed = await validateNewKey(c, input.key, expiresAt).catch(asLinkErrors);
  const at = nowIso();
  const existing = await findKeyBySha256(c.db, parsed.sha256);
  if (existing) {
    const here = await findProjectDeployKey(c.db, project.id, existing.id);
    if (here) return here;
    if (existing.type !== 'DeployKey' || !(await mayUseDeployKey(c, actor, existing))) throw validation({ 'deploy_key.fingerprint_sha256': ['has already been taken'] });
    await linkDeployKey(c.db, { deploy_key_id: existing.id, project_id: project.id, can_push: input.can_push ? 1 : 0, created_at: at, updated_at: at });
    return (await findProjectDeployKey(c.db, project.id, existing.id))!;
  }
  const key = await inTransaction(c.db, async (tx) => {
    const row = await insertKey(tx, {
      user_id: actor.user.id,
      type: 'DeployKey',
      title: input.title,
      key: input.key.trim(),
      fingerprint: parsed.md5,
      fingerprint_sha256: parsed.sha256,
      usage_type: 'auth',
      expires_at: expiresAt,
      last_used_at: null,
      created_at: at,
      updated_at: at,
    });
    if (!row) throw validation({ 'deploy_key.fingerprint_sha256': ['has already been taken'] });
    await linkDeployKey(tx, { deploy_key_id: row.id, project_id: project.id, can_push: input.can_push ? 1 : 0, created_at: at, updated_at: at });
    return row;
  });
  return (await findProjectDeployKey(c.db, project.id, key.id))!;
}

/** PUT /projects/:id/deploy_keys/:key_id: can_push for this project; the title only for the key's creator or an admin. */
export async function updateProjectDeployKey(c: Container, actor: Actor, id: number | string, keyId: number, input: { title?: string; can_push?: boolean }): Promise<DeployKeyLink> {
  const project = await projectForKeys(c, actor, id);
  const link = await findProjectDeployKey(c.db, project.id, keyId);
  if (!link) throw deployKeyNotFound();
  const mayRename = isAdmin(actor) || link.user_id === actor.user.id;
  if (input.title !== undefined && !mayRename && input.can_push === undefined) throw forbidden();
  const at = nowIso();
  if (input.title !== undefined && mayRename) {
    if (input.title.trim() === '') throw validation({ 'deploy_key.title': ["can't be blank"] });
    await updateKeyTitle(c.db, keyId, input.title, at);
  }
  if (input.can_push !== undefined) await setDeployKeyCanPush(c.db, link.link_id, input.can_push, at);
  return (await findProjectDeployKey(c.db, project.id, keyId))!;
}

/** POST /projects/:id/deploy_keys/:key_id/enable: a deploy key the caller may use, enabled here (read-only). */
export async function enableDeployKey(c: Container, actor: Actor, id: number | string, keyId: number): Promise<KeyRow> {
  const project = await projectForKeys(c, actor, id);
  const key = await findKeyById(c.db, keyId, 'DeployKey');
  if (!key || !(await mayUseDeployKey(c, actor, key))) throw deployKeyNotFound();
  const at = nowIso();
  await linkDeployKey(c.db, { deploy_key_id: key.id, project_id: project.id, can_push: 0, created_at: at, updated_at: at });
  return key;
}

/** DELETE /projects/:id/deploy_keys/:key_id: disables the key here; a key no project uses any more goes. */
export async function removeProjectDeployKey(c: Container, actor: Actor, id: number | string, keyId: number): Promise<void> {
  const project = await projectForKeys(c, actor, id);
  const link = await findDeployKeyLink(c.db, project.id, keyId);
  if (!link) throw deployKeyNotFound();
  await inTransaction(c.db, async (tx) => {
    await unlinkDeployKey(tx, link.id);
    if (await deployKeyUnused(tx, keyId)) await deleteKey(tx, keyId);
  });
}

export interface ProjectIdentityView {
  row: ProjectRow;
  nameWithNamespace: string;
}

export interface InstanceDeployKeyView {
  row: KeyRow;
  projectsWithWriteAccess: ProjectIdentityView[];
}

/** GET /deploy_keys (admins): every deploy key with the projects it may push to. */
export async function listAllDeployKeys(c: Container, actor: Actor, page: PageRequest): Promise<PageResult<InstanceDeployKeyView>> {
  requireAdmin(actor);
  const p = await pageDeployKeys(c.db, page);
  const links = await writableProjectsOf(c.db, p.items.map((k) => k.id));
  const projects = await identities(c, [...new Set(links.map((l) => l.project_id))]);
  return {
    ...p,
    items: p.items.map((row) => ({
      row,
      projectsWithWriteAccess: links.filter((l) => l.deploy_key_id === row.id && projects.has(l.project_id)).map((l) => projects.get(l.project_id)!),
    })),
  };
}

async function identities(c: Container, ids: number[]): Promise<Map<number, ProjectIdentityView>> {
  if (ids.length === 0) return new Map();
  const rows = await findProjectsByIds(c.db, ids);
  const contexts = await projectContexts(c.db, ids, null, today());
  const fullNames = await fullNamesOf(c, [...contexts.values()].filter((x) => x.ns_kind === 'group').map((x) => ({ full_path_lower: x.ns_full_path_lower, name: x.ns_name })));
  return new Map(
    rows.map((row) => {
      const x = contexts.get(row.id)!;
      const ns = x.ns_kind === 'group' ? fullNames.get(x.ns_full_path_lower)! : x.ns_name;
      return [row.id, { row, nameWithNamespace: `${ns} / ${row.name}` }];
    }),
  );
}

/** The project a deploy key is enabled for, by id; undefined when it is not (for git access). */
export async function deployKeyLinkFor(c: Container, keyId: number, projectId: number): Promise<{ canPush: boolean } | undefined> {
  const link = await findDeployKeyLink(c.db, projectId, keyId);
  return link ? { canPush: link.can_push === 1 } : undefined;
}

