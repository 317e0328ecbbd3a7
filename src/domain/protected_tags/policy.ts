// Which protected tag rules apply to a tag, and who may create (and so push or delete) it.
//
// Matching is the protected branches' one (ProtectedRefMatcher: the exact name, or a wildcard
// where `*` is any run of characters); every matching rule counts and the most permissive wins.
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { createAccessOf, protectedTagsOf, type CreateAccessRow, type ProtectedTagRow } from '../../db/repos/protected_tags.js';
import { canPushCode } from '../projects/policy.js';
import { anyEntryAllows, groupBy, rulesFor, type Pusher } from '../protected_branches/policy.js';

/** A project's tag rules with their create entries, loaded once and matched many times. */
export interface TagProtectionSet {
  rules: ProtectedTagRow[];
  entries: Map<number, CreateAccessRow[]>;
}

export async function loadTagProtection(c: Container, projectId: number): Promise<TagProtectionSet> {
  const rules = await protectedTagsOf(c.db, projectId);
  return { rules, entries: groupBy(await createAccessOf(c.db, rules.map((r) => r.id)), (e) => e.protected_tag_id) };
}

/** The rules that apply to a tag: the exact name first, then matching wildcards in creation order. */
export const matchingTagRules = (set: TagProtectionSet, tag: string): ProtectedTagRow[] => rulesFor(set.rules, tag);

export const isProtectedTag = (set: TagProtectionSet, tag: string): boolean => matchingTagRules(set, tag).length > 0;

/**
 * The reference's UserAccess#can_create_tag?: nobody anonymous, nothing in an archived project; a
 * protected tag needs a create entry of a matching rule that lets the user through; any other tag
 * developer access (admin_tag).
 */
export async function canCreateTag(c: Container, who: Pusher | null, project: ProjectRow, set: TagProtectionSet, tag: string): Promise<boolean> {
  if (!who || project.archived === 1) return false;
  const rules = matchingTagRules(set, tag);
  if (rules.length === 0) return canPushCode(project, who.access);
  return anyEntryAllows(c, who, rules.flatMap((r) => set.entries.get(r.id) ?? []));
}
