// `anvil serve --ephemeral` as a real process: one JSON line on stdout when ready, a fresh data
// dir in the temp dir removed at SIGTERM (and, after a SIGKILL, by the next start), a seed file
// applied before it is ready, and a bad seed file refused with its line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, distIsFresh } from '../../bench/server.js';

interface Started {
  proc: ChildProcess;
  line: string;
  stderr: () => string;
}

/** Starts `anvil serve --ephemeral …` (the build when it is fresh, else through tsx); resolves at its first stdout line or its exit. */
function start(args: string[]): Promise<Started & { code: number | null }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_')));
  const [cmd, argv] = distIsFresh()
    ? [path.join(ROOT, 'dist/anvil.cjs'), ['serve', '--ephemeral', ...args]]
    : [process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), 'serve', '--ephemeral', ...args]];
  const proc = spawn(cmd, argv, { cwd: ROOT, env: { ...env, ANVIL_RUNNER_ENABLED: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  let out = '';
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: proc.stdout! });
    rl.once('line', (line) => resolve({ proc, line, stderr: () => err, code: null }));
    proc.stdout!.on('data', (d) => (out += d));
    proc.once('exit', (code) => resolve({ proc, line: out, stderr: () => err, code }));
  });
}

const exited = (p: ChildProcess) => new Promise<number | string>((resolve) => (p.exitCode !== null ? resolve(p.exitCode) : p.once('exit', (c, s) => resolve(c ?? s!))));

const SEED = `# the issue's example
users:
  - username: alice
    password: Alice-pass-2026!
    tokens:
      - {name: ci, token: alice-test-token-0000000001, scopes: [api]}
groups:
  - path: acme
    members: [{user: alice, access_level: 30}]
projects:
  - path: acme/demo
    visibility: private
    files:
      README.md: "# demo"
      .gitlab-ci.yml: "hello:\\n  script: [\\"echo hi\\"]\\n"
    protected_branches: [{name: main, push_access_level: 40}]
`;

describe('serve --ephemeral', () => {
  it('prints one JSON line, serves the seed, and removes its data dir at SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-seedfile-'));
    const file = path.join(dir, 'seed.yml');
    fs.writeFileSync(file, SEED);
    try {
      const s = await start(['--seed', file, '--port', '0']);
      assert.equal(s.code, null, s.stderr());
      const ready = JSON.parse(s.line);
      assert.deepEqual(Object.keys(ready), ['url', 'token', 'pid', 'data_dir']);
      assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(ready.pid, s.proc.pid);
      assert.ok(ready.data_dir.startsWith(os.tmpdir()) && fs.existsSync(ready.data_dir));
      const me = await fetch(`${ready.url}/api/v4/user`, { headers: { 'private-token': 'alice-test-token-0000000001' } });
      assert.equal(me.status, 200);
      assert.equal((await me.json()).username, 'alice');
      const project = await fetch(`${ready.url}/api/v4/projects/acme%2Fdemo`, { headers: { 'private-token': ready.token } });
      assert.equal((await project.json()).http_url_to_repo, `${ready.url}/acme/demo.git`);
      const reset = await fetch(`${ready.url}/-/test/reset`, { method: 'POST', headers: { 'private-token': ready.token } });
      assert.equal(reset.status, 204);
      s.proc.kill('SIGTERM');
      assert.equal(await exited(s.proc), 0);
      assert.equal(fs.existsSync(ready.data_dir), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a SIGKILLed server's data dir is removed by the next start", async () => {
    const a = await start([]);
    const first = JSON.parse(a.line);
    a.proc.kill('SIGKILL');
    await exited(a.proc);
    assert.ok(fs.existsSync(first.data_dir));
    const b = await start([]);
    assert.equal(fs.existsSync(first.data_dir), false);
    b.proc.kill('SIGTERM');
    await exited(b.proc);
  });

  it('a bad seed file stops the start with an error naming its line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-seedfile-'));
    const file = path.join(dir, 'seed.yml');
    fs.writeFileSync(file, 'users:\n  - username: bob\n    admin: maybe\n');
    try {
      const s = await start(['--seed', file]);
      assert.equal(s.code, 1);
      assert.equal(s.line, '');
      assert.match(s.stderr(), new RegExp(`${file}:3: users\\.0\\.admin: must be true or false`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
