// What the real-client tests share: where Debian's python-gitlab lives, and skipping without it.
import { spawnSync } from 'node:child_process';

export const PYTHON = '/usr/bin/python3'; // Debian's python3-gitlab lives there (installed by .ci/run)

/** On a fresh developer machine python-gitlab may be missing: skip, saying why. Under CI it must run. */
export function pythonGitlabSkip(): string | false {
  const r = spawnSync(PYTHON, ['-c', 'import gitlab'], { stdio: 'ignore' });
  if (r.status === 0) return false;
  if (process.env.CI) throw new Error('python-gitlab is not installed; .ci/run installs python3-gitlab');
  return 'python-gitlab is not installed here (apt-get install python3-gitlab)';
}
