// Protected tags: list, get, protect (with create entries), unprotect — maintainers and above.
import type { Container } from '../context.js';
import {
  createAccessOf, deleteProtectedTag, findProtectedTagByName, insertProtectedTag, pageProtectedTags, type ProtectedTagRow,
} from '../../db/repos/protected_tags.js';
import type { Actor } from '../auth/actor.js';
import { recordNotFound, unprocessable } from '../errors.js';
import { accessEntriesFromParams, entryDescriber, managedProject, type AccessEntryView, type AccessRequest } from '../protected_branches/service.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';

export interface ProtectedTagView {
  row: ProtectedTagRow;
  create: AccessEntryView[];
}

export interface ProtectTagInput {
  name: string;
  create_access_level?: number;
  allowed_to_create?: AccessRequest[];
}

async function views(c: Container, rows: ProtectedTagRow[]): Promise<ProtectedTagView[]> {
  const entries = await createAccessOf(c.db, rows.map((r) => r.id));
  const describe = await entryDescriber(c, entries);
  return rows.map((row) => ({ row, create: entries.filter((e) => e.protected_tag_id === row.id).map(describe) }));
}

export async function listProtectedTags(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<ProtectedTagView>> {
  const project = await managedProject(c, actor, idOrPath);
  const result = await pageProtectedTags(c.db, project.id, page);
  return { ...result, items: await views(c, result.items) };
}

/** GET by the rule's own name: a tag name or the wildcard as written (`release-*`). */
export async function getProtectedTag(c: Container, actor: Actor, idOrPath: number | string, name: string): Promise<ProtectedTagView> {
  const project = await managedProject(c, actor, idOrPath);
  const row = await findProtectedTagByName(c.db, project.id, name);
  if (!row) throw recordNotFound();
  return (await views(c, [row]))[0];
}

/** POST /projects/:id/protected_tags: validation errors (a taken or blank name) are the reference's 422 list. */
export async function protectTag(c: Container, actor: Actor, idOrPath: number | string, input: ProtectTagInput): Promise<ProtectedTagView> {
  const project = await managedProject(c, actor, idOrPath);
  const errors: string[] = [];
  if (input.name.trim() === '') errors.push("Name can't be blank");
  else if (await findProtectedTagByName(c.db, project.id, input.name)) errors.push('Name has already been taken');
  const entries = await accessEntriesFromParams(c, project, 'Create access levels', input.create_access_level, input.allowed_to_create, errors);
  if (errors.length) throw unprocessable(errors);
  const now = nowIso();
  const row = await insertProtectedTag(c.db, { project_id: project.id, name: input.name, created_at: now, updated_at: now }, entries);
  if (!row) throw unprocessable(['Name has already been taken']);
  return (await views(c, [row]))[0];
}

/** DELETE /projects/:id/protected_tags/:name (If-Unmodified-Since honoured). */
export async function unprotectTag(c: Container, actor: Actor, idOrPath: number | string, name: string, ifUnmodifiedSince: Date | null): Promise<void> {
  const project = await managedProject(c, actor, idOrPath);
  const row = await findProtectedTagByName(c.db, project.id, name);
  if (!row) throw recordNotFound();
  checkUnmodifiedSince(row.updated_at, ifUnmodifiedSince);
  await deleteProtectedTag(c.db, row.id);
}
