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
import { goOfflineEnv, PYTHON, goGitlabSkip, pythonGitlabSkip } from '../helpers/clients.js';

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
    assert.match(r.stdout, /5 passed/);
  });

  it('examples/go: TestMain with go-gitlab', { skip: goGitlabSkip() }, async () => {
    // Offline, in GOPATH mode: Debian's packaged sources are the whole dependency tree.
    const goEnv = goOfflineEnv(env);
    const r = await run('go', ['test', '-count=1', '-v', '.'], { cwd: path.join(EXAMPLES, 'go'), env: goEnv }).catch(failed('go test'));
    assert.match(r.stdout, /--- PASS: TestSeededProject/);
    assert.match(r.stdout, /--- PASS: TestBranchIsGoneAfterReset/);
    assert.match(r.stdout, /--- PASS: TestMainIsProtected/);
    assert.match(r.stdout, /\nok /);
  });
});
