// Security scanner reports (`artifacts:reports:sast`, `dependency_scanning`, `container_scanning`,
// `dast`, `secret_detection`): the JSON a scanner writes, checked to be a report and turned into
// a normalized findings list with the reference's identities:
//  - identifier fingerprint: SHA-1 of `type:value`;
//  - location fingerprint: SHA-1 of the location's key for the report type (sast and
//    secret_detection `file:start_line:end_line`, dependency_scanning `file:package`,
//    container_scanning `image-without-tag:package`, dast `path:method:param`);
//  - uuid: a version-5 UUID of `report_type-primary identifier fingerprint-location fingerprint-project id`
//    (as the reference's Rails 6 computes it: SHA-1 over the namespace's text and the name);
//  - name: `message`, else `name`, else "<CVE/CWE/first identifier name> in <location path>";
//  - severity and confidence lower-cased, `unknown` when not one of the known levels.
import crypto from 'node:crypto';

export const SECURITY_REPORT_TYPES = ['sast', 'dependency_scanning', 'container_scanning', 'dast', 'secret_detection'] as const;
export type SecurityReportType = (typeof SECURITY_REPORT_TYPES)[number];

export const SEVERITY_LEVELS = ['info', 'unknown', 'low', 'medium', 'high', 'critical'] as const;
export const CONFIDENCE_LEVELS = ['ignore', 'unknown', 'experimental', 'low', 'medium', 'high', 'confirmed'] as const;

/** The reference's production UUID namespace for vulnerability findings. */
export const FINDING_UUID_NAMESPACE = '58dc0f06-936c-43b3-93bb-71693f1b6570';

export interface FindingIdentifier {
  external_type: string | null;
  external_id: string | null;
  name: string | null;
  url: string | null;
  fingerprint: string;
}

export interface FindingScanner {
  external_id: string | null;
  name: string | null;
  vendor: string | null;
  version: string | null;
}

export interface SecurityFinding {
  uuid: string | null;
  report_type: SecurityReportType;
  name: string;
  severity: (typeof SEVERITY_LEVELS)[number];
  confidence: (typeof CONFIDENCE_LEVELS)[number];
  identifiers: FindingIdentifier[];
  /** As in the report (file, start_line, dependency, image, hostname, path, …). */
  location: Record<string, unknown>;
  location_fingerprint: string;
  scanner: FindingScanner | null;
  description: string | null;
  solution: string | null;
  /** The report's `cve` field (the reference's compare key), '' when absent. */
  compare_key: string;
  links: { name: string | null; url: string | null }[];
  /** The finding exactly as in the report. */
  raw: Record<string, unknown>;
}

/** The report's `scan` block: what ran, when, with what outcome. */
export interface ReportScan {
  type: string | null;
  status: string | null;
  start_time: string | null;
  end_time: string | null;
}

export interface SecurityReport {
  report_type: SecurityReportType;
  version: string;
  scanner: FindingScanner | null;
  scan: ReportScan | null;
  findings: SecurityFinding[];
}

/** Why a report was refused (the reference's parser errors). */
export class SecurityReportError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const rubyStr = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const sha1 = (text: string) => crypto.createHash('sha1').update(text).digest('hex');
const dig = (o: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), o);

/** A version-5 UUID as the reference computes it (the namespace taken as its text). */
export function uuidV5(name: string, namespace = FINDING_UUID_NAMESPACE): string {
  const h = crypto.createHash('sha1').update(namespace).update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

function scanner(v: unknown): FindingScanner | null {
  if (!isObj(v)) return null;
  return { external_id: str(v.id), name: str(v.name), vendor: str(dig(v, 'vendor', 'name')), version: str(v.version) };
}

function identifiers(v: unknown): FindingIdentifier[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).map((i) => ({
    external_type: str(i.type),
    external_id: str(i.value),
    name: str(i.name),
    url: str(i.url),
    fingerprint: sha1(`${rubyStr(i.type)}:${rubyStr(i.value)}`),
  }));
}

/** A container image name without its tag, unless the tag looks like a version (then the whole name). */
function imageWithoutTag(image: string): string {
  const [base, version] = image.split(':');
  const semverLike = version !== undefined && /^[0-9]+(\.[0-9a-zA-Z]+)*(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/.test(version) && !/^[0-9a-f]{32,128}$/i.test(version);
  return semverLike ? image : (base ?? image);
}

/** The location's fingerprint key and its "path" for generated names. */
function locationKey(type: SecurityReportType, loc: Obj): { data: string; path: string } {
  const basename = (p: unknown) => rubyStr(p).split('/').pop() ?? '';
  switch (type) {
    case 'sast':
    case 'secret_detection':
      return { data: `${rubyStr(loc.file)}:${rubyStr(loc.start_line)}:${rubyStr(loc.end_line)}`, path: basename(loc.file) };
    case 'dependency_scanning':
      return { data: `${rubyStr(loc.file)}:${rubyStr(dig(loc, 'dependency', 'package', 'name'))}`, path: basename(loc.file) };
    case 'container_scanning': {
      const data = `${imageWithoutTag(rubyStr(loc.image))}:${rubyStr(dig(loc, 'dependency', 'package', 'name'))}`;
      return { data, path: data };
    }
    case 'dast':
      return { data: `${rubyStr(loc.path)}:${rubyStr(loc.method)}:${rubyStr(loc.param)}`, path: rubyStr(loc.path) };
  }
}

function level<T extends readonly string[]>(levels: T, v: unknown): T[number] {
  const s = typeof v === 'string' ? v.toLowerCase() : '';
  return (levels as readonly string[]).includes(s) ? (s as T[number]) : 'unknown';
}

/**
 * Reads a security report of `reportType`. Throws SecurityReportError when the text is not JSON
 * ("JSON parsing failed") or not a report: an object with a `version` string and a
 * `vulnerabilities` array ("Invalid report format").
 * `projectId` goes into each finding's uuid.
 */
export function parseSecurityReport(reportType: SecurityReportType, json: string, projectId: number): SecurityReport {
  if (!(SECURITY_REPORT_TYPES as readonly string[]).includes(reportType)) throw new SecurityReportError(`Unknown security report type: ${reportType}`);
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    throw new SecurityReportError('JSON parsing failed');
  }
  if (!isObj(data) || typeof data.version !== 'string' || !Array.isArray(data.vulnerabilities)) {
    throw new SecurityReportError('Invalid report format');
  }
  const topScanner = scanner(dig(data, 'scan', 'scanner'));
  const findings = data.vulnerabilities.filter(isObj).map((v): SecurityFinding => {
    const ids = identifiers(v.identifiers);
    const location = isObj(v.location) ? v.location : {};
    const key = locationKey(reportType, location);
    const locationFingerprint = sha1(key.data);
    const primary = ids[0];
    const uuid = primary ? uuidV5([reportType, primary.fingerprint, locationFingerprint, projectId].join('-')) : null;
    return {
      uuid,
      report_type: reportType,
      name: findingName(v, ids, key.path),
      severity: level(SEVERITY_LEVELS, v.severity),
      confidence: level(CONFIDENCE_LEVELS, v.confidence),
      identifiers: ids,
      location,
      location_fingerprint: locationFingerprint,
      scanner: scanner(v.scanner) ?? topScanner,
      description: str(v.description),
      solution: str(v.solution),
      compare_key: str(v.cve) ?? '',
      links: Array.isArray(v.links) ? v.links.filter(isObj).map((l) => ({ name: str(l.name), url: str(l.url) })) : [],
      raw: v,
    };
  });
  const scan = isObj(data.scan)
    ? { type: str(data.scan.type), status: str(data.scan.status), start_time: str(data.scan.start_time), end_time: str(data.scan.end_time) }
    : null;
  return { report_type: reportType, version: data.version, scanner: topScanner, scan, findings };
}

function findingName(v: Obj, ids: FindingIdentifier[], locationPath: string): string {
  if (typeof v.message === 'string' && v.message.trim()) return v.message;
  if (typeof v.name === 'string' && v.name.trim()) return v.name;
  const is = (t: string) => (i: FindingIdentifier) => (i.external_type ?? '').toLowerCase() === t;
  const id = ids.find(is('cve')) ?? ids.find(is('cwe')) ?? ids[0];
  return `${id?.name ?? ''} in ${locationPath}`;
}
