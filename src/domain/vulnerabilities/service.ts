// Vulnerability findings (GET /projects/:id/vulnerability_findings, from a pipeline's reports)
// and vulnerabilities (made from stored findings; confirmed, resolved, dismissed, reverted), as
// the reference's 15.1 API has them.
import type { Container } from '../context.js';
import { findPipeline, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findNamespaceById } from '../../db/repos/namespaces.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { withFullNames } from '../groups/find.js';
import {
  createVulnerability,
  findVulnerability,
  findingsByIds,
  findingsByUuids,
  ingestedPipelineId,
  pageVulnerabilities,
  updateVulnerability,
  vulnerabilitiesByIds,
  type FindingRow,
  type VulnerabilityRow,
} from '../../db/repos/vulnerabilities.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notModified, recordNotFound, validation } from '../errors.js';
import type { ProjectAccess } from '../projects/policy.js';
import { findProject, findProjectAllowed } from '../projects/find.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { SEVERITY_LEVELS, CONFIDENCE_LEVELS } from '../../ci/reports/security.js';

export { SEVERITY_LEVELS, CONFIDENCE_LEVELS };
import { pipelineFindings, type PipelineFinding } from './findings.js';
import { canAdminVulnerability, canCreateVulnerability, canReadSecurity } from './policy.js';

/** The report types a finding may have (the reference's enum; severities and confidences are the report parser's). */
export const FINDING_REPORT_TYPES: readonly string[] = [
  'sast', 'dependency_scanning', 'container_scanning', 'dast', 'secret_detection', 'coverage_fuzzing', 'api_fuzzing', 'cluster_image_scanning',
];


// ---- findings ----

/** Each list left out means all of its values. */
export interface FindingFilter {
  report_type?: string[];
  scope?: 'all' | 'dismissed';
  severity?: string[];
  confidence?: string[];
  pipeline_id?: string;
}

export interface FindingView {
  finding: PipelineFinding;
  stored: FindingRow | null;
  /** detected, or the state of the vulnerability made from it. */
  state: string;
  project: ProjectRow;
  projectFullName: string;
  pipeline: PipelineRow;
}

const rank = (levels: readonly string[], v: string) => levels.indexOf(v);

/**
 * The findings of the project's latest ingested default-branch pipeline (or of `pipeline_id`),
 * filtered, most severe and most confident first. `scope=dismissed` (the default) hides the
 * findings whose vulnerability was dismissed.
 */
export async function listFindings(c: Container, actor: Actor, idOrPath: number | string, f: FindingFilter, page: PageRequest): Promise<PageResult<FindingView>> {
  const project = await findProjectAllowed(c, actor, idOrPath, canReadSecurity);
  const pipelineId = f.pipeline_id !== undefined ? (/^\d+$/.test(f.pipeline_id) ? Number(f.pipeline_id) : null) : await ingestedPipelineId(c.db, project.id);
  const pipeline = pipelineId !== null ? await findPipeline(c.db, pipelineId) : undefined;
  if (!pipeline || pipeline.project_id !== project.id) return { items: [], total: 0, hasNext: false };
  const found = (await pipelineFindings(c, pipeline)).filter(
    (x) => (f.report_type ?? FINDING_REPORT_TYPES).includes(x.report_type) && (f.severity ?? SEVERITY_LEVELS).includes(x.severity) && (f.confidence ?? CONFIDENCE_LEVELS).includes(x.confidence),
  );
  const stored = new Map((await findingsByUuids(c.db, project.id, found.map((x) => x.uuid))).map((r) => [r.uuid, r]));
  const vulnerabilities = new Map(
    (await vulnerabilitiesByIds(c.db, [...stored.values()].flatMap((r) => (r.vulnerability_id !== null ? [r.vulnerability_id] : [])))).map((v) => [v.id, v]),
  );
  const fullName = await projectFullName(c, project);
  const views: FindingView[] = found.map((finding) => {
    const row = stored.get(finding.uuid) ?? null;
    const state = (row?.vulnerability_id !== null && row?.vulnerability_id !== undefined && vulnerabilities.get(row.vulnerability_id)?.state) || 'detected';
    return { finding, stored: row, state, project, projectFullName: fullName, pipeline };
  });
  const visible = views
    .filter((v) => (f.scope ?? 'dismissed') === 'all' || v.state !== 'dismissed')
    .sort((a, b) => rank(SEVERITY_LEVELS, b.finding.severity) - rank(SEVERITY_LEVELS, a.finding.severity) || rank(CONFIDENCE_LEVELS, b.finding.confidence) - rank(CONFIDENCE_LEVELS, a.finding.confidence));
  if (page.kind !== 'offset') return { items: visible.slice(0, page.perPage), total: null, hasNext: visible.length > page.perPage };
  const start = (page.page - 1) * page.perPage;
  return { items: visible.slice(start, start + page.perPage), total: visible.length, hasNext: visible.length > start + page.perPage };
}

// ---- vulnerabilities ----

export interface VulnerabilityView {
  row: VulnerabilityRow;
  finding: FindingRow;
  project: ProjectRow;
  /** The project's name with its namespace's full name (`Group / Sub / Project`). */
  projectFullName: string;
}

/** `Group / Sub / Project`, or `Owner Name / Project` in a personal namespace. */
export async function projectFullName(c: Container, p: ProjectRow): Promise<string> {
  const ns = await findNamespaceById(c.db, p.namespace_id);
  const nsName = !ns ? '' : ns.kind === 'group' ? (await withFullNames(c, [ns]))[0]!.fullName : ns.name;
  return `${nsName} / ${p.name}`;
}

async function views(c: Container, project: ProjectRow, rows: VulnerabilityRow[]): Promise<VulnerabilityView[]> {
  const findings = new Map((await findingsByIds(c.db, rows.map((r) => r.finding_id))).map((f) => [f.id, f]));
  const fullName = await projectFullName(c, project);
  return rows.map((row) => ({ row, finding: findings.get(row.finding_id)!, project, projectFullName: fullName }));
}

export async function listVulnerabilities(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<VulnerabilityView>> {
  const project = await findProjectAllowed(c, actor, idOrPath, canReadSecurity);
  const result = await pageVulnerabilities(c.db, project.id, page);
  return { ...result, items: await views(c, project, result.items) };
}

const TITLE_LENGTH_MAX = 255;
const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 3)}...` : s);

/** POST /projects/:id/vulnerabilities: a vulnerability of a stored finding that has none yet. */
export async function createVulnerabilityFromFinding(c: Container, actor: Actor, idOrPath: number | string, findingId: number): Promise<VulnerabilityView> {
  const project = await findProjectAllowed(c, actor, idOrPath, canCreateVulnerability);
  const now = nowIso();
  const row = await createVulnerability(c.db, project.id, findingId, (f) => ({
    author_id: actor.user.id,
    title: truncate(f.name, TITLE_LENGTH_MAX),
    description: null,
    state: 'detected',
    severity: f.severity,
    confidence: f.confidence,
    report_type: f.report_type,
    created_at: now,
    updated_at: now,
  }));
  if (!row) throw validation({ base: ['finding is not found or is already attached to a vulnerability'] });
  return (await views(c, project, [row]))[0]!;
}

/** A vulnerability the actor may act on as `allowed` says; its project must be visible (else 404). */
async function vulnerabilityFor(c: Container, actor: Actor, id: number, allowed: (a: ProjectAccess) => boolean): Promise<VulnerabilityView> {
  const row = await findVulnerability(c.db, id);
  if (!row) throw recordNotFound();
  const { row: project, access } = await findProject(c, actor, row.project_id).catch(() => {
    throw recordNotFound();
  });
  if (!allowed(access)) throw forbidden();
  return (await views(c, project, [row]))[0]!;
}

export const getVulnerability = (c: Container, actor: Actor, id: number) => vulnerabilityFor(c, actor, id, canReadSecurity);

export type VulnerabilityAction = 'confirm' | 'resolve' | 'dismiss' | 'revert';

const TARGET: Record<VulnerabilityAction, string> = { confirm: 'confirmed', resolve: 'resolved', dismiss: 'dismissed', revert: 'detected' };

/**
 * confirm / resolve / dismiss stamp who and when for their state; revert goes back to detected
 * and clears all three. Already in that state: 304, as the reference answers.
 */
export async function changeVulnerabilityState(c: Container, actor: Actor, id: number, action: VulnerabilityAction): Promise<VulnerabilityView> {
  const v = await vulnerabilityFor(c, actor, id, canAdminVulnerability);
  const state = TARGET[action];
  if (v.row.state === state) throw notModified();
  const now = nowIso();
  const by = actor.user.id;
  const stamp =
    action === 'confirm'
      ? { confirmed_at: now, confirmed_by_id: by }
      : action === 'resolve'
        ? { resolved_at: now, resolved_by_id: by }
        : action === 'dismiss'
          ? { dismissed_at: now, dismissed_by_id: by }
          : { confirmed_at: null, confirmed_by_id: null, resolved_at: null, resolved_by_id: null, dismissed_at: null, dismissed_by_id: null };
  const row = await updateVulnerability(c.db, v.row.id, { state, ...stamp, updated_at: now });
  return { ...v, row };
}
