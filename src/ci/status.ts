// Job and pipeline statuses, and the composite rule that derives a pipeline's (or a group of
// jobs') status from its jobs, as the reference computes it: an allowed failure counts as
// "success with warnings", a manual job that may fail is ignored, and the order of the checks
// below matters.

export const JOB_STATUSES = [
  'created', 'waiting_for_resource', 'preparing', 'pending', 'running',
  'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A job in one of these will not change again by itself. */
export const COMPLETED_STATUSES: readonly string[] = ['success', 'failed', 'canceled', 'skipped'];
/** Not yet finished: the statuses cancel stops. */
export const ACTIVE_STATUSES: readonly string[] = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'manual', 'scheduled'];
/** The job filter `scope` values of the API. */
export const JOB_SCOPES = ['created', 'pending', 'running', 'failed', 'success', 'canceled', 'skipped', 'manual'] as const;

export interface StatusEntry {
  status: string;
  allow_failure: boolean | number;
}

type Member = string; // a status, or 'success_with_warnings' / 'ignored'

function memberOf(e: StatusEntry): Member {
  if (e.allow_failure) {
    if (e.status === 'failed' || e.status === 'canceled') return 'success_with_warnings';
    if (e.status === 'manual') return 'ignored';
  }
  return e.status;
}

/**
 * The composite status of these jobs; null when there are none. `dag`: the rule for the needs of
 * one job (skipped when a need did not run, pending until every need completed).
 */
export function compositeStatus(entries: Iterable<StatusEntry>, opts: { dag?: boolean } = {}): string | null {
  const set = new Set<Member>();
  for (const e of entries) set.add(memberOf(e));
  if (set.size === 0) return null;
  const onlyOf = (...names: Member[]) => {
    let n = 0;
    for (const name of names) if (set.has(name)) n++;
    return n > 0 && n === set.size;
  };
  const anyOf = (...names: Member[]) => names.some((n) => set.has(n));
  if (opts.dag && anyOf('skipped', 'ignored')) return 'skipped';
  if (opts.dag && !onlyOf('success', 'failed', 'canceled', 'skipped', 'success_with_warnings')) return 'pending';
  if (onlyOf('skipped', 'ignored')) return 'skipped';
  if (onlyOf('success', 'skipped', 'success_with_warnings', 'ignored')) return 'success';
  if (onlyOf('created', 'success_with_warnings', 'ignored')) return 'created';
  if (onlyOf('preparing', 'success_with_warnings', 'ignored')) return 'preparing';
  if (onlyOf('canceled', 'success', 'skipped', 'success_with_warnings', 'ignored')) return 'canceled';
  if (onlyOf('pending', 'created', 'skipped', 'success_with_warnings', 'ignored')) return 'pending';
  if (anyOf('running', 'pending')) return 'running';
  if (anyOf('waiting_for_resource')) return 'waiting_for_resource';
  if (anyOf('manual')) return 'manual';
  if (anyOf('scheduled')) return 'scheduled';
  if (anyOf('preparing')) return 'preparing';
  if (anyOf('created')) return 'running';
  return 'failed';
}

/**
 * What a created job does once the jobs before it (its stage predecessors, or its needs) reached
 * `prior`: 'wait' while they are not complete, 'run' (enqueue, or make manual / scheduled by its
 * `when`), or 'skip'.
 */
export function decideJob(when: string, prior: string | null, dag: boolean): 'wait' | 'run' | 'skip' {
  const status = prior ?? 'success'; // nothing before it
  if (!COMPLETED_STATUSES.includes(status)) return 'wait';
  let valid: string[];
  switch (when) {
    case 'on_success':
    case 'manual':
    case 'delayed':
      valid = dag ? ['success'] : ['success', 'skipped'];
      break;
    case 'on_failure':
      valid = ['failed'];
      break;
    case 'always':
      valid = ['success', 'failed', 'skipped'];
      break;
    default:
      valid = [];
  }
  return valid.includes(status) ? 'run' : 'skip';
}
