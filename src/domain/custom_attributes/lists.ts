// What the user, group and project lists need from custom attributes: the admin-only filter
// `custom_attributes[key]=value` and `with_custom_attributes` on the items. Kept apart from the
// endpoints' service so the lists can use it without importing the areas it resolves subjects in.
import type { Container } from '../context.js';
import { customAttributesOf, type CustomAttributeFilter, type CustomAttributeKind } from '../../db/repos/custom_attributes.js';
import { isAdmin, type Actor } from '../auth/actor.js';

export interface CustomAttributeView {
  key: string;
  value: string;
}

/**
 * The list filter, for admins only: the reference ignores it for everyone else. Each value is a
 * string (`custom_attributes[k]=v`) or a list of them (`custom_attributes[k][]=v`, any matches).
 */
export function customAttributeFilter(actor: Actor | null, raw: Record<string, unknown> | undefined): CustomAttributeFilter | undefined {
  if (!raw || !isAdmin(actor)) return undefined;
  const pairs: CustomAttributeFilter = Object.entries(raw).map(([key, v]) => [key, (Array.isArray(v) ? v : [v]).map((x) => String(x))]);
  return pairs.length ? pairs : undefined;
}

/**
 * Adds `customAttributes` to each item when an admin asked `with_custom_attributes` (one query
 * for the whole page); otherwise returns the items unchanged, and the field stays absent.
 */
export async function withCustomAttributes<V extends object>(
  c: Container,
  actor: Actor | null,
  kind: CustomAttributeKind,
  items: V[],
  wanted: boolean | undefined,
  idOf: (v: V) => number,
): Promise<(V & { customAttributes?: CustomAttributeView[] })[]> {
  if (!wanted || !isAdmin(actor) || items.length === 0) return items;
  const byId = await customAttributesOf(c.db, kind, items.map(idOf));
  return items.map((v) => ({ ...v, customAttributes: (byId.get(idOf(v)) ?? []).map((r) => ({ key: r.key, value: r.value })) }));
}
