// CI/CD variables of projects, groups and the instance, and pipeline trigger tokens.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { CiTriggersTable, CiVariablesTable, DB } from '../schema.js';

export type CiVariableRow = Selectable<CiVariablesTable>;
export type CiTriggerRow = Selectable<CiTriggersTable>;

/** Whose variables: a project's, a group's, or the instance's (id 0). */
export interface VariableOwner {
  type: 'project' | 'group' | 'instance';
  id: number;
}

const owned = (db: Kysely<DB>, o: VariableOwner) =>
  db.selectFrom('ci_variables').selectAll().where('owner_type', '=', o.type).where('owner_id', '=', o.id);

export const pageVariables = (db: Kysely<DB>, o: VariableOwner, page: PageRequest): Promise<PageResult<CiVariableRow>> =>
  runPage(db, owned(db, o).orderBy('id'), page);

/** The owner's variables of a key (one per environment scope), or only the one of `scope`. */
export const variablesByKey = (db: Kysely<DB>, o: VariableOwner, key: string, scope?: string): Promise<CiVariableRow[]> =>
  owned(db, o)
    .where('key', '=', key)
    .$if(scope !== undefined, (q) => q.where('environment_scope', '=', scope!))
    .orderBy('id')
    .limit(100)
    .execute();

/** Every variable of the instance, of the given groups and of the project: what a job may get. */
export const variablesOfOwners = (db: Kysely<DB>, projectId: number, groupIds: number[]): Promise<CiVariableRow[]> =>
  db
    .selectFrom('ci_variables')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('owner_type', '=', 'instance'), eb('owner_id', '=', 0)]),
        eb.and([eb('owner_type', '=', 'project'), eb('owner_id', '=', projectId)]),
        ...(groupIds.length ? [eb.and([eb('owner_type', '=', 'group'), eb('owner_id', 'in', groupIds)])] : []),
      ]),
    )
    .orderBy('id')
    .execute();

export const insertVariable = (db: Kysely<DB>, row: Insertable<CiVariablesTable>): Promise<CiVariableRow> =>
  db.insertInto('ci_variables').values(row).returningAll().executeTakeFirstOrThrow();

export const updateVariable = (db: Kysely<DB>, id: number, patch: Updateable<CiVariablesTable>): Promise<CiVariableRow> =>
  db.updateTable('ci_variables').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteVariable = (db: Kysely<DB>, id: number) => db.deleteFrom('ci_variables').where('id', '=', id).execute();

// ---- trigger tokens ----

export const pageTriggers = (db: Kysely<DB>, projectId: number, page: PageRequest): Promise<PageResult<CiTriggerRow>> =>
  runPage(db, db.selectFrom('ci_triggers').selectAll().where('project_id', '=', projectId).orderBy('id'), page);

export const findTriggerOf = (db: Kysely<DB>, projectId: number, id: number): Promise<CiTriggerRow | undefined> =>
  db.selectFrom('ci_triggers').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();

export const findTriggerByDigest = (db: Kysely<DB>, digest: string): Promise<CiTriggerRow | undefined> =>
  db.selectFrom('ci_triggers').selectAll().where('token_digest', '=', digest).executeTakeFirst();

export const insertTrigger = (db: Kysely<DB>, row: Insertable<CiTriggersTable>): Promise<CiTriggerRow> =>
  db.insertInto('ci_triggers').values(row).returningAll().executeTakeFirstOrThrow();

export const updateTrigger = (db: Kysely<DB>, id: number, patch: Updateable<CiTriggersTable>): Promise<CiTriggerRow> =>
  db.updateTable('ci_triggers').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteTrigger = (db: Kysely<DB>, id: number) => db.deleteFrom('ci_triggers').where('id', '=', id).execute();
