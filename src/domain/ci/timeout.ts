// How long a job may run. A leaf module: the runner and the node sweep both read it.
import type { PlannedJob } from '../../ci/config/types.js';
import type { ProjectRow } from '../../db/repos/projects.js';

/** The project's build_timeout when the project has none (the reference's default, 1 hour). */
export const DEFAULT_BUILD_TIMEOUT_S = 3600;

/** The seconds a job may run: its own `timeout:`, else the project's build_timeout, else 1 hour. */
export function jobTimeoutSeconds(plan: Pick<PlannedJob, 'timeout'>, project: ProjectRow | null): number {
  if (plan.timeout && plan.timeout > 0) return plan.timeout;
  // build_timeout is not a column yet; read it when it becomes one.
  const projectTimeout = (project as { build_timeout?: unknown } | null)?.build_timeout;
  return typeof projectTimeout === 'number' && projectTimeout > 0 ? projectTimeout : DEFAULT_BUILD_TIMEOUT_S;
}
