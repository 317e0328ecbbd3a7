// The entries of the CI file (after includes, `extends` and `!reference`): validated with the
// reference's messages (lib/gitlab/ci/config/entry/*.rb — "<location> <attribute> <problem>",
// lower-cased as the reference's Validator#messages does) and turned into JobSpecs.
import { durationSeconds, isNever } from '../../shared/duration.js';

const ONE_WEEK = 7 * 86400; // start_in's limit
const ONE_MONTH = 30 * 86400; // timeout's limit
import { isValidExpression } from './expression.js';
import { compileRegexp, looksLikeRegexp, parseSlashedRegexp } from './regex.js';
import type { ArtifactsSpec, CacheSpec, ContainerImageSpec, EnvironmentSpec, JobWhen, NeedSpec, PlannedJob, ReleaseSpec, TriggerSpec } from './types.js';
import { isMap, type YamlMap, type YamlValue } from './yaml.js';

export interface RuleSpec {
  if: string | null;
  changes: string[] | null;
  /** `changes:compare_to`: the ref the changes are taken against instead of the push's. */
  compareTo: string | null;
  exists: string[] | null;
  when: string | null;
  startIn: string | null;
  allowFailure: boolean | null;
  variables: Record<string, string> | null;
}

export interface PolicySpec {
  refs?: string[];
  variables?: string[];
  changes?: string[];
  kubernetes?: string;
}

/** A job as the file states it: the planned job's fields before stages are numbered, plus what decides whether it runs. */
export interface JobSpec extends Omit<PlannedJob, 'type' | 'stageIdx' | 'inheritVariables'> {
  bridge: boolean;
  /** `inherit:variables`: true (all global variables), false (none) or the names to inherit. */
  inheritVariables: boolean | string[];
  /** `parallel`: a count, or the matrix rows (variable → values), expanded into planned jobs. */
  parallel: number | Array<Array<[string, string[]]>> | null;
  rules: RuleSpec[] | null;
  only: PolicySpec | null;
  except: PolicySpec | null;
}

export interface ConfigSpec {
  stages: string[];
  variables: Record<string, string>;
  workflowRules: RuleSpec[] | null;
  /** `workflow:name` as written (variables not yet expanded). */
  workflowName: string | null;
  jobs: JobSpec[];
}

/** Top-level keys that are never jobs. */
export const RESERVED_KEYS = new Set([
  'image', 'services', 'stages', 'types', 'before_script', 'after_script', 'variables', 'cache', 'include', 'workflow', 'default',
]);

export const DEFAULT_STAGES = ['build', 'test', 'deploy'];
const EDGE_PRE = '.pre';
const EDGE_POST = '.post';

const JOB_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];
const BRIDGE_WHEN = ['on_success', 'on_failure', 'always', 'manual'];
const RULE_WHEN = ['on_success', 'on_failure', 'always', 'never', 'manual', 'delayed'];
const WORKFLOW_WHEN = ['always', 'never'];

const PROCESSABLE_KEYS = ['extends', 'stage', 'only', 'except', 'rules', 'variables', 'inherit', 'allow_failure', 'when', 'needs', 'resource_group'];
const JOB_KEYS = [
  'tags', 'script', 'type', 'image', 'services', 'start_in', 'artifacts', 'cache', 'dependencies', 'before_script',
  'after_script', 'hooks', 'environment', 'coverage', 'retry', 'parallel', 'interruptible', 'timeout', 'release',
  'secrets', 'dast_configuration', 'id_tokens', ...PROCESSABLE_KEYS,
];
const BRIDGE_KEYS = ['trigger', 'parallel', ...PROCESSABLE_KEYS];
const DEFAULT_KEYS = ['before_script', 'image', 'services', 'after_script', 'cache', 'interruptible', 'timeout', 'retry', 'tags', 'artifacts', 'hooks', 'id_tokens'];
const LEGACY_DEFAULT_KEYS = ['before_script', 'image', 'services', 'after_script', 'cache'];
const ARTIFACTS_KEYS = ['name', 'untracked', 'paths', 'reports', 'when', 'expire_in', 'expose_as', 'exclude', 'public'];
export const REPORT_KEYS = [
  'junit', 'codequality', 'sast', 'secret_detection', 'dependency_scanning', 'container_scanning', 'dast', 'performance',
  'browser_performance', 'load_performance', 'license_scanning', 'metrics', 'lsif', 'dotenv', 'terraform', 'accessibility',
  'coverage_fuzzing', 'api_fuzzing', 'cluster_image_scanning', 'requirements', 'requirements_v2', 'coverage_report', 'cyclonedx',
];
const ENVIRONMENT_KEYS = ['name', 'url', 'action', 'on_stop', 'auto_stop_in', 'kubernetes', 'deployment_tier'];
const ENVIRONMENT_ACTIONS = ['start', 'stop', 'prepare', 'verify', 'access'];
const RULE_KEYS = ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables'];
const WORKFLOW_RULE_KEYS = ['if', 'changes', 'exists', 'when', 'variables'];
/** The failure reasons `retry:when` accepts (the reference's Ci::Build failure reasons + always). */
export const RETRY_WHEN = [
  'always', 'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure',
  'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure', 'unmet_prerequisites',
  'scheduler_failure', 'data_integrity_failure', 'missing_dependency_failure', 'forward_deployment_failure',
  'user_blocked', 'project_deleted', 'ci_quota_exceeded', 'pipeline_loop_detected', 'no_matching_runner',
  'trace_size_exceeded', 'builds_disabled', 'environment_creation_failure', 'deployment_rejected',
  'failed_outdated_deployment_job', 'protected_environment_failure', 'insufficient_bridge_permissions',
  'downstream_bridge_project_not_found', 'invalid_bridge_trigger', 'upstream_bridge_project_not_found',
  'bridge_pipeline_is_child_pipeline', 'downstream_pipeline_creation_failed', 'secrets_provider_not_found',
  'reached_max_descendant_pipelines_depth',
];
const PARALLEL_LIMIT = 200;
const MAX_NESTING = 10;
const ENV_NAME = /^(?!\/)[a-zA-Z0-9 \-./_${}]+(?<!\/)$/;
const ENV_NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";

/** Collects "<location> <message>" errors, lower-cased like the reference's entry validator. */
class Errors {
  readonly list: string[] = [];
  add(location: string, message: string): void {
    this.list.push(`${location} ${message}`.toLowerCase());
  }
  /** A message the reference raises as written (not lower-cased). */
  raw(message: string): void {
    this.list.push(message);
  }
}

const has = (m: YamlMap, k: string): boolean => Object.prototype.hasOwnProperty.call(m, k) && m[k] !== null && m[k] !== undefined;
const isStr = (v: YamlValue | undefined): v is string => typeof v === 'string';
const isInt = (v: YamlValue | undefined): v is number => typeof v === 'number' && Number.isInteger(v);
const isStrArray = (v: YamlValue | undefined): v is string[] => Array.isArray(v) && v.every(isStr);
const unknownKeys = (m: YamlMap, allowed: readonly string[]): string[] => Object.keys(m).filter((k) => !allowed.includes(k));

/** A string or nested arrays of strings (at most `max` levels), flattened; null when invalid. */
function nestedStrings(v: YamlValue | undefined, max = MAX_NESTING, level = 1): string[] | null {
  if (isStr(v) && level === 1) return [v];
  if (!Array.isArray(v) || level > max) return null;
  const out: string[] = [];
  for (const item of v) {
    if (isStr(item)) out.push(item);
    else {
      const inner = nestedStrings(item, max, level + 1);
      if (!inner) return null;
      out.push(...inner);
    }
  }
  return out;
}

function commands(v: YamlValue | undefined, location: string, errors: Errors): string[] | null {
  const out = nestedStrings(v);
  if (!out) errors.add(location, `config should be a string or a nested array of strings up to ${MAX_NESTING} levels deep`);
  return out;
}

/** A variable value: a string or an integer (as the reference, a float like 1.10 is refused). */
function scalarString(v: YamlValue | undefined): string | null {
  if (isStr(v)) return v;
  if (isInt(v)) return String(v);
  return null;
}

/** `variables:` — KEY: value or KEY: {value, …}; values strings or numbers. */
function variablesOf(
  v: YamlValue | undefined,
  location: string,
  errors: Errors,
  dataKeys: readonly string[],
  message: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (v === undefined || v === null) return out;
  if (!isMap(v)) {
    errors.add(location, message);
    return out;
  }
  for (const [key, raw] of Object.entries(v)) {
    let value: string | null;
    if (isMap(raw)) {
      const bad = unknownKeys(raw, dataKeys);
      if (bad.length) {
        errors.add(`${location}:${key}`, `config uses invalid data keys: ${bad.join(', ')}`);
        continue;
      }
      value = raw.value === undefined || raw.value === null ? '' : scalarString(raw.value);
    } else {
      value = scalarString(raw);
    }
    if (value === null) {
      errors.add(location, message);
      return {};
    }
    out[key] = value;
  }
  return out;
}

function imageOf(v: YamlValue | undefined, location: string, errors: Errors): string | null {
  if (v === undefined || v === null) return null;
  if (isStr(v)) return v;
  if (isMap(v)) {
    const bad = unknownKeys(v, ['name', 'entrypoint', 'docker', 'pull_policy', 'ports']);
    if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
    if (!isStr(v.name)) {
      errors.add(location, "name can't be blank");
      return null;
    }
    return v.name;
  }
  errors.add(location, 'config should be a hash or a string');
  return null;
}

function checkServices(v: YamlValue | undefined, location: string, errors: Errors): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) {
    errors.add(location, 'config should be a array');
    return;
  }
  for (const s of v) if (!isStr(s) && !isMap(s)) errors.add(`${location}:service`, 'config should be a hash or a string');
}

const strList = (v: YamlValue | undefined): string[] | null => (isStr(v) ? [v] : isStrArray(v) ? v : null);

/** An image or service entry, already checked, in its long form; null when it has no name. */
function containerImage(v: YamlValue | undefined): ContainerImageSpec | null {
  if (isStr(v)) return { name: v, alias: null, entrypoint: null, command: null, pullPolicy: null, ports: [], variables: {}, executorOpts: {} };
  if (!isMap(v) || !isStr(v.name)) return null;
  const ports = Array.isArray(v.ports)
    ? v.ports.flatMap((p) => {
        if (typeof p === 'number') return [{ number: p, protocol: null, name: null }];
        if (isMap(p) && typeof p.number === 'number') return [{ number: p.number, protocol: isStr(p.protocol) ? p.protocol : null, name: isStr(p.name) ? p.name : null }];
        return [];
      })
    : [];
  const variables: Record<string, string> = {};
  if (isMap(v.variables)) for (const [k, val] of Object.entries(v.variables)) if (val !== null && typeof val !== 'object') variables[k] = String(val);
  const executorOpts: Record<string, unknown> = {};
  for (const key of ['docker', 'kubernetes']) if (isMap(v[key])) executorOpts[key] = v[key];
  return {
    name: v.name,
    alias: isStr(v.alias) ? v.alias : null,
    entrypoint: strList(v.entrypoint),
    command: strList(v.command),
    pullPolicy: strList(v.pull_policy),
    ports,
    variables,
    executorOpts,
  };
}

/** An image given only by its name (stored as `image`, nothing more). */
const sameAsName = (s: ContainerImageSpec): boolean =>
  !s.alias && !s.entrypoint && !s.command && !s.pullPolicy && !s.ports.length && !Object.keys(s.variables).length && !Object.keys(s.executorOpts).length;

/** `services:`, already checked. */
const servicesOf = (v: YamlValue | undefined): ContainerImageSpec[] =>
  Array.isArray(v) ? v.map(containerImage).filter((s): s is ContainerImageSpec => s !== null) : [];

/** `cache:`, already checked, with the reference's defaults (key `default`, policy `pull-push`, when `on_success`). */
function cacheOf(v: YamlValue | undefined): CacheSpec[] {
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).filter(isMap).map((c) => {
    let key: CacheSpec['key'] = 'default';
    if (isStr(c.key) || typeof c.key === 'number') key = String(c.key);
    else if (isMap(c.key)) key = { files: strList(c.key.files) ?? [], prefix: isStr(c.key.prefix) ? c.key.prefix : null };
    return {
      key,
      untracked: c.untracked === true,
      policy: isStr(c.policy) ? c.policy : 'pull-push',
      paths: strList(c.paths) ?? [],
      when: isStr(c.when) ? c.when : 'on_success',
      fallbackKeys: strList(c.fallback_keys) ?? [],
      unprotect: c.unprotect === true,
    };
  });
}

function checkCache(v: YamlValue | undefined, location: string, errors: Errors): void {
  if (v === undefined || v === null) return;
  const list = Array.isArray(v) ? v : [v];
  for (const c of list) {
    if (!isMap(c)) {
      errors.add(location, 'config should be a hash');
      return;
    }
    const bad = unknownKeys(c, ['key', 'untracked', 'paths', 'when', 'policy', 'fallback_keys', 'unprotect']);
    if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
  }
}

function booleanOf(v: YamlValue | undefined, location: string, errors: Errors): boolean | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'boolean') {
    errors.add(location, 'config should be a boolean value');
    return null;
  }
  return v;
}

function tagsOf(v: YamlValue | undefined, location: string, errors: Errors): string[] | null {
  if (v === undefined || v === null) return null;
  if (!isStrArray(v)) {
    errors.add(location, 'config should be an array of strings');
    return null;
  }
  return v;
}

/** A delayed job's `start_in`: a positive duration of at most a week (the reference's limit). */
function startInOf(v: YamlValue | undefined, location: string, errors: Errors): string | null {
  const seconds = isStr(v) ? durationSeconds(v) : null;
  if (!isStr(v) || seconds === null) errors.add(location, 'start in should be a duration');
  else if (seconds > ONE_WEEK) errors.add(location, 'start in should not exceed the limit');
  else return v;
  return null;
}

function timeoutOf(v: YamlValue | undefined, location: string, errors: Errors): number | null {
  if (v === undefined || v === null) return null;
  // a YAML number is taken as seconds (the reference wants a string)
  const seconds = typeof v === 'number' ? (Number.isFinite(v) && v >= 0 ? Math.round(v) : null) : isStr(v) ? durationSeconds(v) : null;
  if (seconds === null) {
    errors.add(location, 'config should be a duration');
    return null;
  }
  if (seconds > ONE_MONTH) {
    errors.add(location, 'config should not exceed the limit');
    return null;
  }
  return seconds;
}

function retryOf(v: YamlValue | undefined, errors: Errors): { max: number; when: string[] } | null {
  if (v === undefined || v === null) return null;
  const checkMax = (n: YamlValue | undefined, attr: string): number | null => {
    if (!isInt(n)) {
      errors.add('retry', `${attr} must be an integer`);
      return null;
    }
    if (n < 0) errors.add('retry', `${attr} must be greater than or equal to 0`);
    else if (n > 2) errors.add('retry', `${attr} must be less than or equal to 2`);
    else return n;
    return null;
  };
  if (typeof v === 'number') {
    const max = checkMax(v, 'config');
    return max === null ? null : { max, when: ['always'] };
  }
  if (!isMap(v)) {
    errors.add('retry config', 'has to be either an integer or a hash');
    return null;
  }
  const bad = unknownKeys(v, ['max', 'when', 'exit_codes']);
  if (bad.length) {
    errors.add('retry', `config contains unknown keys: ${bad.join(', ')}`);
    return null;
  }
  let max = 0;
  if (has(v, 'max')) {
    const m = checkMax(v.max, 'max');
    if (m === null) return null;
    max = m;
  }
  let when = ['always'];
  if (has(v, 'when')) {
    const w = v.when;
    if (isStr(w)) {
      if (!RETRY_WHEN.includes(w)) {
        errors.add('retry', 'when is not included in the list');
        return null;
      }
      when = [w];
    } else if (isStrArray(w)) {
      const unknown = w.filter((x) => !RETRY_WHEN.includes(x));
      if (unknown.length) {
        errors.add('retry', `when contains unknown values: ${unknown.join(', ')}`);
        return null;
      }
      when = w;
    } else {
      errors.add('retry', 'when should be an array of strings or a string');
      return null;
    }
  }
  return { max, when };
}

function artifactsOf(v: YamlValue | undefined, location: string, errors: Errors): ArtifactsSpec | null {
  if (v === undefined || v === null) return null;
  if (!isMap(v)) {
    errors.add(location, 'config should be a hash');
    return null;
  }
  const before = errors.list.length;
  const bad = unknownKeys(v, ARTIFACTS_KEYS);
  if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
  if (has(v, 'name') && !isStr(v.name)) errors.add(location, 'name should be a string');
  if (has(v, 'untracked') && typeof v.untracked !== 'boolean') errors.add(location, 'untracked should be a boolean value');
  if (has(v, 'paths') && !isStrArray(v.paths)) errors.add(location, 'paths should be an array of strings');
  if (has(v, 'exclude') && !isStrArray(v.exclude)) errors.add(location, 'exclude should be an array of strings');
  if (has(v, 'when') && !(isStr(v.when) && ['on_success', 'on_failure', 'always'].includes(v.when))) {
    errors.add(location, 'when should be on_success, on_failure or always');
  }
  if (has(v, 'expire_in')) {
    const e = v.expire_in;
    if (!(isStr(e) && (isNever(e) || durationSeconds(e) !== null))) errors.add(location, 'expire in should be a duration');
  }
  if (has(v, 'expose_as') && !isStr(v.expose_as)) errors.add(location, 'expose as should be a string');
  const reports: Record<string, string[]> = {};
  if (has(v, 'reports')) {
    const r = v.reports;
    const rl = `${location}:reports`;
    if (!isMap(r)) errors.add(rl, 'config should be a hash');
    else {
      const badReports = unknownKeys(r, REPORT_KEYS);
      if (badReports.length) errors.add(rl, `config contains unknown keys: ${badReports.join(', ')}`);
      for (const [type, value] of Object.entries(r)) {
        if (!REPORT_KEYS.includes(type) || value === null) continue;
        if (type === 'coverage_report') {
          const cl = `${rl}:coverage_report`;
          if (!isMap(value)) {
            errors.add(cl, 'config should be a hash');
            continue;
          }
          const badCov = unknownKeys(value, ['coverage_format', 'path']);
          if (badCov.length) errors.add(cl, `config contains unknown keys: ${badCov.join(', ')}`);
          if (!isStr(value.path)) errors.add(cl, 'path should be a string');
          if (value.coverage_format !== 'cobertura') errors.add(cl, 'coverage format should be one of: cobertura');
          if (isStr(value.path)) reports[type] = [value.path];
        } else if (isStr(value)) reports[type] = [value];
        else if (isStrArray(value)) reports[type] = value;
        else errors.add(rl, `${type.replace(/_/g, ' ')} should be an array of strings or a string`);
      }
    }
  }
  if (errors.list.length > before) return null;
  return {
    paths: isStrArray(v.paths) ? v.paths : [],
    exclude: isStrArray(v.exclude) ? v.exclude : [],
    name: isStr(v.name) ? v.name : null,
    expireIn: isStr(v.expire_in) ? v.expire_in : null,
    when: (isStr(v.when) ? v.when : 'on_success') as ArtifactsSpec['when'],
    untracked: v.untracked === true,
    reports,
  };
}

function environmentOf(v: YamlValue | undefined, location: string, errors: Errors): EnvironmentSpec | null {
  if (v === undefined || v === null) return null;
  let name: YamlValue | undefined;
  let url: string | null = null;
  let action = 'start';
  if (isStr(v)) name = v;
  else if (isMap(v)) {
    const bad = unknownKeys(v, ENVIRONMENT_KEYS);
    if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
    name = v.name;
    if (has(v, 'url')) {
      if (!isStr(v.url)) errors.add(location, 'url should be a string');
      else if (v.url.length > 255) errors.add(location, 'url is too long (maximum is 255 characters)');
      else url = v.url;
    }
    if (has(v, 'action')) {
      if (!(isStr(v.action) && ENVIRONMENT_ACTIONS.includes(v.action))) {
        errors.add(location, 'action should be start, stop, prepare, verify, or access');
      } else action = v.action;
    }
    if (has(v, 'on_stop') && !isStr(v.on_stop)) errors.add(location, 'on stop should be a string');
  } else {
    errors.add(location, 'config should be a hash or a string');
    return null;
  }
  if (name === undefined || name === null || name === '') {
    errors.add(location, "name can't be blank");
    return null;
  }
  if (!isStr(name) || !ENV_NAME.test(name)) {
    errors.add(location, `name ${ENV_NAME_MESSAGE}`);
    return null;
  }
  return { name, url, action };
}

const RELEASE_KEYS = ['tag_name', 'tag_message', 'name', 'description', 'ref', 'released_at', 'milestones', 'assets'];
const RELEASE_LINK_KEYS = ['name', 'url', 'filepath', 'direct_asset_path', 'link_type'];

/** `release:` (the reference's Entry::Release and its assets/links entries), or null. */
function releaseOf(v: YamlValue | undefined, location: string, errors: Errors): ReleaseSpec | null {
  if (v === undefined || v === null) return null;
  if (!isMap(v)) {
    errors.add(location, 'config should be a hash');
    return null;
  }
  const before = errors.list.length;
  const bad = unknownKeys(v, RELEASE_KEYS);
  if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
  const str = (k: string): string | null => {
    if (!has(v, k)) return null;
    const s = scalarString(v[k]);
    if (s === null) errors.add(location, `${k.replace(/_/g, ' ')} should be a string`);
    return s;
  };
  const tagName = str('tag_name');
  const description = str('description');
  if (!tagName) errors.add(location, "tag name can't be blank");
  if (!description) errors.add(location, "description can't be blank");
  const out = { tagMessage: str('tag_message'), name: str('name'), ref: str('ref'), releasedAt: str('released_at') };
  let milestones: string[] = [];
  if (has(v, 'milestones')) {
    const m = v.milestones;
    if (isStr(m)) milestones = [m];
    else if (isStrArray(m)) milestones = m;
    else errors.add(`${location}:milestones`, 'config should be an array of strings or a string');
  }
  const links: ReleaseSpec['links'] = [];
  if (has(v, 'assets')) {
    const a = v.assets;
    if (!isMap(a)) errors.add(`${location}:assets`, 'config should be a hash');
    else {
      const badA = unknownKeys(a, ['links']);
      if (badA.length) errors.add(`${location}:assets`, `config contains unknown keys: ${badA.join(', ')}`);
      if (!Array.isArray(a.links) || a.links.length === 0) errors.add(`${location}:assets:links`, 'config should be an array of hashes');
      else {
        for (const l of a.links) {
          if (!isMap(l)) {
            errors.add(`${location}:assets:links:link`, 'config should be a hash');
            continue;
          }
          const badL = unknownKeys(l, RELEASE_LINK_KEYS);
          if (badL.length) errors.add(`${location}:assets:links:link`, `config contains unknown keys: ${badL.join(', ')}`);
          if (!isStr(l.name) || l.name === '') errors.add(`${location}:assets:links:link`, "name can't be blank");
          if (!isStr(l.url) || l.url === '') errors.add(`${location}:assets:links:link`, "url can't be blank");
          const path = isStr(l.direct_asset_path) ? l.direct_asset_path : isStr(l.filepath) ? l.filepath : null;
          if (isStr(l.name) && isStr(l.url)) links.push({ name: l.name, url: l.url, filepath: path, linkType: isStr(l.link_type) ? l.link_type : null });
        }
      }
    }
  }
  if (errors.list.length > before) return null;
  return { tagName: tagName!, description: description!, ...out, milestones, links };
}

function coverageOf(v: YamlValue | undefined, location: string, errors: Errors): string | null {
  if (v === undefined || v === null) return null;
  if (!isStr(v) || !/^\/.*\/$/s.test(v) || v.length < 2 || !compileRegexp(v.slice(1, -1))) {
    errors.add(location, 'config must be a regular expression with re2 syntax');
    return null;
  }
  return v.slice(1, -1);
}

/** `needs:` before parallel expansion; cross-pipeline needs are left out. */
function needsOf(v: YamlValue | undefined, location: string, errors: Errors): NeedSpec[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) && !isMap(v)) {
    errors.add(location, 'config can only be a hash or an array');
    return null;
  }
  if (isMap(v) && Object.keys(v).length === 0) {
    errors.add(location, 'config can not be an empty hash');
    return null;
  }
  const list = (Array.isArray(v) ? v : [v]).flat(MAX_NESTING) as YamlValue[];
  const out: NeedSpec[] = [];
  const nl = `${location}:need`;
  for (const need of list) {
    if (isStr(need)) {
      if (need === '') errors.add(nl, "config can't be blank");
      else out.push({ job: need, artifacts: true, optional: false });
    } else if (isMap(need) && has(need, 'job') && !has(need, 'project') && !has(need, 'ref') && !has(need, 'pipeline')) {
      const bad = unknownKeys(need, ['job', 'artifacts', 'optional', 'parallel']);
      if (bad.length) errors.add(nl, `config contains unknown keys: ${bad.join(', ')}`);
      if (!isStr(need.job)) errors.add(nl, 'job should be a string');
      if (has(need, 'artifacts') && typeof need.artifacts !== 'boolean') errors.add(nl, 'artifacts should be a boolean value');
      if (has(need, 'optional') && typeof need.optional !== 'boolean') errors.add(nl, 'optional should be a boolean value');
      // `parallel:matrix`: only the instances of a matrix job with these values.
      const rows = has(need, 'parallel') ? parallelOf(need.parallel, `${nl}:parallel`, errors, true) : null;
      if (!isStr(need.job)) continue;
      const spec = { artifacts: need.artifacts !== false, optional: need.optional === true };
      if (Array.isArray(rows)) for (const m of matrixInstances(need.job, rows)) out.push({ job: m.name, ...spec });
      else if (!has(need, 'parallel')) out.push({ job: need.job, ...spec });
    } else if (isMap(need) && has(need, 'job') && has(need, 'pipeline') && !has(need, 'project')) {
      const bad = unknownKeys(need, ['pipeline', 'job', 'artifacts']);
      if (bad.length) errors.add(nl, `config contains unknown keys: ${bad.join(', ')}`);
    } else if (isMap(need) && has(need, 'pipeline') && !has(need, 'job')) {
      // A bridge's `needs:pipeline` (mirror an upstream pipeline's status): not supported, ignored.
    } else {
      errors.add(nl, 'has an unsupported type');
    }
  }
  return out;
}

function policyOf(v: YamlValue | undefined, location: string, errors: Errors): PolicySpec | null {
  if (v === undefined || v === null) return null;
  const refsValid = (refs: YamlValue): refs is string[] =>
    Array.isArray(refs) && refs.every((r) => isStr(r) && (!looksLikeRegexp(r.split('@')[0]!) || parseSlashedRegexp(r.split('@')[0]!) !== null));
  if (Array.isArray(v)) {
    if (!refsValid(v)) {
      errors.add(location, 'config should be an array of strings or regexps');
      return null;
    }
    return { refs: v };
  }
  if (isMap(v)) {
    if (Object.keys(v).length === 0) {
      errors.add(location, "config can't be blank");
      return null;
    }
    const before = errors.list.length;
    const bad = unknownKeys(v, ['refs', 'kubernetes', 'variables', 'changes']);
    if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
    const out: PolicySpec = {};
    if (has(v, 'refs')) {
      if (!refsValid(v.refs!)) errors.add(location, 'refs should be an array of strings or regexps');
      else out.refs = v.refs as string[];
    }
    if (has(v, 'kubernetes')) {
      if (v.kubernetes !== 'active') errors.add(location, `kubernetes unknown value: ${String(v.kubernetes)}`);
      else out.kubernetes = 'active';
    }
    if (has(v, 'variables')) {
      if (!isStrArray(v.variables)) errors.add(location, 'variables should be an array of strings');
      else {
        for (const s of v.variables) if (!isValidExpression(s)) errors.add(location, 'variables invalid expression syntax');
        out.variables = v.variables;
      }
    }
    if (has(v, 'changes')) {
      if (!isStrArray(v.changes)) errors.add(location, 'changes should be an array of strings');
      else out.changes = v.changes;
    }
    return errors.list.length > before ? null : out;
  }
  errors.add(location, 'has to be either an array of conditions or a hash');
  return null;
}

function rulesOf(
  v: YamlValue | undefined,
  location: string,
  errors: Errors,
  opts: { allowedWhen: readonly string[]; allowedKeys: readonly string[]; parentMessage: string },
): RuleSpec[] | null {
  if (v === undefined || v === null) return null;
  const flat = Array.isArray(v) ? (v.flat(MAX_NESTING) as YamlValue[]) : null;
  if (!flat || !flat.every(isMap)) {
    errors.add(opts.parentMessage, 'should be an array of hashes');
    return null;
  }
  if (flat.length === 0) {
    errors.add(location, "config can't be blank");
    return null;
  }
  const out: RuleSpec[] = [];
  const rl = `${location}:rule`;
  const before = errors.list.length;
  for (const rule of flat as YamlMap[]) {
    const bad = unknownKeys(rule, opts.allowedKeys);
    if (bad.length) errors.add(rl, `config contains unknown keys: ${bad.join(', ')}`);
    if (Object.keys(rule).length === 0) errors.add(rl, "config can't be blank");
    const when = has(rule, 'when') ? rule.when : null;
    if (when !== null && !(isStr(when) && opts.allowedWhen.includes(when))) errors.add(rl, `when unknown value: ${String(when)}`);
    if (has(rule, 'if') && !isValidExpression(rule.if)) errors.add(rl, 'if invalid expression syntax');
    let changes: string[] | null = null;
    let compareTo: string | null = null;
    if (has(rule, 'changes')) {
      const c = rule.changes!;
      if (isStrArray(c)) changes = c;
      else if (isMap(c)) {
        const badC = unknownKeys(c, ['paths', 'compare_to']);
        if (badC.length) errors.add(`${rl}:changes`, `config contains unknown keys: ${badC.join(', ')}`);
        if (!has(c, 'paths')) errors.add(`${rl}:changes`, "paths can't be blank");
        else if (!isStrArray(c.paths)) errors.add(`${rl}:changes`, 'paths should be an array of strings');
        else changes = c.paths;
        if (has(c, 'compare_to')) {
          if (!isStr(c.compare_to)) errors.add(`${rl}:changes`, 'compare to should be a string');
          else compareTo = c.compare_to;
        }
      } else errors.add(`${rl}:changes`, 'config should be an array of strings');
    }
    let exists: string[] | null = null;
    if (has(rule, 'exists')) {
      if (isStrArray(rule.exists)) exists = rule.exists;
      else errors.add(rl, 'exists should be an array of strings');
    }
    let allowFailure: boolean | null = null;
    if (has(rule, 'allow_failure')) {
      if (typeof rule.allow_failure !== 'boolean') errors.add(rl, 'allow failure should be a boolean value');
      else allowFailure = rule.allow_failure;
    }
    let startIn: string | null = null;
    if (when === 'delayed') {
      if (!has(rule, 'start_in')) errors.add(rl, "start in can't be blank");
      else startIn = startInOf(rule.start_in, rl, errors);
    } else if (has(rule, 'start_in') && opts.allowedKeys.includes('start_in')) {
      errors.add(rl, 'config contains disallowed keys: start_in');
    }
    const variables = has(rule, 'variables')
      ? variablesOf(rule.variables, `${rl}:variables`, errors, ['value', 'expand'], 'config should be a hash of key value pairs')
      : null;
    out.push({
      if: isStr(rule.if) ? rule.if : null,
      changes,
      compareTo,
      exists,
      when: isStr(when) ? when : null,
      startIn,
      allowFailure,
      variables,
    });
  }
  return errors.list.length > before ? null : out;
}

function inheritOf(v: YamlValue | undefined, location: string, errors: Errors): { defaults: boolean | string[]; variables: boolean | string[] } {
  const out = { defaults: true as boolean | string[], variables: true as boolean | string[] };
  if (v === undefined || v === null) return out;
  if (!isMap(v)) {
    errors.add(location, 'config should be a hash');
    return out;
  }
  const bad = unknownKeys(v, ['default', 'variables']);
  if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
  for (const [key, target] of [['default', 'defaults'], ['variables', 'variables']] as const) {
    if (!has(v, key)) continue;
    const x = v[key];
    if (typeof x === 'boolean') out[target] = x;
    else if (isStrArray(x)) {
      if (key === 'default') {
        const unknown = x.filter((k) => !DEFAULT_KEYS.includes(k));
        if (unknown.length) errors.add(`${location}:default`, `config contains unknown values: ${unknown.join(', ')}`);
      }
      out[target] = x;
    } else errors.add(`${location}:${key}`, 'config should be a boolean value or an array of strings');
  }
  return out;
}

function parallelOf(v: YamlValue | undefined, location: string, errors: Errors, bridge: boolean): JobSpec['parallel'] {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') {
    if (bridge) {
      errors.add(location, 'config cannot use "parallel: <number>".');
      return null;
    }
    if (!Number.isInteger(v)) errors.add(location, 'config must be an integer');
    else if (v < 1) errors.add(location, 'config must be greater than or equal to 1');
    else if (v > PARALLEL_LIMIT) errors.add(location, `config must be less than or equal to ${PARALLEL_LIMIT}`);
    else return v;
    return null;
  }
  if (!isMap(v)) {
    errors.add(location, 'should be an integer or a hash');
    return null;
  }
  const bad = unknownKeys(v, ['matrix']);
  if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
  if (!has(v, 'matrix')) {
    errors.add(location, 'config missing required keys: matrix');
    return null;
  }
  const ml = `${location}:matrix`;
  const matrix = v.matrix;
  if (!Array.isArray(matrix) || !matrix.every(isMap)) {
    errors.add(ml, 'config should be an array of hashes');
    return null;
  }
  const rows: Array<Array<[string, string[]]>> = [];
  let total = 0;
  for (const row of matrix as YamlMap[]) {
    const vars: Array<[string, string[]]> = [];
    for (const [key, value] of Object.entries(row)) {
      const list = Array.isArray(value) ? value.map(scalarString) : [scalarString(value)];
      if (list.length === 0 || list.some((x) => x === null)) {
        errors.add(ml, 'config should be a hash of key value pairs, value can be an array');
        return null;
      }
      vars.push([key, list as string[]]);
    }
    if (vars.length === 0) {
      errors.add(ml, "config can't be blank");
      return null;
    }
    total += vars.reduce((n, [, values]) => n * values.length, 1);
    rows.push(vars);
  }
  if (total > PARALLEL_LIMIT) {
    errors.add(ml, `config generates too many jobs (maximum is ${PARALLEL_LIMIT})`);
    return null;
  }
  return rows;
}

type MatrixRows = Array<Array<[string, string[]]>>;

/**
 * The instances a `parallel:matrix` makes, in the reference's order: `name: [v1, v2]` with their
 * values. Rows that give the same values give the same job once (the reference keys jobs by name).
 */
export function matrixInstances(name: string, rows: MatrixRows): Array<{ name: string; combo: Array<[string, string]> }> {
  const unique = new Map<string, Array<[string, string]>>();
  for (const row of rows) {
    let acc: Array<Array<[string, string]>> = [[]];
    for (const [key, values] of row) acc = acc.flatMap((prefix) => values.map((v) => [...prefix, [key, v] as [string, string]]));
    for (const combo of acc) {
      const instance = `${name}: [${combo.map(([, v]) => v).join(', ')}]`;
      if (!unique.has(instance)) unique.set(instance, combo);
    }
  }
  return [...unique].map(([instance, combo]) => ({ name: instance, combo }));
}

function triggerOf(v: YamlValue | undefined, location: string, errors: Errors): TriggerSpec | null {
  if (isStr(v)) {
    if (v === '') {
      errors.add(location, "config can't be blank");
      return null;
    }
    return { include: null, project: v, branch: null, strategy: null };
  }
  if (!isMap(v)) {
    errors.add(location, 'has to be either a string or a hash');
    return null;
  }
  const before = errors.list.length;
  let strategy: 'depend' | null = null;
  if (has(v, 'strategy')) {
    if (v.strategy !== 'depend') errors.add(location, 'strategy should be depend');
    else strategy = 'depend';
  }
  if (has(v, 'include')) {
    const bad = unknownKeys(v, ['strategy', 'include', 'forward']);
    if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
    const raw = v.include!;
    const items = Array.isArray(raw) ? raw : [raw];
    const il = `${location}:include`;
    if (items.length > 3) errors.add(il, 'config is too long (maximum is 3)');
    const files: string[] = [];
    const inputs: Array<YamlMap | null> = [];
    for (const item of items) {
      if (isStr(item)) {
        files.push(item);
        inputs.push(null);
      } else if (isMap(item) && isStr(item.local) && Object.keys(item).every((k) => k === 'local' || k === 'inputs')) {
        if (has(item, 'inputs') && !isMap(item.inputs)) errors.add(il, 'inputs should be a hash');
        files.push(item.local);
        inputs.push(isMap(item.inputs) ? item.inputs : null);
      }
      else if (isMap(item) && (has(item, 'artifact') || has(item, 'template') || has(item, 'project') || has(item, 'remote'))) {
        errors.add(il, 'config is not supported: only local files can make a child pipeline');
      } else errors.add(il, 'config needs to match exactly one accessor');
    }
    if (errors.list.length > before) return null;
    const spec: TriggerSpec = { include: files.map((f) => f.replace(/^\/+/, '')), project: null, branch: null, strategy };
    if (inputs.some((i) => i !== null)) spec.inputs = inputs;
    return spec;
  }
  if (!has(v, 'project')) {
    errors.add(location, 'config must specify either project or include');
    return null;
  }
  const bad = unknownKeys(v, ['project', 'branch', 'strategy', 'forward']);
  if (bad.length) errors.add(location, `config contains unknown keys: ${bad.join(', ')}`);
  if (!isStr(v.project)) errors.add(location, 'project should be a string');
  if (has(v, 'branch') && !isStr(v.branch)) errors.add(location, 'branch should be a string');
  if (errors.list.length > before) return null;
  return { include: null, project: v.project as string, branch: isStr(v.branch) ? v.branch : null, strategy };
}

interface Defaults {
  beforeScript: string[] | null;
  afterScript: string[] | null;
  image: string | null;
  imageSpec: ContainerImageSpec | null;
  services: ContainerImageSpec[];
  cache: CacheSpec[];
  interruptible: boolean | null;
  timeout: number | null;
  retry: { max: number; when: string[] } | null;
  tags: string[] | null;
  artifacts: ArtifactsSpec | null;
}

function readDefaults(root: YamlMap, errors: Errors): Defaults {
  const d: YamlMap = isMap(root.default) ? root.default : {};
  if (has(root, 'default') && !isMap(root.default)) errors.add('default', 'config should be a hash');
  const bad = unknownKeys(d, DEFAULT_KEYS);
  if (bad.length) errors.add('default', `config contains unknown keys: ${bad.join(', ')}`);
  const source: YamlMap = { ...d };
  for (const key of LEGACY_DEFAULT_KEYS) {
    if (!has(root, key)) continue;
    if (has(d, key)) errors.raw(`${key} is defined in top-level and \`default:\` entry`);
    else source[key] = root[key]!;
  }
  const loc = (key: string): string => (has(d, key) ? `default:${key}` : key);
  const out: Defaults = {
    beforeScript: has(source, 'before_script') ? commands(source.before_script, `${loc('before_script')}`, errors) : null,
    afterScript: has(source, 'after_script') ? commands(source.after_script, `${loc('after_script')}`, errors) : null,
    image: imageOf(source.image, loc('image'), errors),
    imageSpec: containerImage(source.image),
    services: servicesOf(source.services),
    cache: cacheOf(source.cache),
    interruptible: booleanOf(source.interruptible, 'default:interruptible', errors),
    timeout: timeoutOf(source.timeout, 'default:timeout', errors),
    retry: retryOf(source.retry, errors),
    tags: tagsOf(source.tags, 'default:tags', errors),
    artifacts: artifactsOf(source.artifacts, 'default:artifacts', errors),
  };
  checkServices(source.services, loc('services'), errors);
  checkCache(source.cache, loc('cache'), errors);
  return out;
}

function stagesOf(root: YamlMap, errors: Errors): string[] {
  const key = has(root, 'stages') ? 'stages' : has(root, 'types') ? 'types' : null;
  let declared = DEFAULT_STAGES;
  if (key) {
    const v = root[key];
    if (!isStrArray(v)) errors.add(key, 'config should be an array of strings');
    else declared = v;
  }
  const middle = [...new Set(declared.filter((s) => s !== EDGE_PRE && s !== EDGE_POST))];
  return [EDGE_PRE, ...middle, EDGE_POST];
}

function readJob(name: string, config: YamlValue, defaults: Defaults, errors: Errors): JobSpec | null {
  const isBuild = isMap(config) && Object.prototype.hasOwnProperty.call(config, 'script');
  const isBridge = !isBuild && isMap(config) && Object.prototype.hasOwnProperty.call(config, 'trigger');
  if (!isBuild && !isBridge) {
    errors.add(`jobs ${name.replace(/ /g, '_')}`, 'config should implement a script: or a trigger: keyword');
    return null;
  }
  const c = config as YamlMap;
  const at = `jobs:${name}`;
  const before = errors.list.length;
  if (name.length > 255) errors.add(at, 'name is too long (maximum is 255 characters)');

  // The job's own validations first, then its entries (as the reference orders its messages).
  const bad = unknownKeys(c, isBuild ? JOB_KEYS : BRIDGE_KEYS);
  if (bad.length) errors.add(at, `config contains unknown keys: ${bad.join(', ')}`);
  const hasRules = has(c, 'rules');
  if (hasRules) {
    const conflict = Object.keys(c).filter((k) => ['only', 'except', 'when', 'start_in'].includes(k) && has(c, k));
    if (conflict.length) errors.add(at, `config key may not be used with \`rules\`: ${conflict.join(', ')}`);
  }
  const allowedWhen = isBuild ? JOB_WHEN : BRIDGE_WHEN;
  let when: JobWhen = 'on_success';
  if (has(c, 'when')) {
    if (!(isStr(c.when) && allowedWhen.includes(c.when))) errors.add(at, `when should be one of: ${allowedWhen.join(', ')}`);
    else when = c.when as JobWhen;
  }
  let dependencies: string[] | null = null;
  if (has(c, 'dependencies')) {
    if (!isStrArray(c.dependencies)) errors.add(at, 'dependencies should be an array of strings');
    else dependencies = c.dependencies;
  }
  let allowFailure: boolean | null = null;
  let exitCodes: number[] | null = null;
  if (has(c, 'allow_failure')) {
    const af = c.allow_failure!;
    if (typeof af === 'boolean') allowFailure = af;
    else if (isMap(af) && isBuild) {
      const badAf = unknownKeys(af, ['exit_codes']);
      if (badAf.length) errors.add(`${at}:allow_failure`, `config contains unknown keys: ${badAf.join(', ')}`);
      const codes = af.exit_codes;
      if (isInt(codes)) exitCodes = [codes];
      else if (Array.isArray(codes) && codes.every(isInt)) exitCodes = codes as number[];
      else if (codes !== undefined) errors.add(`${at}:allow_failure`, 'exit codes should be an array of integers or an integer');
      allowFailure = false;
    } else errors.add(at, isBuild ? 'allow failure should be a hash or a boolean value' : 'allow failure should be a boolean value');
  }
  let startIn: string | null = null;
  if (when === 'delayed' && !hasRules) {
    startIn = startInOf(c.start_in, at, errors);
  } else if (has(c, 'start_in') && (hasRules || when !== 'delayed') && isBuild) {
    errors.add(at, 'start in must be blank');
  }
  if (has(c, 'extends') && !(isStr(c.extends) || isStrArray(c.extends))) errors.add(at, 'extends should be an array of strings or a string');
  if (has(c, 'resource_group') && !isStr(c.resource_group)) errors.add(at, 'resource group should be a string');

  const inherit = inheritOf(c.inherit, `${at}:inherit`, errors);
  const inherits = (key: string): boolean =>
    inherit.defaults === true || (Array.isArray(inherit.defaults) && inherit.defaults.includes(key));

  // Entries.
  let beforeScript: string[] = [];
  let script: string[] = [];
  let afterScript: string[] = [];
  let image: string | null = null;
  let imageSpec: ContainerImageSpec | null = null;
  let services: ContainerImageSpec[] = [];
  let cache: CacheSpec[] = [];
  let interruptible = false;
  let timeout: number | null = null;
  let retry: { max: number; when: string[] } | null = null;
  let tags: string[] = [];
  let artifacts: ArtifactsSpec | null = null;
  let environment: EnvironmentSpec | null = null;
  let coverage: string | null = null;
  let release: ReleaseSpec | null = null;
  let trigger: TriggerSpec | null = null;
  if (isBuild) {
    if (has(c, 'before_script')) beforeScript = commands(c.before_script, `${at}:before_script`, errors) ?? [];
    else if (inherits('before_script')) beforeScript = defaults.beforeScript ?? [];
    const s = c.script;
    if (s === null || s === undefined || (Array.isArray(s) && s.length === 0) || s === '') errors.add(at, "script can't be blank");
    else script = commands(s, `${at}:script`, errors) ?? [];
  }
  let stage = 'test';
  const stageKey = has(c, 'stage') ? 'stage' : has(c, 'type') ? 'type' : null;
  if (stageKey) {
    if (!isStr(c[stageKey])) errors.add(`${at}:${stageKey}`, 'config should be a string');
    else stage = c[stageKey] as string;
  }
  if (isBuild) {
    if (has(c, 'after_script')) afterScript = commands(c.after_script, `${at}:after_script`, errors) ?? [];
    else if (inherits('after_script')) afterScript = defaults.afterScript ?? [];
    checkCache(c.cache, `${at}:cache`, errors);
    image = has(c, 'image') ? imageOf(c.image, `${at}:image`, errors) : inherits('image') ? defaults.image : null;
    imageSpec = has(c, 'image') ? containerImage(c.image) : inherits('image') ? defaults.imageSpec : null;
    checkServices(c.services, `${at}:services`, errors);
    services = has(c, 'services') ? servicesOf(c.services) : inherits('services') ? defaults.services : [];
    cache = has(c, 'cache') ? cacheOf(c.cache) : inherits('cache') ? defaults.cache : [];
    interruptible = has(c, 'interruptible')
      ? (booleanOf(c.interruptible, `${at}:interruptible`, errors) ?? false)
      : inherits('interruptible') ? (defaults.interruptible ?? false) : false;
    timeout = has(c, 'timeout') ? timeoutOf(c.timeout, `${at}:timeout`, errors) : inherits('timeout') ? defaults.timeout : null;
    retry = has(c, 'retry') ? retryOf(c.retry, errors) : inherits('retry') ? defaults.retry : null;
    tags = has(c, 'tags') ? (tagsOf(c.tags, `${at}:tags`, errors) ?? []) : inherits('tags') ? (defaults.tags ?? []) : [];
    artifacts = has(c, 'artifacts') ? artifactsOf(c.artifacts, `${at}:artifacts`, errors) : inherits('artifacts') ? defaults.artifacts : null;
  } else {
    trigger = triggerOf(c.trigger, `${at}:trigger`, errors);
  }
  const needs = needsOf(c.needs, `${at}:needs`, errors);
  if (isBuild) {
    environment = environmentOf(c.environment, `${at}:environment`, errors);
    coverage = coverageOf(c.coverage, `${at}:coverage`, errors);
    release = releaseOf(c.release, `${at}:release`, errors);
  }
  const parallel = parallelOf(c.parallel, `${at}:parallel`, errors, !isBuild);
  const only = hasRules ? null : policyOf(c.only, `${at}:only`, errors);
  const except = hasRules ? null : policyOf(c.except, `${at}:except`, errors);
  const rules = rulesOf(c.rules, `${at}:rules`, errors, {
    allowedWhen: RULE_WHEN,
    allowedKeys: RULE_KEYS,
    parentMessage: `${at} rules`,
  });
  const variables = variablesOf(c.variables, `${at}:variables`, errors, ['value', 'expand'], 'config should be a hash of key value pairs');
  if (dependencies && needs) {
    const needed = new Set(needs.map((n) => n.job));
    const missing = dependencies.filter((d) => !needed.has(d));
    if (missing.length) errors.add(at, `dependencies the ${missing.join(', ')} should be part of needs`);
  }
  if (errors.list.length > before) return null;

  if (allowFailure === null) allowFailure = when === 'manual';
  return {
    name,
    bridge: !isBuild,
    stage,
    when,
    startIn,
    allowFailure,
    allowFailureExitCodes: exitCodes,
    beforeScript,
    script,
    afterScript,
    image,
    ...(imageSpec && !sameAsName(imageSpec) ? { imageSpec } : {}),
    ...(services.length ? { services } : {}),
    ...(cache.length ? { cache } : {}),
    ...(release ? { release } : {}),
    variables,
    inheritVariables: inherit.variables,
    needs,
    dependencies,
    artifacts,
    coverage,
    retry: retry ?? { max: 0, when: ['always'] },
    timeout,
    tags,
    environment,
    interruptible,
    trigger,
    rules,
    only,
    except,
    parallel,
  };
}

export type ReadResult = { ok: true; spec: ConfigSpec } | { ok: false; errors: string[] };

/** Validates the resolved file and reads its global entries and visible jobs. */
export function readConfig(root: YamlMap): ReadResult {
  const errors = new Errors();
  const defaults = readDefaults(root, errors);
  const variables = variablesOf(
    root.variables,
    'variables',
    errors,
    ['value', 'description', 'expand', 'options'],
    'config should be a hash of key value pairs, value can be a hash',
  );
  const stages = stagesOf(root, errors);
  checkCache(root.cache, 'cache', errors);
  let workflowRules: RuleSpec[] | null = null;
  let workflowName: string | null = null;
  if (has(root, 'workflow')) {
    const w = root.workflow;
    if (!isMap(w)) errors.add('workflow', 'config should be a hash');
    else {
      const bad = unknownKeys(w, ['rules', 'name']);
      if (bad.length) errors.add('workflow', `config contains unknown keys: ${bad.join(', ')}`);
      workflowRules = rulesOf(w.rules, 'workflow:rules', errors, {
        allowedWhen: WORKFLOW_WHEN,
        allowedKeys: WORKFLOW_RULE_KEYS,
        parentMessage: 'workflow:rules config',
      });
      if (has(w, 'name')) {
        const name = scalarString(w.name!);
        if (name === null) errors.add('workflow', 'name should be a string');
        else if (name.length > 255) errors.add('workflow', 'name is too long (maximum is 255 characters)');
        else workflowName = name;
      }
    }
  }
  const jobNames = Object.keys(root).filter((k) => !RESERVED_KEYS.has(k));
  const visible = jobNames.filter((k) => !k.startsWith('.'));
  const jobs: JobSpec[] = [];
  for (const name of visible) {
    if (name === '') {
      errors.add('jobs:job', "name can't be blank");
      continue;
    }
    const job = readJob(name, root[name]!, defaults, errors);
    if (job) jobs.push(job);
  }
  if (visible.length === 0) errors.add('jobs', 'config should contain at least one visible job');
  if (errors.list.length) return { ok: false, errors: errors.list };
  return { ok: true, spec: { stages, variables, workflowRules, workflowName, jobs } };
}
