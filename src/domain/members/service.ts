// Members of a group or a project: one function per operation. A source is named by its kind
// and id or path; resolveSource finds it, checks the caller may see it and says who may manage it.
import type { Container } from '../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import {
  countOwners,
  deleteMember,
  findMember,
  findMemberRow,
  insertMember,
  membershipsIn,
  pageMembers,
  updateMember,
  type MemberRow,
  type SourceRef,
} from '../../db/repos/members.js';
import { findNamespaceById, findNamespacesByIds } from '../../db/repos/namespaces.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import type { Actor } from '../auth/actor.js';
import { conflict, forbidden, invalidParams, notFound, recordNotFound, validation } from '../errors.js';
import { recordEvent } from '../events/service.js';
import { findGroup } from '../groups/find.js';
import { findProject } from '../projects/find.js';
import { sharedGroupChainIds } from '../projects/shared_access.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { isDate, nowIso, today } from '../../shared/time.js';
import { inTransaction } from '../../db/transaction.js';
import { memberSystemEvent } from '../hooks/events.js';
import { ACCESS, ACCESS_NAMES, canActOnLevel, canManageMembers, selfAndAncestorIds } from './policy.js';

export type SourceSpec = { kind: 'group' | 'project'; id: number | string };

interface ResolvedSource {
  ref: SourceRef;
  /** The source and the groups whose members it inherits, nearest first (a project: itself only). */
  chainIds: number[];
  /** A project's namespace group and the groups above it, nearest first (their members are its members too). */
  groupIds: number[];
  /** Groups a project is shared with, and the groups above them (their members are listed in /members/all). */
  invitedGroupIds: number[];
  /** The actor's effective level in the source. */
  level: number;
  admin: boolean;
}

async function resolveSource(c: Container, actor: Actor | null, spec: SourceSpec): Promise<ResolvedSource> {
  if (spec.kind === 'project') {
    const { row, access } = await findProject(c, actor, spec.id);
    const ns = await findNamespaceById(c.db, row.namespace_id);
    return {
      ref: { type: 'Project', id: row.id },
      chainIds: [row.id],
      groupIds: ns && ns.kind === 'group' ? await selfAndAncestorIds(c, ns) : [],
      invitedGroupIds: await sharedGroupChainIds(c, row.id),
      level: access.level,
      admin: access.admin,
    };
  }
  const { row, access } = await findGroup(c, actor, spec.id);
  return { ref: { type: 'Namespace', id: row.id }, chainIds: await selfAndAncestorIds(c, row), groupIds: [], invitedGroupIds: [], level: access.level, admin: access.admin };
}

/** Group memberships that count as memberships of the source in /members/all (projects only). */
const inheritedGroupIds = (s: ResolvedSource) => [...new Set([...s.groupIds, ...s.invitedGroupIds])];

function requireManager(s: ResolvedSource): void {
  if (!canManageMembers(s.ref.type, s)) throw forbidden();
}

/** A member lookup that misses answers as the reference's record lookup does. */

export interface MemberView {
  row: MemberRow;
  user: UserRow;
  createdBy: UserRow | null;
}

async function views(c: Container, rows: MemberRow[]): Promise<MemberView[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.created_by_id === null ? [r.user_id] : [r.user_id, r.created_by_id])))];
  const users = new Map<number, UserRow>();
  for (const id of ids) {
    const u = await findUserById(c.db, id);
    if (u) users.set(id, u);
  }
  return rows.flatMap((row) => {
    const user = users.get(row.user_id);
    return user ? [{ row, user, createdBy: row.created_by_id !== null ? (users.get(row.created_by_id) ?? null) : null }] : [];
  });
}

export interface ListMembersInput {
  query?: string;
  user_ids?: number[];
  skip_users?: number[];
}

/** GET …/members (direct) and …/members/all (with inherited members; the highest level wins). */
export async function listMembers(
  c: Container,
  actor: Actor,
  spec: SourceSpec,
  input: ListMembersInput,
  page: PageRequest,
  opts: { inherited: boolean },
): Promise<PageResult<MemberView>> {
  const s = await resolveSource(c, actor, spec);
  const result = await pageMembers(
    c.db,
    {
      type: s.ref.type,
      sourceIds: opts.inherited ? s.chainIds : [s.ref.id],
      namespaceIds: opts.inherited ? inheritedGroupIds(s) : undefined,
      today: today(),
      query: input.query || undefined,
      userIds: input.user_ids,
      skipUsers: input.skip_users,
    },
    page,
  );
  return { ...result, items: await views(c, result.items) };
}

export async function getMember(c: Container, actor: Actor, spec: SourceSpec, userId: number, opts: { inherited: boolean }): Promise<MemberView> {
  const s = await resolveSource(c, actor, spec);
  const page = await pageMembers(
    c.db,
    { type: s.ref.type, sourceIds: opts.inherited ? s.chainIds : [s.ref.id], namespaceIds: opts.inherited ? inheritedGroupIds(s) : undefined, today: today(), userId },
    { kind: 'offset', page: 1, perPage: 1 },
  );
  if (!page.items.length) throw recordNotFound();
  return (await views(c, page.items))[0];
}

/** `YYYY-MM-DD` (a full timestamp is cut to its date, as a date column stores it). */
function parseExpiresAt(v: string | undefined | null): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  const d = v.slice(0, 10);
  if (!isDate(d) || (v.length > 10 && Number.isNaN(Date.parse(v)))) throw invalidParams('expires_at is invalid');
  return d;
}

/** Model validations of a membership: future expiry; not below the level inherited from a parent group. */
async function memberErrors(c: Container, s: ResolvedSource, userId: number, level: number, expiresAt: string | null): Promise<void> {
  const errors: Record<string, string[]> = {};
  if (expiresAt !== null && expiresAt < today()) errors.expires_at = ['cannot be a date in the past'];
  const above = s.ref.type === 'Project' ? s.groupIds : s.chainIds.filter((id) => id !== s.ref.id);
  const inherited = (await membershipsIn(c.db, userId, 'Namespace', above, today())).sort((a, b) => b.access_level - a.access_level)[0];
  if (inherited && inherited.access_level > level) {
    const [group] = await findNamespacesByIds(c.db, [inherited.source_id]);
    errors.access_level = [`should be greater than or equal to ${ACCESS_NAMES[inherited.access_level]} inherited membership from group ${group?.name ?? ''}`];
  }
  if (Object.keys(errors).length) throw validation(errors);
}

export interface AddMemberInput {
  user_id: number;
  access_level: number;
  expires_at?: string;
}

/** POST …/members. Managers only; nobody grants a level above their own (admins excepted). */
export async function addMember(c: Container, actor: Actor, spec: SourceSpec, input: AddMemberInput): Promise<MemberView> {
  const s = await resolveSource(c, actor, spec);
  requireManager(s);
  const user = await findUserById(c.db, input.user_id);
  if (!user) throw notFound('User');
  if (await findMember(c.db, s.ref, user.id, today())) throw conflict('Member already exists');
  if (!canActOnLevel(s, input.access_level)) throw forbidden();
  const expiresAt = parseExpiresAt(input.expires_at) ?? null;
  await memberErrors(c, s, user.id, input.access_level, expiresAt);

  const now = nowIso();
  const stale = await findMemberRow(c.db, s.ref, user.id); // an expired membership counts as none: reuse its row
  try {
    const row = await inTransaction(c.db, async (tx) => {
      const added = stale
        ? await updateMember(tx, stale.id, { access_level: input.access_level, expires_at: expiresAt, created_by_id: actor.user.id, created_at: now, updated_at: now })
        : await insertMember(tx, {
            source_type: s.ref.type,
            source_id: s.ref.id,
            user_id: user.id,
            access_level: input.access_level,
            expires_at: expiresAt,
            created_by_id: actor.user.id,
            created_at: now,
            updated_at: now,
          });
      await memberSystemEvent(c, tx, 'add', added);
      return added;
    });
    // A project records who joined it (its events list shows them), as the reference does.
    if (s.ref.type === 'Project') await recordEvent(c, { action: 'joined', authorId: user.id, projectId: s.ref.id });
    return (await views(c, [row]))[0];
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('Member already exists');
    throw err;
  }
}

async function isLastOwner(c: Container, s: ResolvedSource, member: MemberRow): Promise<boolean> {
  if (member.access_level < ACCESS.OWNER) return false;
  return (await countOwners(c.db, s.ref.type, s.chainIds, today())) <= 1;
}

export interface UpdateMemberInput {
  access_level: number;
  expires_at?: string | null;
}

/** PUT …/members/:user_id. The last owner may not be demoted. */
export async function changeMember(c: Container, actor: Actor, spec: SourceSpec, userId: number, input: UpdateMemberInput): Promise<MemberView> {
  const s = await resolveSource(c, actor, spec);
  requireManager(s);
  const member = await findMember(c.db, s.ref, userId, today());
  if (!member) throw recordNotFound();
  if (!canActOnLevel(s, input.access_level) || !canActOnLevel(s, member.access_level)) throw forbidden();
  if (input.access_level < member.access_level && (await isLastOwner(c, s, member))) throw forbidden();
  const expiresAt = parseExpiresAt(input.expires_at);
  await memberErrors(c, s, userId, input.access_level, expiresAt === undefined ? null : expiresAt);
  const row = await inTransaction(c.db, async (tx) => {
    const updated = await updateMember(tx, member.id, {
      access_level: input.access_level,
      ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
      updated_at: nowIso(),
    });
    await memberSystemEvent(c, tx, 'update', updated);
    return updated;
  });
  return (await views(c, [row]))[0];
}

/** DELETE …/members/:user_id: managers, or members leaving; never the last owner. */
export async function removeMember(c: Container, actor: Actor, spec: SourceSpec, userId: number): Promise<void> {
  const s = await resolveSource(c, actor, spec);
  const self = actor.user.id === userId;
  if (!self) requireManager(s);
  const member = await findMember(c.db, s.ref, userId, today());
  if (!member) throw recordNotFound();
  if (!self && !canActOnLevel(s, member.access_level)) throw forbidden();
  if (await isLastOwner(c, s, member)) throw forbidden();
  await inTransaction(c.db, async (tx) => {
    await memberSystemEvent(c, tx, 'remove', member);
    await deleteMember(tx, member.id);
  });
  if (s.ref.type === 'Project') await recordEvent(c, { action: 'left', authorId: userId, projectId: s.ref.id });
}
