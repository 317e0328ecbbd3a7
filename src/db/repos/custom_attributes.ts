// Custom attributes of users, groups and projects: one table, the kind says whose they are.
import { sql, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { CustomAttributesTable, DB } from '../schema.js';

export type CustomAttributeKind = 'user' | 'group' | 'project';
export type CustomAttributeRow = Selectable<CustomAttributesTable>;

/** `custom_attributes[key]=value` pairs; a list of values matches any of them. */
export type CustomAttributeFilter = [key: string, values: string[]][];

export const listCustomAttributes = (db: Kysely<DB>, kind: CustomAttributeKind, subjectId: number) =>
  db.selectFrom('custom_attributes').selectAll().where('kind', '=', kind).where('subject_id', '=', subjectId).orderBy('id').execute();

export const findCustomAttribute = (db: Kysely<DB>, kind: CustomAttributeKind, subjectId: number, key: string) =>
  db
    .selectFrom('custom_attributes')
    .selectAll()
    .where('kind', '=', kind)
    .where('subject_id', '=', subjectId)
    .where('key', '=', key)
    .executeTakeFirst();

/** Creates the attribute or changes its value, in one statement (concurrent writers cannot both insert). */
export async function upsertCustomAttribute(
  db: Kysely<DB>,
  kind: CustomAttributeKind,
  subjectId: number,
  key: string,
  value: string,
  now: string,
): Promise<CustomAttributeRow> {
  return db
    .insertInto('custom_attributes')
    .values({ kind, subject_id: subjectId, key, value, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['kind', 'subject_id', 'key']).doUpdateSet({ value, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** True when there was such an attribute. */
export async function deleteCustomAttribute(db: Kysely<DB>, kind: CustomAttributeKind, subjectId: number, key: string): Promise<boolean> {
  const r = await db
    .deleteFrom('custom_attributes')
    .where('kind', '=', kind)
    .where('subject_id', '=', subjectId)
    .where('key', '=', key)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The attributes of many subjects at once, in creation order per subject. */
export async function customAttributesOf(db: Kysely<DB>, kind: CustomAttributeKind, subjectIds: number[]): Promise<Map<number, CustomAttributeRow[]>> {
  const out = new Map<number, CustomAttributeRow[]>();
  if (subjectIds.length === 0) return out;
  const rows = await db
    .selectFrom('custom_attributes')
    .selectAll()
    .where('kind', '=', kind)
    .where('subject_id', 'in', [...new Set(subjectIds)])
    .orderBy('id')
    .execute();
  for (const r of rows) out.set(r.subject_id, [...(out.get(r.subject_id) ?? []), r]);
  return out;
}

/** One EXISTS condition per pair: the subject in `idColumn` has every attribute asked for. */
export function customAttributesCondition(kind: CustomAttributeKind, idColumn: string, filter: CustomAttributeFilter) {
  const conditions = filter.map(([key, values]) =>
    values.length === 0
      ? sql<SqlBool>`1 = 0`
      : sql<SqlBool>`EXISTS (SELECT 1 FROM custom_attributes ca WHERE ca.kind = ${kind} AND ca.subject_id = ${sql.ref(idColumn)}
          AND ca.key = ${key} AND ca.value IN (${sql.join(values)}))`,
  );
  return conditions.length ? sql<SqlBool>`(${sql.join(conditions, sql` AND `)})` : sql<SqlBool>`1 = 1`;
}

/** Narrows a list query to subjects (`idColumn`) that have every attribute in the filter. */
export function whereCustomAttributes<Q extends SelectQueryBuilder<DB, any, any>>(
  q: Q,
  kind: CustomAttributeKind,
  idColumn: string,
  filter: CustomAttributeFilter | undefined,
): Q {
  if (!filter || filter.length === 0) return q;
  return q.where(customAttributesCondition(kind, idColumn, filter)) as Q;
}
