// Labels of projects and groups: list (a project's own and its groups'), get, create, change,
// delete, prioritise, subscribe, promote a project label to its group; and what issues and merge
// requests use to put labels on themselves (by title).
import type { Container } from '../context.js';
import {
  changeTargetLabels, deleteLabel, findLabelOf, findOwnLabelByTitle, insertLabel, labelsByTitles, labelsOfTargets, mergeLabelInto, pageLabels,
  prioritiesIn, projectLabelsTitled, setPriority, updateLabel, type LabelOwners, type LabelRow, type LabelTargetType,
} from '../../db/repos/labels.js';
import { findNamespaceById, findSelfAndDescendants, type NamespaceRow } from '../../db/repos/namespaces.js';
import { projectIdsInNamespaces } from '../../db/repos/project_lifecycle.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { setSubscription, subscriptionsOf } from '../../db/repos/subscriptions.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Actor } from '../auth/actor.js';
import { apiError, conflict, forbidden, notFound, notModified, validation } from '../errors.js';
import { findGroup } from '../groups/find.js';
import { groupAccess, selfAndAncestorIds } from '../members/policy.js';
import { findProject } from '../projects/find.js';
import { ensureWritable } from '../projects/policy.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { labelIssueCounts } from './counts.js';
import { normalizeColor } from './color.js';
import { canAdminGroupLabels, canAdminProjectLabels } from './policy.js';

export type LabelParentType = 'project' | 'group';

export interface LabelCounts {
  open_issues_count: number;
  closed_issues_count: number;
  open_merge_requests_count: number;
}

export interface LabelView {
  row: LabelRow;
  subscribed: boolean;
  /** Its priority in the project it is seen from (null: none, or seen from a group). */
  priority: number | null;
  counts: LabelCounts | null;
}

interface Parent {
  type: LabelParentType;
  project: ProjectRow | null;
  group: NamespaceRow | null;
  canAdmin: boolean;
}

async function findParent(c: Container, actor: Actor, type: LabelParentType, idOrPath: number | string): Promise<Parent> {
  if (type === 'project') {
    const { row, access } = await findProject(c, actor, idOrPath);
    return { type, project: row, group: null, canAdmin: canAdminProjectLabels(access) };
  }
  const { row, access } = await findGroup(c, actor, idOrPath);
  return { type, project: null, group: row, canAdmin: canAdminGroupLabels(access) };
}

async function managedParent(c: Container, actor: Actor, type: LabelParentType, idOrPath: number | string): Promise<Parent> {
  const p = await findParent(c, actor, type, idOrPath);
  if (!p.canAdmin) throw forbidden();
  if (p.project) ensureWritable(p.project);
  return p;
}

/** The group of a project's namespace and the groups above it, nearest first (none for a personal project). */
export async function projectGroupIds(c: Container, project: ProjectRow): Promise<number[]> {
  const ns = await findNamespaceById(c.db, project.namespace_id);
  return ns && ns.kind === 'group' ? selfAndAncestorIds(c, ns) : [];
}

/** The labels a project can use: its own and those of its groups. */
export async function projectLabelOwners(c: Container, project: ProjectRow, includeAncestors = true): Promise<LabelOwners> {
  return { projectIds: [project.id], groupIds: includeAncestors ? await projectGroupIds(c, project) : [] };
}

export interface ListOptions {
  with_counts?: boolean;
  include_ancestor_groups?: boolean;
  include_descendant_groups?: boolean;
  only_group_labels?: boolean;
  search?: string;
}

async function ownersOf(c: Container, actor: Actor, p: Parent, o: ListOptions): Promise<LabelOwners> {
  const ancestors = o.include_ancestor_groups ?? true;
  if (p.project) return projectLabelOwners(c, p.project, ancestors);
  const group = p.group!;
  let groupIds = ancestors ? await selfAndAncestorIds(c, group) : [group.id];
  if (o.include_descendant_groups) {
    const below = (await findSelfAndDescendants(c.db, group)).filter((g) => g.id !== group.id);
    const readable: number[] = [];
    for (const g of below) if ((await groupAccess(c, actor, g)).canRead) readable.push(g.id);
    groupIds = [...groupIds, ...readable];
  }
  // only_group_labels=false: the labels of the group's projects (and its subgroups' when asked) too.
  const projectIds = o.only_group_labels === false ? await projectIdsInNamespaces(c.db, o.include_descendant_groups ? groupIds : [group.id]) : [];
  return { projectIds, groupIds };
}

/** Labels as seen from their parent: subscription, priority in the project, counts when asked. */
export async function labelViews(c: Container, actor: Actor | null, rows: LabelRow[], from: ProjectRow | null, withCounts = false): Promise<LabelView[]> {
  const ids = rows.map((r) => r.id);
  const subs = actor ? await subscriptionsOf(c.db, actor.user.id, 'Label', ids, from ? [0, from.id] : [0]) : new Map<number, boolean>();
  const prios = from ? await prioritiesIn(c.db, from.id, ids) : new Map<number, number>();
  const counts = withCounts ? await labelIssueCounts(c, actor, rows) : null;
  return rows.map((row) => ({
    row,
    subscribed: subs.get(row.id) ?? false,
    priority: prios.get(row.id) ?? null,
    counts: counts ? (counts.get(row.id) ?? { open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0 }) : null,
  }));
}

export async function listLabels(
  c: Container,
  actor: Actor,
  type: LabelParentType,
  idOrPath: number | string,
  o: ListOptions,
  page: PageRequest,
): Promise<PageResult<LabelView>> {
  const p = await findParent(c, actor, type, idOrPath);
  const result = await pageLabels(c.db, await ownersOf(c, actor, p, o), o.search, page);
  return { ...result, items: await labelViews(c, actor, result.items, p.project, o.with_counts ?? false) };
}

const labelNotFound = () => notFound('Label');

async function findLabelIn(c: Container, p: Parent, idOrTitle: string, includeAncestors: boolean): Promise<LabelRow> {
  const owners: LabelOwners = p.project
    ? await projectLabelOwners(c, p.project, includeAncestors)
    : { projectIds: [], groupIds: includeAncestors ? await selfAndAncestorIds(c, p.group!) : [p.group!.id] };
  const row = await findLabelOf(c.db, owners, idOrTitle);
  if (!row) throw labelNotFound();
  return row;
}

export async function getLabel(c: Container, actor: Actor, type: LabelParentType, idOrPath: number | string, idOrTitle: string, includeAncestors = true): Promise<LabelView> {
  const p = await findParent(c, actor, type, idOrPath);
  return (await labelViews(c, actor, [await findLabelIn(c, p, idOrTitle, includeAncestors)], p.project))[0];
}

export interface LabelInput {
  name?: string;
  new_name?: string;
  color?: string;
  description?: string | null;
  priority?: number | null;
}

function checkedFields(input: { title?: string; color?: string }): { title?: string; color?: string } {
  const errors: Record<string, string[]> = {};
  const out: { title?: string; color?: string } = {};
  if (input.title !== undefined) {
    const t = input.title.trim();
    if (t === '') errors.title = ["can't be blank", 'is invalid'];
    else if (t.includes(',')) errors.title = ['is invalid'];
    else out.title = t;
  }
  if (input.color !== undefined) {
    const color = normalizeColor(input.color);
    if (!color) errors.color = ['must be a valid color code'];
    else out.color = color;
  }
  if (Object.keys(errors).length) throw validation(errors);
  return out;
}

export async function createLabel(c: Container, actor: Actor, type: LabelParentType, idOrPath: number | string, input: LabelInput): Promise<LabelView> {
  const p = await managedParent(c, actor, type, idOrPath);
  const owners: LabelOwners = p.project ? await projectLabelOwners(c, p.project) : { projectIds: [], groupIds: await selfAndAncestorIds(c, p.group!) };
  if ((await labelsByTitles(c.db, owners, [input.name ?? ''])).length) throw conflict('Label already exists');
  const fields = checkedFields({ title: input.name ?? '', color: input.color ?? '' });
  const now = nowIso();
  let row: LabelRow;
  try {
    row = await insertLabel(c.db, {
      project_id: p.project?.id ?? null,
      group_id: p.group?.id ?? null,
      title: fields.title!,
      color: fields.color!,
      description: input.description ?? null,
      created_at: now,
      updated_at: now,
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict('Label already exists');
    throw e;
  }
  if (p.project && input.priority !== undefined && input.priority !== null) await setPriority(c.db, p.project.id, row.id, input.priority);
  return (await labelViews(c, actor, [row], p.project))[0];
}

/** PUT …/labels/:name: the parent's own labels only (a group label is changed through its group). */
export async function changeLabel(
  c: Container,
  actor: Actor,
  type: LabelParentType,
  idOrPath: number | string,
  idOrTitle: string,
  input: LabelInput,
): Promise<LabelView> {
  const p = await managedParent(c, actor, type, idOrPath);
  let row = await findLabelIn(c, p, idOrTitle, false);
  const fields = checkedFields({ title: input.new_name, color: input.color });
  const patch: Record<string, unknown> = {};
  if (fields.title !== undefined && fields.title !== row.title) {
    const owner = row.project_id !== null ? { project_id: row.project_id } : { group_id: row.group_id! };
    if (await findOwnLabelByTitle(c.db, owner, fields.title)) throw validation({ title: ['has already been taken'] });
    patch.title = fields.title;
  }
  if (fields.color !== undefined) patch.color = fields.color;
  if (input.description !== undefined) patch.description = input.description;
  if (Object.keys(patch).length) {
    try {
      row = await updateLabel(c.db, row.id, { ...patch, updated_at: nowIso() });
    } catch (e) {
      if (isUniqueViolation(e)) throw validation({ title: ['has already been taken'] });
      throw e;
    }
  }
  if (p.project && input.priority !== undefined) await setPriority(c.db, p.project.id, row.id, input.priority);
  return (await labelViews(c, actor, [row], p.project))[0];
}

export async function removeLabel(c: Container, actor: Actor, type: LabelParentType, idOrPath: number | string, idOrTitle: string): Promise<void> {
  const p = await managedParent(c, actor, type, idOrPath);
  const row = await findLabelIn(c, p, idOrTitle, false);
  await deleteLabel(c.db, row.id);
}

/**
 * PUT /projects/:id/labels/:name/promote: the project label becomes a label of the project's
 * group; the group's projects' labels of that title merge into it (their issues, merge requests,
 * priorities and subscriptions move over).
 */
export async function promoteLabel(c: Container, actor: Actor, idOrPath: number | string, idOrTitle: string): Promise<LabelView> {
  const { row: project, access } = await findProject(c, actor, idOrPath);
  const ns = await findNamespaceById(c.db, project.namespace_id);
  if (!ns || ns.kind !== 'group') throw apiError('Failed to promote project label to group label', 400);
  if (!canAdminGroupLabels(await groupAccess(c, actor, ns)) && !access.admin) throw forbidden();
  const label = await findLabelIn(c, { type: 'project', project, group: null, canAdmin: true }, idOrTitle, false);
  const now = nowIso();
  let groupLabel = await findOwnLabelByTitle(c.db, { group_id: ns.id }, label.title);
  groupLabel ??= await insertLabel(c.db, { project_id: null, group_id: ns.id, title: label.title, color: label.color, description: label.description, created_at: now, updated_at: now });
  for (const same of await projectLabelsTitled(c.db, await projectIdsInNamespaces(c.db, [ns.id]), label.title)) await mergeLabelInto(c.db, same.id, groupLabel.id);
  return (await labelViews(c, actor, [groupLabel], null))[0];
}

/** POST …/labels/:id/subscribe and unsubscribe; 304 when nothing changes. */
export async function subscribeLabel(
  c: Container,
  actor: Actor,
  type: LabelParentType,
  idOrPath: number | string,
  idOrTitle: string,
  subscribed: boolean,
): Promise<LabelView> {
  const p = await findParent(c, actor, type, idOrPath);
  const row = await findLabelIn(c, p, idOrTitle, true);
  const [view] = await labelViews(c, actor, [row], p.project);
  if (view.subscribed === subscribed) throw notModified();
  if (subscribed) await setSubscription(c.db, actor.user.id, 'Label', row.id, p.project?.id ?? 0, true, nowIso());
  else {
    // Unsubscribing ends the label's subscriptions everywhere the caller has one.
    await setSubscription(c.db, actor.user.id, 'Label', row.id, 0, false, nowIso());
    if (p.project) await setSubscription(c.db, actor.user.id, 'Label', row.id, p.project.id, false, nowIso());
  }
  return { ...view, subscribed };
}

// ---- labels on issues and merge requests ----

/**
 * The labels of a project named by title, for an issue or merge request. Titles no label has are
 * created as project labels when the actor may manage labels (as the reference does), else skipped.
 */
export async function labelsForTitles(c: Container, project: ProjectRow, titles: string[], createMissing: boolean): Promise<LabelRow[]> {
  const wanted = [...new Set(titles.map((t) => t.trim()).filter(Boolean))];
  if (wanted.length === 0) return [];
  const owners = await projectLabelOwners(c, project);
  const found = await labelsByTitles(c.db, owners, wanted);
  const byTitle = new Map<string, LabelRow>();
  for (const l of found) if (!byTitle.has(l.title) || l.project_id !== null) byTitle.set(l.title, l);
  if (createMissing) {
    const now = nowIso();
    for (const t of wanted) {
      if (byTitle.has(t) || t.includes(',')) continue;
      try {
        byTitle.set(t, await insertLabel(c.db, { project_id: project.id, group_id: null, title: t, color: DEFAULT_LABEL_COLOR, description: null, created_at: now, updated_at: now }));
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        const again = await findOwnLabelByTitle(c.db, { project_id: project.id }, t);
        if (again) byTitle.set(t, again);
      }
    }
  }
  return wanted.map((t) => byTitle.get(t)).filter((l): l is LabelRow => l !== undefined);
}

/** The reference's default colour for a label created by naming it on an issue. */
export const DEFAULT_LABEL_COLOR = '#6699cc';

export { labelsOfTargets, type LabelTargetType };

/** Puts labels (by id) on an issue or merge request and takes others off; what changed. */
export const changeLabelsOf = (c: Container, type: LabelTargetType, targetId: number, add: number[], remove: number[]) =>
  changeTargetLabels(c.db, type, targetId, add, remove, nowIso());
