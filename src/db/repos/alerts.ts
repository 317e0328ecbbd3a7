// Alert integrations (HTTP endpoints) of a project, and the alerts they receive.
import { type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { ilike, likeEscape } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { AlertIntegrationsTable, AlertsTable, DB } from '../schema.js';
import { lockProjectRow } from './projects.js';

export type AlertIntegrationRow = Selectable<AlertIntegrationsTable>;
export type AlertRow = Selectable<AlertsTable>;
export type NewAlert = Omit<Insertable<AlertsTable>, 'iid'>;

export const integrationsOf = (db: Kysely<DB>, projectId: number): Promise<AlertIntegrationRow[]> =>
  db.selectFrom('alert_integrations').selectAll().where('project_id', '=', projectId).orderBy('id').execute();

export const findIntegration = (db: Kysely<DB>, projectId: number, id: number) =>
  db.selectFrom('alert_integrations').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();

export const findIntegrationByEndpoint = (db: Kysely<DB>, projectId: number, endpointIdentifier: string) =>
  db.selectFrom('alert_integrations').selectAll().where('project_id', '=', projectId).where('endpoint_identifier', '=', endpointIdentifier).executeTakeFirst();

export const insertIntegration = (db: Kysely<DB>, row: Insertable<AlertIntegrationsTable>): Promise<AlertIntegrationRow> =>
  db.insertInto('alert_integrations').values(row).returningAll().executeTakeFirstOrThrow();

export const updateIntegration = (db: Kysely<DB>, id: number, patch: Updateable<AlertIntegrationsTable>): Promise<AlertIntegrationRow> =>
  db.updateTable('alert_integrations').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const deleteIntegration = (db: Kysely<DB>, id: number) => db.deleteFrom('alert_integrations').where('id', '=', id).execute();

/** The open (not resolved) alert of a fingerprint, if any: there is at most one. */
export const findOpenAlert = (db: Kysely<DB>, projectId: number, fingerprint: string): Promise<AlertRow | undefined> =>
  db.selectFrom('alerts').selectAll().where('project_id', '=', projectId).where('fingerprint', '=', fingerprint).where('status', '!=', 'resolved').executeTakeFirst();

/** What one incoming payload does: a new alert's row, and whether it resolves (end_time). */
export interface IncomingAlert {
  row: NewAlert;
  /** end_time: resolves the open alert of the fingerprint (or the new one) at this time. */
  endedAt: string | null;
}

/**
 * Records one payload, all or nothing: the open alert of its fingerprint counts one more event
 * (or is resolved by an end_time); without one, a new alert takes the project's next iid. The
 * project row is locked for the transaction (PostgreSQL; SQLite runs one writer at a time), so
 * concurrent payloads of one fingerprint group into one alert; the partial unique index on open
 * fingerprints backs that up.
 */
export function recordAlert(db: Kysely<DB>, incoming: IncomingAlert): Promise<AlertRow> {
  const { row, endedAt } = incoming;
  return db.transaction().execute(async (tx) => {
    await lockProjectRow(tx, row.project_id);
    const open = await findOpenAlert(tx, row.project_id, row.fingerprint);
    if (open) {
      const q = tx.updateTable('alerts').where('id', '=', open.id);
      const updated = endedAt
        ? q.set({ status: 'resolved', ended_at: endedAt, updated_at: row.updated_at })
        : q.set((eb) => ({ events: eb('events', '+', 1), updated_at: row.updated_at }));
      return updated.returningAll().executeTakeFirstOrThrow();
    }
    const last = await tx.selectFrom('alerts').select('iid').where('project_id', '=', row.project_id).orderBy('iid', 'desc').limit(1).executeTakeFirst();
    const values = { ...row, iid: (last?.iid ?? 0) + 1, ...(endedAt ? { status: 'resolved', ended_at: endedAt } : {}) };
    return tx.insertInto('alerts').values(values).returningAll().executeTakeFirstOrThrow();
  });
}

export interface AlertFilter {
  status?: string;
  /** Part of the title, description, service, monitoring tool or hosts (case-insensitive). */
  search?: string;
}

/** A page of a project's alerts, newest first. */
export function pageAlerts(db: Kysely<DB>, projectId: number, f: AlertFilter, page: PageRequest): Promise<PageResult<AlertRow>> {
  let q = db.selectFrom('alerts').selectAll().where('project_id', '=', projectId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.search) {
    const pattern = `%${likeEscape(f.search)}%`;
    q = q.where((eb) => eb.or(['title', 'description', 'service', 'monitoring_tool', 'hosts'].map((col) => ilike(db, `alerts.${col}`, pattern))));
  }
  return runPage(db, q.orderBy('id', 'desc'), page);
}

export const findAlertByIid = (db: Kysely<DB>, projectId: number, iid: number) =>
  db.selectFrom('alerts').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();

export const updateAlert = (db: Kysely<DB>, id: number, patch: Updateable<AlertsTable>): Promise<AlertRow> =>
  db.updateTable('alerts').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
