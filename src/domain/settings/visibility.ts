// Instance settings about visibility that several areas apply: the levels administrators have
// restricted (`restricted_visibility_levels`) and the default for new groups.
import type { Container } from '../context.js';
import { isAdmin, type Actor } from '../auth/actor.js';
import { VISIBILITY, visibilityName, type VisibilityName } from '../members/policy.js';
import { getSettings } from './service.js';

const LEVEL_BY_NAME: Record<string, number> = { private: VISIBILITY.private, internal: VISIBILITY.internal, public: VISIBILITY.public };

/** The restricted levels as numbers (stored as names; numeric strings count too). */
export async function restrictedLevels(c: Container): Promise<number[]> {
  return ((await getSettings(c)).restricted_visibility_levels ?? []).map((v) => LEVEL_BY_NAME[String(v)] ?? Number(v));
}

/**
 * The reference's deny_visibility_level message when `actor` may not use `level` (restricted and
 * not an administrator), else null.
 */
export async function visibilityRestrictionError(c: Container, actor: Actor, level: number): Promise<string | null> {
  if (isAdmin(actor) || !(await restrictedLevels(c)).includes(level)) return null;
  const name = visibilityName(level);
  return `${name[0].toUpperCase()}${name.slice(1)} has been restricted by your administrator`;
}

/** `default_group_visibility` as a level. */
export async function defaultGroupVisibility(c: Container): Promise<number> {
  const v = (await getSettings(c)).default_group_visibility as VisibilityName | null;
  return LEVEL_BY_NAME[v ?? 'private'] ?? VISIBILITY.private;
}
