// Seed files: the users, groups, projects and repository contents a test suite starts from,
// in YAML or JSON. Read and checked here (an error names the file's line), then applied through
// the REST API as root, in-process (`serve --seed`, POST /-/test/seed, which `anvil seed` calls).
// Only what the API cannot do is written directly: tokens with a fixed value, repository
// contents from a git bundle, and dropping the pipelines the seed's pushes queued. The
// background work the seed queued is run before it ends, so a seeded state is at rest.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { LineCounter, parseDocument } from 'yaml';
import type { Container } from '../domain/context.js';
import { issueToken } from '../domain/tokens/service.js';
import { repositoryDir } from '../domain/repository/service.js';
import { fetchBundle } from '../git/bundle.js';
import { dropQueuedJobs } from '../db/repos/background_jobs.js';
import { PUSH_PIPELINE_JOB } from '../domain/ci/push_pipelines.js';
import { runDueWork } from './mode.js';

export class SeedError extends Error {}

type Obj = Record<string, unknown>;
type Kind = 'string' | 'boolean' | 'integer' | 'list' | 'map' | 'strings' | 'members';

/** The keys each kind of entry may have, and what each holds. */
const SHAPES: Record<string, Record<string, Kind>> = {
  top: { settings: 'map', pipelines: 'boolean', users: 'list', groups: 'list', projects: 'list', hooks: 'list' },
  user: { username: 'string', name: 'string', email: 'string', password: 'string', admin: 'boolean', external: 'boolean', blocked: 'boolean', tokens: 'list' },
  token: { name: 'string', token: 'string', scopes: 'strings', expires_at: 'string' },
  group: { path: 'string', name: 'string', visibility: 'string', description: 'string', members: 'members', variables: 'list' },
  member: { user: 'string', access_level: 'integer' },
  project: {
    path: 'string', name: 'string', visibility: 'string', description: 'string', default_branch: 'string', settings: 'map',
    topics: 'strings', members: 'members', shares: 'list', badges: 'list', hooks: 'list', protected_branches: 'list',
    files: 'map', dir: 'string', bundle: 'string', import: 'string', branches: 'list', tags: 'list', variables: 'list',
  },
  variable: { key: 'string', value: 'string', protected: 'boolean', masked: 'boolean', raw: 'boolean', variable_type: 'string', environment_scope: 'string', description: 'string' },
  share: { group: 'string', group_access: 'integer', expires_at: 'string' },
  badge: { name: 'string', link_url: 'string', image_url: 'string' },
  hook: { url: 'string', token: 'string', push_events: 'boolean', tag_push_events: 'boolean', merge_requests_events: 'boolean', issues_events: 'boolean', note_events: 'boolean', job_events: 'boolean', pipeline_events: 'boolean', enable_ssl_verification: 'boolean' },
  protected_branch: { name: 'string', push_access_level: 'integer', merge_access_level: 'integer', allow_force_push: 'boolean' },
  branch: { name: 'string', ref: 'string' },
  tag: { name: 'string', ref: 'string', message: 'string' },
};
const REQUIRED: Record<string, string[]> = {
  user: ['username'], token: ['name', 'token', 'scopes'], group: ['path'], member: ['user', 'access_level'], project: ['path'],
  share: ['group', 'group_access'], badge: ['link_url', 'image_url'], hook: ['url'], protected_branch: ['name'], branch: ['name'], tag: ['name'], variable: ['key', 'value'],
};
/** The shape of a list's items, by the list's key. */
const ITEMS: Record<string, string> = {
  users: 'user', groups: 'group', projects: 'project', tokens: 'token', shares: 'share', badges: 'badge', hooks: 'hook',
  protected_branches: 'protected_branch', branches: 'branch', tags: 'tag', variables: 'variable',
};

export interface Seed {
  settings?: Obj;
  pipelines?: boolean;
  users?: Obj[];
  groups?: Obj[];
  projects?: Obj[];
  hooks?: Obj[];
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a seed document; `where(path)` names the place of an error (the file's line). */
export function checkSeed(doc: unknown, where: (at: (string | number)[]) => string = (at) => at.join('.')): Seed {
  const errors: string[] = [];
  const fail = (at: (string | number)[], msg: string) => errors.push(`${where(at)}: ${msg}`);
  const check = (v: unknown, shape: string, at: (string | number)[]) => {
    if (!isObj(v)) return fail(at, `must be a map with ${Object.keys(SHAPES[shape]!).join(', ')}`);
    for (const k of REQUIRED[shape] ?? []) if (v[k] === undefined) fail(at, `${k} is missing`);
    for (const [k, val] of Object.entries(v)) {
      const kind = SHAPES[shape]![k];
      const here = [...at, k];
      if (!kind) fail(here, `unknown key "${k}" (known: ${Object.keys(SHAPES[shape]!).join(', ')})`);
      else if (kind === 'string' && typeof val !== 'string') fail(here, 'must be a string');
      else if (kind === 'boolean' && typeof val !== 'boolean') fail(here, 'must be true or false');
      else if (kind === 'integer' && !Number.isInteger(val)) fail(here, 'must be a whole number');
      else if (kind === 'map' && !isObj(val)) fail(here, 'must be a map');
      else if (kind === 'strings' && !(Array.isArray(val) && val.every((s) => typeof s === 'string'))) fail(here, 'must be a list of strings');
      else if (kind === 'list' || kind === 'members') {
        if (!Array.isArray(val)) fail(here, 'must be a list');
        else val.forEach((item, i) => (kind === 'members' ? check(item, 'member', [...here, i]) : check(typeof item === 'string' ? { name: item } : item, ITEMS[k]!, [...here, i])));
      }
    }
  };
  check(doc ?? {}, 'top', []);
  if (isObj(doc) && isObj(doc.projects)) fail(['projects'], 'must be a list');
  if (isObj(doc) && Array.isArray(doc.projects)) {
    doc.projects.forEach((p, i) => {
      const other = isObj(p) && p.import !== undefined ? ['files', 'dir', 'bundle'].find((k) => p[k] !== undefined) : undefined;
      if (other) fail(['projects', i, other], `cannot go with import (the repository comes from the archive)`);
    });
  }
  if (errors.length) throw new SeedError(errors.join('\n'));
  return (doc ?? {}) as Seed;
}

const isKind = (p: string, dir: boolean): boolean => {
  try {
    return dir ? fs.statSync(p).isDirectory() : fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** An export archive is a gzipped tar: it starts with gzip's two magic bytes. */
function isGzip(file: string): boolean {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** What is wrong with the file or directory a project's key names, or null. */
const PATH_CHECKS: Record<string, (p: string) => string | null> = {
  dir: (p) => (isKind(p, true) ? null : `no directory ${p}`),
  bundle: (p) => (isKind(p, false) ? null : `no file ${p}`),
  import: (p) => (!isKind(p, false) ? `no file ${p}` : isGzip(p) ? null : `${p} is not an export archive (a .tar.gz)`),
};

/** Checks that the paths a checked seed names are there, before anything is applied. */
export function checkSeedPaths(seed: Seed, where: (at: (string | number)[]) => string = (at) => at.join('.')): void {
  const errors: string[] = [];
  (seed.projects ?? []).forEach((p, i) => {
    for (const [k, check] of Object.entries(PATH_CHECKS)) {
      const problem = typeof p[k] === 'string' ? check(p[k] as string) : null;
      if (problem) errors.push(`${where(['projects', i, k])}: ${problem}`);
    }
  });
  if (errors.length) throw new SeedError(errors.join('\n'));
}

type Where = (at: (string | number)[]) => string;
/** Where each entry of a seed read from a file is (its line), for errors found later. */
const places = new WeakMap<Seed, Where>();

/** Reads and checks a seed file; paths in it (`dir`, `bundle`, `import`) are relative to it, and become absolute. */
export function readSeedFile(file: string): Seed {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SeedError(`${file}: ${(err as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new SeedError(`${file}:${lines.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`);
  }
  const where = (at: (string | number)[]) => {
    for (let n = at.length; n > 0; n--) {
      const node = doc.getIn(at.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return `${file}:${lines.linePos(node.range[0]).line}: ${at.join('.')}`;
    }
    return `${file}: ${at.join('.') || 'the document'}`;
  };
  const seed = checkSeed(doc.toJS(), where);
  const base = path.dirname(path.resolve(file));
  for (const p of seed.projects ?? []) {
    for (const k of Object.keys(PATH_CHECKS)) if (typeof p[k] === 'string') p[k] = path.resolve(base, p[k] as string);
  }
  checkSeedPaths(seed, where);
  places.set(seed, where);
  return seed;
}

/**
 * A server's seed errors (`users.1.username: …`, one a line) with the places of the file the seed
 * was read from (`seed.yml:5: users.1.username: …`): `anvil seed` sends the seed as JSON.
 */
export function placeErrors(seed: Seed, message: string): string {
  const where = places.get(seed);
  if (!where) return message;
  return message
    .split('\n')
    .map((line) => line.replace(/^([A-Za-z_]\w*(?:\.\w+)*)(?=: )/, (p) => where(p.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k)))))
    .join('\n');
}

const RANK: Record<string, number> = { private: 0, internal: 10, public: 20 };

/**
 * What only the server can tell is wrong with a seed, found before anything of it is applied: a
 * user, group or project that exists already or is given twice, a namespace, user or group that
 * is neither in the seed nor on the server, a visibility wider than its group's. Each error names
 * the seed's line (or path).
 */
export async function checkSeedAgainst(app: FastifyInstance, auth: Record<string, string>, seed: Seed, where: Where): Promise<void> {
  const errors: string[] = [];
  const fail = (at: (string | number)[], msg: string) => errors.push(`${where(at)}: ${msg}`);
  const get = async (url: string): Promise<any> => {
    const res = await app.inject({ method: 'GET', url: `/api/v4${url}`, headers: auth });
    return res.statusCode === 200 ? JSON.parse(res.body) : null;
  };
  const settings = (await get('/application/settings')) ?? {};
  const defaultVisibility = (kind: 'group' | 'project') =>
    String(seed.settings?.[`default_${kind}_visibility`] ?? settings[`default_${kind}_visibility`] ?? 'private');

  const users = new Map<string, number>();
  const emails = new Map<string, number>();
  for (const [i, u] of (seed.users ?? []).entries()) {
    const name = String(u.username);
    const email = String(u.email ?? `${name}@example.com`).toLowerCase();
    // A username given twice is that, not also its default email given twice.
    if (users.has(name.toLowerCase())) {
      fail(['users', i, 'username'], `"${name}" is given twice (also users.${users.get(name.toLowerCase())})`);
      continue;
    }
    if ((await get(`/users?username=${enc(name)}`))?.length) fail(['users', i, 'username'], `a user "${name}" exists already`);
    else if ((await get(`/namespaces/${enc(name)}`)) !== null) fail(['users', i, 'username'], `the namespace "${name}" is taken`);
    users.set(name.toLowerCase(), i);
    if (emails.has(email)) fail(['users', i, u.email === undefined ? 'username' : 'email'], `the email ${email} is given twice (also users.${emails.get(email)})`);
    else if (((await get(`/users?search=${enc(email)}`)) ?? []).some((x: any) => String(x.email ?? '').toLowerCase() === email)) {
      fail(['users', i, u.email === undefined ? 'username' : 'email'], `a user with the email ${email} exists already`);
    }
    emails.set(email, i);
  }
  const knownUser = async (name: string) => users.has(name.toLowerCase()) || Boolean((await get(`/users?username=${enc(name)}`))?.length);

  /** Seed groups by full path: their visibility as given or defaulted. */
  const groups = new Map<string, { index: number; visibility: string }>();
  /** A group's visibility: the seed's, or the server's; null when there is no such group. */
  const groupVisibility = async (full: string): Promise<string | null> => groups.get(full)?.visibility ?? (await get(`/groups/${enc(full)}`))?.visibility ?? null;
  const members = async (list: Obj[] | undefined, at: (string | number)[]) => {
    for (const [j, m] of (list ?? []).entries()) if (!(await knownUser(String(m.user)))) fail([...at, 'members', j, 'user'], `no user "${m.user}" in the seed or on the server`);
  };
  for (const [i, g] of (seed.groups ?? []).entries()) {
    const full = String(g.path);
    const parent = full.includes('/') ? full.slice(0, full.lastIndexOf('/')) : null;
    const visibility = String(g.visibility ?? defaultVisibility('group'));
    if (groups.has(full)) fail(['groups', i, 'path'], `"${full}" is given twice (also groups.${groups.get(full)!.index})`);
    else if ((await get(`/namespaces/${enc(full)}`)) !== null || (parent === null && users.has(full.toLowerCase()))) fail(['groups', i, 'path'], `the namespace "${full}" is taken`);
    if (parent !== null) {
      const pv = await groupVisibility(parent);
      if (pv === null) fail(['groups', i, 'path'], `no group "${parent}" above it, in the seed (before this one) or on the server`);
      else if (RANK[visibility]! > RANK[pv]!) fail(['groups', i, g.visibility === undefined ? 'path' : 'visibility'], `${visibility} is wider than its parent group ${parent} (${pv})`);
    }
    groups.set(full, { index: i, visibility });
    await members(g.members as Obj[] | undefined, ['groups', i]);
  }
  const projects = new Map<string, number>();
  for (const [i, p] of (seed.projects ?? []).entries()) {
    const full = String(p.path);
    const ns = full.includes('/') ? full.slice(0, full.lastIndexOf('/')) : null;
    const visibility = String(p.visibility ?? defaultVisibility('project'));
    if (projects.has(full)) fail(['projects', i, 'path'], `"${full}" is given twice (also projects.${projects.get(full)})`);
    else if ((await get(`/projects/${enc(full)}`)) !== null) fail(['projects', i, 'path'], `a project "${full}" exists already`);
    projects.set(full, i);
    if (ns !== null) {
      const gv = await groupVisibility(ns);
      if (gv !== null) {
        if (RANK[visibility]! > RANK[gv]!) fail(['projects', i, p.visibility === undefined ? 'path' : 'visibility'], `${visibility} is wider than its group ${ns} (${gv})`);
      } else if (!users.has(ns.toLowerCase()) && (await get(`/namespaces/${enc(ns)}`)) === null) {
        fail(['projects', i, 'path'], `no namespace "${ns}": not a group or user of the seed, nor one on the server`);
      }
    }
    await members(p.members as Obj[] | undefined, ['projects', i]);
    for (const [j, sh] of ((p.shares as Obj[] | undefined) ?? []).entries()) {
      if (!groups.has(String(sh.group)) && (await get(`/groups/${enc(String(sh.group))}`)) === null) fail(['projects', i, 'shares', j, 'group'], `no group "${sh.group}" in the seed or on the server`);
    }
  }
  if (errors.length) throw new SeedError(errors.join('\n'));
}

/** A client of the app, as root: the answer's body, or a SeedError naming the request. A FormData body goes as multipart. */
function client(app: FastifyInstance, auth: Record<string, string>) {
  return async (method: string, url: string, body?: unknown, what = ''): Promise<any> => {
    const json = body !== undefined && !(body instanceof FormData);
    const res = await app.inject({
      method: method as 'GET',
      url: `/api/v4${url}`,
      headers: { ...auth, ...(json ? { 'content-type': 'application/json' } : {}) },
      payload: json ? JSON.stringify(body) : (body as FormData | undefined),
    });
    if (res.statusCode >= 300) throw new SeedError(`${what ? `${what}: ` : ''}${method} ${url} answered ${res.statusCode}: ${res.body}`);
    return res.body ? JSON.parse(res.body) : null;
  };
}

const enc = encodeURIComponent;

/** Walks a directory: its files as commit actions (base64, so any content). */
function dirActions(dir: string, prefix = ''): Obj[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === '.git') return [];
    const p = path.join(dir, e.name);
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) return dirActions(p, rel);
    return e.isFile() ? [{ action: 'create', file_path: rel, content: fs.readFileSync(p).toString('base64'), encoding: 'base64' }] : [];
  });
}

/** Applies a checked seed through the API with `auth` (an administrator's credential headers). */
export async function applySeed(app: FastifyInstance, c: Container, auth: Record<string, string>, seed: Seed): Promise<void> {
  checkSeedPaths(seed);
  await checkSeedAgainst(app, auth, seed, places.get(seed) ?? ((at) => at.join('.')));
  const api = client(app, auth);
  // Pushed CI files start pipelines only when the seed asks (`pipelines: true`); the rest of the queued work runs now.
  const settle = async () => {
    if (!seed.pipelines) await dropQueuedJobs(c.db, PUSH_PIPELINE_JOB);
    await runDueWork(c);
  };
  /** POST /projects/import with the archive, the import run at once; the imported project. */
  const importProject = async (file: string, namespace: string | null, own: string, name: unknown, what: string) => {
    const form = new FormData();
    form.append('path', own);
    if (namespace !== null) form.append('namespace', namespace);
    if (typeof name === 'string') form.append('name', name);
    form.append('file', new Blob([await fs.promises.readFile(file)], { type: 'application/gzip' }), path.basename(file));
    const { id } = await api('POST', '/projects/import', form, what);
    await settle();
    const status = await api('GET', `/projects/${id}/import`, undefined, what);
    if (status.import_status !== 'finished') {
      throw new SeedError(`${what}: the import of ${file} ${status.import_status}: ${status.import_error ?? 'no reason given'}`);
    }
    return api('GET', `/projects/${id}`, undefined, what);
  };
  const userIds = new Map<string, number>();
  const userId = async (username: string, what: string): Promise<number> => {
    if (!userIds.has(username)) {
      const found = await api('GET', `/users?username=${enc(username)}`, undefined, what);
      if (!found.length) throw new SeedError(`${what}: no user "${username}"`);
      userIds.set(username, found[0].id);
    }
    return userIds.get(username)!;
  };
  const addMembers = async (kind: 'groups' | 'projects', id: number, members: Obj[] | undefined, what: string) => {
    for (const m of members ?? []) {
      await api('POST', `/${kind}/${id}/members`, { user_id: await userId(m.user as string, what), access_level: m.access_level }, what);
    }
  };

  if (seed.settings) await api('PUT', '/application/settings', seed.settings, 'settings');

  for (const [i, u] of (seed.users ?? []).entries()) {
    const what = `users.${i} (${u.username})`;
    const username = u.username as string;
    const created = await api('POST', '/users', {
      username,
      name: u.name ?? username,
      email: u.email ?? `${username}@example.com`,
      ...(u.password ? { password: u.password } : { force_random_password: true }),
      admin: u.admin ?? false,
      external: u.external ?? false,
      skip_confirmation: true,
    }, what);
    userIds.set(username, created.id);
    for (const t of (u.tokens as Obj[] | undefined) ?? []) {
      await issueToken(c, { userId: created.id, name: t.name as string, scopes: t.scopes as string[], expiresAt: (t.expires_at as string) ?? null, token: t.token as string });
    }
    if (u.blocked) await api('POST', `/users/${created.id}/block`, undefined, what);
  }

  const groupIds = new Map<string, number>();
  for (const [i, g] of (seed.groups ?? []).entries()) {
    const full = g.path as string;
    const what = `groups.${i} (${full})`;
    const parent = full.includes('/') ? full.slice(0, full.lastIndexOf('/')) : null;
    const own = full.slice(full.lastIndexOf('/') + 1);
    const parentId = parent === null ? undefined : groupIds.get(parent) ?? (await api('GET', `/groups/${enc(parent)}`, undefined, what)).id;
    const created = await api('POST', '/groups', {
      name: g.name ?? own, path: own, ...(parentId ? { parent_id: parentId } : {}),
      ...(g.visibility ? { visibility: g.visibility } : {}), ...(g.description ? { description: g.description } : {}),
    }, what);
    groupIds.set(full, created.id);
    await addMembers('groups', created.id, g.members as Obj[] | undefined, what);
    for (const v of (g.variables as Obj[] | undefined) ?? []) await api('POST', `/groups/${created.id}/variables`, v, what);
  }

  for (const [i, p] of (seed.projects ?? []).entries()) {
    const full = p.path as string;
    const what = `projects.${i} (${full})`;
    const ns = full.includes('/') ? full.slice(0, full.lastIndexOf('/')) : null;
    const own = full.slice(full.lastIndexOf('/') + 1);
    const attributes = {
      ...((p.settings as Obj | undefined) ?? {}),
      ...(p.visibility ? { visibility: p.visibility } : {}), ...(p.description ? { description: p.description } : {}),
      ...(p.topics ? { topics: p.topics } : {}),
    };
    let project;
    if (p.import) {
      // The archive's attributes, then the seed's.
      project = await importProject(p.import as string, ns, own, p.name, what);
      const patch = { ...attributes, ...(p.default_branch ? { default_branch: p.default_branch } : {}) };
      if (Object.keys(patch).length) project = await api('PUT', `/projects/${project.id}`, patch, what);
    } else {
      const namespaceId = ns === null ? undefined : (await api('GET', `/namespaces/${enc(ns)}`, undefined, what)).id;
      project = await api('POST', '/projects', {
        ...attributes, name: p.name ?? own, path: own, ...(namespaceId ? { namespace_id: namespaceId } : {}),
        default_branch: (p.default_branch as string | undefined) ?? 'main',
      }, what);
    }
    const id = project.id as number;
    const branch = (p.default_branch as string | undefined) ?? (project.default_branch as string | null) ?? 'main';

    if (p.bundle) {
      await fetchBundle(repositoryDir(c, id), p.bundle as string).catch((err: Error) => {
        throw new SeedError(`${what}: the bundle ${p.bundle as string} could not be read: ${err.message}`);
      });
    }
    const actions = [
      ...(p.dir ? dirActions(p.dir as string) : []),
      ...Object.entries((p.files as Obj | undefined) ?? {}).map(([file, content]) => ({ action: 'create', file_path: file, content: String(content) })),
    ];
    if (actions.length) await api('POST', `/projects/${id}/repository/commits`, { branch, commit_message: 'Seed', actions }, what);
    for (const b of (p.branches as Obj[] | undefined) ?? []) {
      const name = typeof b === 'string' ? b : b.name;
      await api('POST', `/projects/${id}/repository/branches`, { branch: name, ref: (typeof b === 'string' ? null : b.ref) ?? branch }, what);
    }
    for (const t of (p.tags as Obj[] | undefined) ?? []) {
      const name = typeof t === 'string' ? t : t.name;
      await api('POST', `/projects/${id}/repository/tags`, { tag_name: name, ref: (typeof t === 'string' ? null : t.ref) ?? branch, ...(typeof t !== 'string' && t.message ? { message: t.message } : {}) }, what);
    }
    for (const pb of (p.protected_branches as Obj[] | undefined) ?? []) {
      // The default branch is protected by the instance's default at the first push: the seed's rule replaces that one.
      const existing = await app.inject({ method: 'GET', url: `/api/v4/projects/${id}/protected_branches/${enc(pb.name as string)}`, headers: auth });
      if (existing.statusCode === 200) await api('DELETE', `/projects/${id}/protected_branches/${enc(pb.name as string)}`, undefined, what);
      await api('POST', `/projects/${id}/protected_branches`, pb, what);
    }
    await addMembers('projects', id, p.members as Obj[] | undefined, what);
    for (const s of (p.shares as Obj[] | undefined) ?? []) {
      const groupId = groupIds.get(s.group as string) ?? (await api('GET', `/groups/${enc(s.group as string)}`, undefined, what)).id;
      await api('POST', `/projects/${id}/share`, { group_id: groupId, group_access: s.group_access, ...(s.expires_at ? { expires_at: s.expires_at } : {}) }, what);
    }
    for (const b of (p.badges as Obj[] | undefined) ?? []) await api('POST', `/projects/${id}/badges`, b, what);
    for (const h of (p.hooks as Obj[] | undefined) ?? []) await api('POST', `/projects/${id}/hooks`, h, what);
    for (const v of (p.variables as Obj[] | undefined) ?? []) await api('POST', `/projects/${id}/variables`, v, what);
  }

  for (const [i, h] of (seed.hooks ?? []).entries()) await api('POST', '/hooks', h, `hooks.${i}`);
  await settle();
}

/** `serve --seed FILE`. */
export async function seedFromFile(app: FastifyInstance, c: Container, token: string, file: string): Promise<void> {
  await applySeed(app, c, { 'private-token': token }, readSeedFile(file));
}
