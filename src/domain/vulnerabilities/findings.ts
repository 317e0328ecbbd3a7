// Security findings from the reports a pipeline published (`artifacts:reports:sast`,
// `dependency_scanning`, `secret_detection`, `container_scanning`, `dast`), and their storage:
// when a default-branch pipeline completes, its findings become the project's (by uuid), in the
// background; a newer default-branch pipeline updates them.
import { text } from 'node:stream/consumers';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Container } from '../context.js';
import { SECURITY_REPORT_TYPES, SecurityReportError, parseSecurityReport, type ReportScan, type SecurityFinding } from '../../ci/reports/security.js';
import { findPipeline, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findProjectById } from '../../db/repos/projects.js';
import { ingestFindings, reportArtifactsOfPipeline, type IngestedFinding } from '../../db/repos/vulnerabilities.js';
import { nowIso } from '../../shared/time.js';
import crypto from 'node:crypto';

export const INGEST_SECURITY_REPORTS_JOB = 'security_ingest_reports';

export interface PipelineFinding extends SecurityFinding {
  uuid: string;
  metadata_version: string;
  scan: ReportScan | null;
}

/**
 * The findings of a pipeline's security reports (its current jobs' artifacts), one per uuid (the
 * first report that has it wins). A report that does not parse is left out, as the reference
 * leaves out a report with errors. Findings without an identifier (no uuid) cannot be stored.
 */
export async function pipelineFindings(c: Container, pipeline: PipelineRow): Promise<PipelineFinding[]> {
  const out = new Map<string, PipelineFinding>();
  for (const a of await reportArtifactsOfPipeline(c.db, pipeline.id, SECURITY_REPORT_TYPES)) {
    const stream = await c.storage.get(a.blob_key);
    if (!stream) continue;
    let report;
    try {
      report = parseSecurityReport(a.file_type as (typeof SECURITY_REPORT_TYPES)[number], await text(stream), pipeline.project_id);
    } catch (e) {
      if (e instanceof SecurityReportError) continue;
      throw e;
    }
    for (const f of report.findings) {
      if (f.uuid && !out.has(f.uuid)) out.set(f.uuid, { ...f, uuid: f.uuid, metadata_version: report.version, scan: report.scan });
    }
  }
  return [...out.values()];
}

const sha1 = (s: string) => crypto.createHash('sha1').update(s).digest('hex');

function toStored(f: PipelineFinding): IngestedFinding {
  return {
    uuid: f.uuid,
    report_type: f.report_type,
    name: f.name,
    severity: f.severity,
    confidence: f.confidence,
    scanner: {
      external_id: f.scanner?.external_id ?? 'unknown',
      name: f.scanner?.name ?? f.scanner?.external_id ?? 'unknown',
      vendor: f.scanner?.vendor ?? null,
    },
    identifiers: f.identifiers.map((i) => ({ fingerprint: i.fingerprint, external_type: i.external_type, external_id: i.external_id, name: i.name, url: i.url })),
    location_fingerprint: f.location_fingerprint,
    project_fingerprint: sha1(f.compare_key),
    metadata_version: f.metadata_version,
    raw_metadata: JSON.stringify(f.raw),
  };
}

/** Reads a completed default-branch pipeline's reports into the project's findings; idempotent. */
export async function ingestPipeline(c: Container, pipelineId: number): Promise<boolean> {
  const pipeline = await findPipeline(c.db, pipelineId);
  if (!pipeline || pipeline.parent_pipeline_id !== null) return false;
  const project = await findProjectById(c.db, pipeline.project_id);
  if (!project || pipeline.ref !== project.default_branch || pipeline.tag === 1) return false;
  const findings = await pipelineFindings(c, pipeline);
  return ingestFindings(c.db, project.id, pipeline.id, findings.map(toStored), nowIso());
}

/**
 * A pipeline reached a completed status: a default-branch one has its reports read in the background.
 * Enqueued in the status change's transaction, so a finished pipeline never misses its ingestion.
 */
export async function pipelineCompleted(c: Container, tx: Kysely<DB>, pipeline: PipelineRow): Promise<void> {
  if (pipeline.parent_pipeline_id !== null || pipeline.tag === 1) return;
  const project = await findProjectById(tx, pipeline.project_id);
  if (!project || pipeline.ref !== project.default_branch) return;
  await c.queue.enqueue(INGEST_SECURITY_REPORTS_JOB, { pipelineId: pipeline.id }, { trx: tx });
}
