// Custom attributes [admin]: key/value pairs on users, groups and projects. One implementation
// for the three kinds; only finding the subject differs.
import type { Container } from '../context.js';
import {
  deleteCustomAttribute as deleteRow,
  findCustomAttribute,
  listCustomAttributes,
  upsertCustomAttribute,
  type CustomAttributeKind,
} from '../../db/repos/custom_attributes.js';
import { findUserById } from '../../db/repos/users.js';
import { requireAdmin, type Actor } from '../auth/actor.js';
import { notFound, recordNotFound, validation } from '../errors.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { findGroup } from '../groups/find.js';
import { findProject } from '../projects/find.js';
import { nowIso } from '../../shared/time.js';
import type { CustomAttributeView } from './lists.js';

export type { CustomAttributeKind } from '../../db/repos/custom_attributes.js';

/** The subject's id; an unknown one is 404 `User`, `Group` or `Project Not Found`. */
async function subjectId(c: Container, actor: Actor, kind: CustomAttributeKind, id: number | string): Promise<number> {
  switch (kind) {
    case 'user': {
      const user = /^\d+$/.test(String(id)) ? await findUserById(c.db, Number(id)) : undefined;
      if (!user) throw notFound('User');
      return user.id;
    }
    case 'group':
      return (await findGroup(c, actor, id)).row.id;
    case 'project':
      return (await findProject(c, actor, id)).row.id;
  }
}

/** A missing key answers as the reference's record lookup does. */

const view = (r: { key: string; value: string }): CustomAttributeView => ({ key: r.key, value: r.value });

/** GET /{kind}s/:id/custom_attributes */
export async function listAttributes(c: Container, actor: Actor | null, kind: CustomAttributeKind, id: number | string): Promise<CustomAttributeView[]> {
  const admin = requireAdmin(actor);
  return (await listCustomAttributes(c.db, kind, await subjectId(c, admin, kind, id))).map(view);
}

/** GET /{kind}s/:id/custom_attributes/:key */
export async function getAttribute(c: Container, actor: Actor | null, kind: CustomAttributeKind, id: number | string, key: string): Promise<CustomAttributeView> {
  const admin = requireAdmin(actor);
  const row = await findCustomAttribute(c.db, kind, await subjectId(c, admin, kind, id), key);
  if (!row) throw recordNotFound();
  return view(row);
}

/** PUT /{kind}s/:id/custom_attributes/:key: creates the attribute or changes its value. */
export async function setAttribute(
  c: Container,
  actor: Actor | null,
  kind: CustomAttributeKind,
  id: number | string,
  key: string,
  value: string,
): Promise<CustomAttributeView> {
  const admin = requireAdmin(actor);
  const subject = await subjectId(c, admin, kind, id);
  // The reference's model validates presence of both (a blank string is not present).
  const errors: Record<string, string[]> = {};
  if (key.trim() === '') errors.key = ["can't be blank"];
  if (value.trim() === '') errors.value = ["can't be blank"];
  if (Object.keys(errors).length) throw validation(errors);
  return view(await upsertCustomAttribute(c.db, kind, subject, key, value, nowIso()));
}

/** DELETE /{kind}s/:id/custom_attributes/:key */
export async function deleteAttribute(
  c: Container,
  actor: Actor | null,
  kind: CustomAttributeKind,
  id: number | string,
  key: string,
  ifUnmodifiedSince: Date | null = null,
): Promise<void> {
  const admin = requireAdmin(actor);
  const subject = await subjectId(c, admin, kind, id);
  const row = await findCustomAttribute(c.db, kind, subject, key);
  if (!row) throw recordNotFound();
  checkUnmodifiedSince(row.updated_at, ifUnmodifiedSince);
  if (!(await deleteRow(c.db, kind, subject, key))) throw recordNotFound();
}
