import type { FindingView, VulnerabilityView } from '../../domain/vulnerabilities/service.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The reference's blob_path: the file at the pipeline's commit, with its lines; '' without a file. */
function blobPath(fullPath: string, sha: string, location: Obj): string {
  const file = str(location.file);
  if (!file) return '';
  const path = `/${fullPath}/-/blob/${sha}/${file}`;
  const start = typeof location.start_line === 'number' ? location.start_line : null;
  const end = typeof location.end_line === 'number' ? location.end_line : null;
  if (start === null) return path;
  return `${path}#L${start}${end !== null && end > start ? `-${end}` : ''}`;
}

export function presentFinding(v: FindingView) {
  const f = v.finding;
  const raw = f.raw;
  const evidence = isObj(raw.evidence) ? raw.evidence : {};
  const feedbackPath = `/${v.project.full_path}/-/vulnerability_feedback`;
  return {
    id: v.stored?.id ?? null,
    report_type: f.report_type,
    name: f.name,
    severity: f.severity,
    confidence: f.confidence,
    scanner: f.scanner ? { external_id: f.scanner.external_id, name: f.scanner.name, vendor: f.scanner.vendor } : null,
    identifiers: f.identifiers.map((i) => ({ external_type: i.external_type, external_id: i.external_id, name: i.name, url: i.url })),
    project_fingerprint: v.stored?.project_fingerprint ?? '',
    uuid: f.uuid,
    create_jira_issue_url: null,
    create_vulnerability_feedback_issue_path: feedbackPath,
    create_vulnerability_feedback_merge_request_path: feedbackPath,
    create_vulnerability_feedback_dismissal_path: feedbackPath,
    project: { id: v.project.id, name: v.project.name, full_path: `/${v.project.full_path}`, full_name: v.projectFullName },
    dismissal_feedback: null,
    issue_feedback: null,
    merge_request_feedback: null,
    description: f.description,
    links: objects(raw.links),
    location: f.location,
    remediations: objects(raw.remediations),
    solution: f.solution,
    evidence: str(evidence.summary),
    request: isObj(evidence.request) ? evidence.request : null,
    response: isObj(evidence.response) ? evidence.response : null,
    evidence_source: isObj(evidence.source) ? evidence.source : null,
    supporting_messages: objects(evidence.supporting_messages),
    assets: objects(raw.assets),
    details: isObj(raw.details) ? raw.details : {},
    state: v.state,
    scan: f.scan,
    blob_path: blobPath(v.project.full_path, v.pipeline.sha, f.location),
  };
}

export function presentVulnerability(v: VulnerabilityView) {
  const r = v.row;
  const f = v.finding;
  const p = v.project;
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    state: r.state,
    severity: r.severity,
    confidence: r.confidence,
    report_type: r.report_type,
    project: {
      id: p.id,
      name: p.name,
      name_with_namespace: v.projectFullName,
      path: p.path,
      path_with_namespace: p.full_path,
      description: p.description,
      created_at: p.created_at,
    },
    author_id: r.author_id,
    updated_by_id: r.updated_by_id,
    last_edited_by_id: r.last_edited_by_id,
    start_date: r.start_date,
    due_date: r.due_date,
    created_at: r.created_at,
    updated_at: r.updated_at,
    last_edited_at: r.last_edited_at,
    resolved_on_default_branch: r.resolved_on_default_branch === 1,
    resolved_by_id: r.resolved_by_id,
    resolved_at: r.resolved_at,
    dismissed_by_id: r.dismissed_by_id,
    dismissed_at: r.dismissed_at,
    project_default_branch: p.default_branch,
    finding: {
      id: f.id,
      confidence: f.confidence,
      severity: f.severity,
      name: f.name,
      report_type: f.report_type,
      scanner_id: f.scanner_id,
      primary_identifier_id: f.primary_identifier_id,
      project_id: f.project_id,
      vulnerability_id: f.vulnerability_id ?? r.id,
      uuid: f.uuid,
      location_fingerprint: f.location_fingerprint,
      project_fingerprint: f.project_fingerprint,
      metadata_version: f.metadata_version,
      raw_metadata: f.raw_metadata,
      created_at: f.created_at,
      updated_at: f.updated_at,
    },
  };
}
