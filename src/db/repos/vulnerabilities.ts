// Security findings of a project's default branch, their scanners and identifiers, the
// vulnerabilities made from them, and which pipeline's reports were read last.
import { sql, type Insertable, type Kysely, type Selectable, type Transaction, type Updateable } from 'kysely';
import { dialectOf } from '../dialect.js';
import { runPage } from '../paginate.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import type { DB, VulnerabilitiesTable, VulnerabilityFindingsTable, VulnerabilityIdentifiersTable, VulnerabilityScannersTable } from '../schema.js';
import type { ArtifactRow } from './ci_artifacts.js';
import { lockProjectRow } from './projects.js';

export type FindingRow = Selectable<VulnerabilityFindingsTable>;
export type VulnerabilityRow = Selectable<VulnerabilitiesTable>;
export type ScannerRow = Selectable<VulnerabilityScannersTable>;
export type IdentifierRow = Selectable<VulnerabilityIdentifiersTable>;

/** The report artifacts of these types from a pipeline's current (not retried) jobs, oldest job first. */
export const reportArtifactsOfPipeline = (db: Kysely<DB>, pipelineId: number, fileTypes: readonly string[]): Promise<ArtifactRow[]> =>
  db
    .selectFrom('ci_job_artifacts')
    .innerJoin('ci_jobs', 'ci_jobs.id', 'ci_job_artifacts.job_id')
    .selectAll('ci_job_artifacts')
    .where('ci_jobs.pipeline_id', '=', pipelineId)
    .where('ci_jobs.retried', '=', 0)
    .where('ci_job_artifacts.file_type', 'in', [...fileTypes])
    .orderBy('ci_job_artifacts.job_id')
    .orderBy('ci_job_artifacts.id')
    .execute();

export const ingestedPipelineId = async (db: Kysely<DB>, projectId: number): Promise<number | null> =>
  (await db.selectFrom('vulnerability_ingestions').select('pipeline_id').where('project_id', '=', projectId).executeTakeFirst())?.pipeline_id ?? null;

/** One finding as read from a report, ready to store. */
export interface IngestedFinding {
  uuid: string;
  report_type: string;
  name: string;
  severity: string;
  confidence: string;
  scanner: { external_id: string; name: string; vendor: string | null };
  identifiers: Omit<Insertable<VulnerabilityIdentifiersTable>, 'project_id'>[];
  location_fingerprint: string;
  project_fingerprint: string;
  metadata_version: string;
  raw_metadata: string;
}

async function upsertScanner(tx: Transaction<DB>, projectId: number, s: IngestedFinding['scanner']): Promise<number> {
  const row = await tx
    .insertInto('vulnerability_scanners')
    .values({ project_id: projectId, ...s })
    .onConflict((oc) => oc.columns(['project_id', 'external_id']).doUpdateSet({ name: s.name, vendor: s.vendor }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function upsertIdentifier(tx: Transaction<DB>, projectId: number, i: IngestedFinding['identifiers'][number]): Promise<number> {
  const row = await tx
    .insertInto('vulnerability_identifiers')
    .values({ project_id: projectId, ...i })
    .onConflict((oc) => oc.columns(['project_id', 'fingerprint']).doUpdateSet({ external_type: i.external_type, external_id: i.external_id, name: i.name, url: i.url }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Stores the findings of a default-branch pipeline's reports, all or nothing, unless a newer
 * pipeline was read already (then false; the same pipeline again, after a retry, is read again). Findings are kept by uuid: a newer pipeline updates
 * those it reports again and adds new ones; a vulnerability whose finding it no longer reports
 * is marked resolved on the default branch (and unmarked when it comes back).
 */
export function ingestFindings(db: Kysely<DB>, projectId: number, pipelineId: number, findings: IngestedFinding[], now: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await lockProjectRow(tx, projectId); // one ingestion per project at a time
    const seen = await tx.selectFrom('vulnerability_ingestions').select('pipeline_id').where('project_id', '=', projectId).executeTakeFirst();
    if (seen && seen.pipeline_id > pipelineId) return false;
    for (const f of findings) {
      const scannerId = await upsertScanner(tx, projectId, f.scanner);
      const identifierIds: number[] = [];
      for (const i of f.identifiers) identifierIds.push(await upsertIdentifier(tx, projectId, i));
      const values = {
        report_type: f.report_type,
        name: f.name,
        severity: f.severity,
        confidence: f.confidence,
        scanner_id: scannerId,
        primary_identifier_id: identifierIds[0]!,
        identifier_ids: JSON.stringify(identifierIds),
        location_fingerprint: f.location_fingerprint,
        project_fingerprint: f.project_fingerprint,
        metadata_version: f.metadata_version,
        raw_metadata: f.raw_metadata,
        latest_pipeline_id: pipelineId,
        updated_at: now,
      };
      await tx
        .insertInto('vulnerability_findings')
        .values({ project_id: projectId, uuid: f.uuid, created_at: now, ...values })
        .onConflict((oc) => oc.columns(['project_id', 'uuid']).doUpdateSet(values))
        .execute();
    }
    const stillReported = (eb: any) =>
      eb.exists(eb.selectFrom('vulnerability_findings as f').select('f.id').whereRef('f.id', '=', 'vulnerabilities.finding_id').where('f.latest_pipeline_id', '=', pipelineId));
    await tx
      .updateTable('vulnerabilities')
      .set({ resolved_on_default_branch: 1, updated_at: now })
      .where('project_id', '=', projectId)
      .where('resolved_on_default_branch', '=', 0)
      .where((eb) => eb.not(stillReported(eb)))
      .execute();
    await tx
      .updateTable('vulnerabilities')
      .set({ resolved_on_default_branch: 0, updated_at: now })
      .where('project_id', '=', projectId)
      .where('resolved_on_default_branch', '=', 1)
      .where((eb) => stillReported(eb))
      .execute();
    await tx
      .insertInto('vulnerability_ingestions')
      .values({ project_id: projectId, pipeline_id: pipelineId, ingested_at: now })
      .onConflict((oc) => oc.column('project_id').doUpdateSet({ pipeline_id: pipelineId, ingested_at: now }))
      .execute();
    return true;
  });
}

export const findingsByUuids = (db: Kysely<DB>, projectId: number, uuids: string[]): Promise<FindingRow[]> =>
  uuids.length ? db.selectFrom('vulnerability_findings').selectAll().where('project_id', '=', projectId).where('uuid', 'in', uuids).execute() : Promise.resolve([]);

export const findingsByIds = (db: Kysely<DB>, ids: number[]): Promise<FindingRow[]> =>
  ids.length ? db.selectFrom('vulnerability_findings').selectAll().where('id', 'in', ids).execute() : Promise.resolve([]);

export const vulnerabilitiesByIds = (db: Kysely<DB>, ids: number[]): Promise<VulnerabilityRow[]> =>
  ids.length ? db.selectFrom('vulnerabilities').selectAll().where('id', 'in', ids).execute() : Promise.resolve([]);

/**
 * Makes a vulnerability of a project's finding and attaches the finding to it, all or nothing;
 * undefined when the finding is not the project's or already has a vulnerability.
 */
export function createVulnerability(
  db: Kysely<DB>,
  projectId: number,
  findingId: number,
  build: (f: FindingRow) => Omit<Insertable<VulnerabilitiesTable>, 'project_id' | 'finding_id'>,
): Promise<VulnerabilityRow | undefined> {
  return db.transaction().execute(async (tx) => {
    const q = tx.selectFrom('vulnerability_findings').selectAll().where('id', '=', findingId).where('project_id', '=', projectId);
    const finding = await (dialectOf(db) === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
    if (!finding || finding.vulnerability_id !== null) return undefined;
    const v = await tx.insertInto('vulnerabilities').values({ ...build(finding), project_id: projectId, finding_id: finding.id }).returningAll().executeTakeFirstOrThrow();
    await tx.updateTable('vulnerability_findings').set({ vulnerability_id: v.id }).where('id', '=', finding.id).execute();
    return v;
  });
}

const SEVERITY_RANK = sql<number>`CASE severity WHEN 'critical' THEN 7 WHEN 'high' THEN 6 WHEN 'medium' THEN 5 WHEN 'low' THEN 4 WHEN 'unknown' THEN 2 WHEN 'info' THEN 1 ELSE 0 END`;

/** A page of a project's vulnerabilities, most severe first, then newest. */
export const pageVulnerabilities = (db: Kysely<DB>, projectId: number, page: PageRequest): Promise<PageResult<VulnerabilityRow>> =>
  runPage(db, db.selectFrom('vulnerabilities').selectAll().where('project_id', '=', projectId).orderBy(SEVERITY_RANK, 'desc').orderBy('id', 'desc'), page);

export const findVulnerability = (db: Kysely<DB>, id: number) => db.selectFrom('vulnerabilities').selectAll().where('id', '=', id).executeTakeFirst();

export const updateVulnerability = (db: Kysely<DB>, id: number, patch: Updateable<VulnerabilitiesTable>): Promise<VulnerabilityRow> =>
  db.updateTable('vulnerabilities').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const scannersByIds = (db: Kysely<DB>, ids: number[]): Promise<ScannerRow[]> =>
  ids.length ? db.selectFrom('vulnerability_scanners').selectAll().where('id', 'in', ids).execute() : Promise.resolve([]);
