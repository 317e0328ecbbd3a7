// The README's "Testing with Anvil" examples, run as their users run them: a pytest suite with
// python-gitlab, a Go TestMain with go-gitlab, and a Node suite with anvil/testing. Each starts
// one ephemeral server (the build, dist/anvil.cjs) seeded from examples/seed.yml and resets it
// before each test.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, distIsFresh } from '../../bench/server.js';
import { PYTHON, pythonGitlabSkip } from '../helpers/clients.js';

/** Module mode with no network: the example's only requirement is the package beside it (a replace). */
export const goModuleEnv = (base: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  ({ ...base, GO111MODULE: 'on', GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: path.join(os.tmpdir(), 'anvil-gocache') });

/** Without `go` the Go example skips, saying why; under CI it must run. */
export function goSkip(): string | false {
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0) return false;
  if (process.env.CI) throw new Error('go is missing; .ci/run installs golang-go');
  return 'go is not installed here (apt-get install golang-go)';
}

const run = promisify(execFile);
const EXAMPLES = path.join(ROOT, 'examples');
const env = {
  // NODE_TEST_CONTEXT would make the example's own node --test report to this runner instead of its stdout.
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_') && k !== 'NODE_TEST_CONTEXT')),
  ANVIL_COMMAND: path.join(ROOT, 'dist/anvil.cjs'),
};

/** pytest beside python-gitlab (Debian's python3-pytest, installed by .ci/run). */
function pytestSkip(): string | false {
  const gitlab = pythonGitlabSkip();
  if (gitlab) return gitlab;
  if (spawnSync(PYTHON, ['-c', 'import pytest'], { stdio: 'ignore' }).status === 0) return false;
  if (process.env.CI) throw new Error('pytest is not installed; .ci/run installs python3-pytest');
  return 'pytest is not installed here (apt-get install python3-pytest)';
}

const failed = (what: string) => (e: { stdout?: string; stderr?: string }) => assert.fail(`${what}:\n${e.stdout}\n${e.stderr}`);

describe('the testing examples', () => {
  before(() => {
    if (distIsFresh()) return;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('examples/node: node --test with anvil/testing', async () => {
    const r = await run(process.execPath, ['--test', path.join(EXAMPLES, 'node')], { cwd: ROOT, env }).catch(failed('node --test'));
    assert.match(r.stdout, /# pass 3\n# fail 0/);
  });

  it('examples/pytest: a session fixture with python-gitlab', { skip: pytestSkip() }, async () => {
    const r = await run(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], { cwd: path.join(EXAMPLES, 'pytest'), env }).catch(failed('pytest'));
    assert.match(r.stdout, /6 passed/);
  });

  it('examples/go: TestMain with the anviltest package, in module mode, offline', { skip: goSkip() }, async () => {
    const r = await run('go', ['test', '-count=1', '-v', '.'], { cwd: path.join(EXAMPLES, 'go'), env: goModuleEnv(env) }).catch(failed('go test'));
    for (const name of ['TestSeededProject', 'TestBranchIsGoneAfterReset', 'TestMainIsProtected', 'TestFaultAndJournal']) assert.match(r.stdout, new RegExp(`--- PASS: ${name}`));
    assert.match(r.stdout, /\nok /);
  });
});
