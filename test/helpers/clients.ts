// What the real-client tests share: where Debian's python-gitlab lives, and skipping without it.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export const PYTHON = '/usr/bin/python3'; // Debian's python3-gitlab lives there (installed by .ci/run)

/** On a fresh developer machine python-gitlab may be missing: skip, saying why. Under CI it must run. */
export function pythonGitlabSkip(): string | false {
  const r = spawnSync(PYTHON, ['-c', 'import gitlab'], { stdio: 'ignore' });
  if (r.status === 0) return false;
  if (process.env.CI) throw new Error('python-gitlab is not installed; .ci/run installs python3-gitlab');
  return 'python-gitlab is not installed here (apt-get install python3-gitlab)';
}

/** Debian's go-gitlab source (golang-github-xanzy-go-gitlab-dev); built offline in GOPATH mode. */
export const GO_PATH = '/usr/share/gocode';

/** The environment that builds go-gitlab programs offline, in GOPATH mode, from Debian's sources. */
export const goOfflineEnv = (base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv =>
  ({ ...base, GOPATH: GO_PATH, GO111MODULE: 'off', GOFLAGS: '', GOCACHE: path.join(os.tmpdir(), 'anvil-gocache') });

/** Without `go` or go-gitlab the Go client test skips, saying why; under CI both must be there. */
export function goGitlabSkip(): string | false {
  const go = spawnSync('go', ['version'], { stdio: 'ignore' });
  const lib = spawnSync('test', ['-d', `${GO_PATH}/src/github.com/xanzy/go-gitlab`], { stdio: 'ignore' });
  if (go.status === 0 && lib.status === 0) return false;
  if (process.env.CI) throw new Error('go or go-gitlab is missing; .ci/run installs golang-go and golang-github-xanzy-go-gitlab-dev');
  return 'go or go-gitlab is not installed here (apt-get install golang-go golang-github-xanzy-go-gitlab-dev)';
}

