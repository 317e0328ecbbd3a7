// `anvil serve --ephemeral` as a real process: one JSON line on stdout when ready, a fresh data
// dir in the temp dir removed at SIGTERM (and, after a SIGKILL, by the next start), a seed file
// applied before it is ready (and by `anvil seed` to a running server), and a bad seed file
// refused with its line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, distIsFresh } from '../../bench/server.js';
import { fixtureArchive } from '../helpers/import_export.js';

interface Started {
  proc: ChildProcess;
  line: string;
  stderr: () => string;
}

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_')));

/** The `anvil` command with `args`: the build when it is fresh, else through tsx. */
const anvilCommand = (args: string[]): [string, string[]] =>
  distIsFresh() ? [path.join(ROOT, 'dist/anvil.cjs'), args] : [process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), ...args]];

/** Runs `anvil …` to its end. */
function anvil(args: string[]): Promise<{ code: number; stderr: string }> {
  const [cmd, argv] = anvilCommand(args);
  return new Promise((resolve) => {
    execFile(cmd, argv, { cwd: ROOT, env }, (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }));
  });
}

/** Starts `anvil serve --ephemeral …`; resolves at its first stdout line or its exit. */
function start(args: string[]): Promise<Started & { code: number | null }> {
  const [cmd, argv] = anvilCommand(['serve', '--ephemeral', ...args]);
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
      assert.deepEqual(Object.keys(ready), ['url', 'token', 'pid', 'data_dir', 'ssh_port']);
      assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      // git over SSH on a free port of its own, named in clone URLs
      assert.ok(Number.isInteger(ready.ssh_port) && ready.ssh_port > 0);
      const seeded = await fetch(`${ready.url}/api/v4/projects?simple=true`, { headers: { 'private-token': ready.token } });
      for (const p of (await seeded.json()) as { ssh_url_to_repo: string }[]) assert.match(p.ssh_url_to_repo, new RegExp(`^ssh://git@127\\.0\\.0\\.1:${ready.ssh_port}/`));
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

  it('a seed file imports an export archive named relative to it, at start and by `anvil seed`; a missing one or a file that is no archive is refused with its line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-seedfile-'));
    fs.writeFileSync(path.join(dir, 'reference.tar.gz'), fixtureArchive());
    const write = (name: string, text: string) => (fs.writeFileSync(path.join(dir, name), text), path.join(dir, name));
    const s = await start(['--seed', write('seed.yml', 'projects:\n  - path: root/imported\n    import: ./reference.tar.gz\n')]);
    try {
      assert.equal(s.code, null, s.stderr());
      const ready = JSON.parse(s.line);
      const get = async (p: string) => (await fetch(`${ready.url}/api/v4/projects/${encodeURIComponent(p)}`, { headers: { 'private-token': ready.token } })).json();
      assert.deepEqual([(await get('root/imported')).import_status, (await get('root/imported')).default_branch], ['finished', 'master']);

      const cli = (file: string) => anvil(['seed', file, '--url', ready.url, '--token', ready.token]);
      const more = await cli(write('more.yml', 'projects:\n  - path: root/again\n    import: reference.tar.gz\n'));
      assert.equal(more.code, 0, more.stderr);
      assert.equal((await get('root/again')).import_status, 'finished');

      const bad = write('bad.yml', 'projects:\n  - path: root/x\n    import: ./missing.tar.gz\n  - path: root/y\n    import: ./seed.yml\n');
      const refused = await cli(bad);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`${bad}:3: projects\\.0\\.import: no file ${dir}/missing\\.tar\\.gz`));
      assert.match(refused.stderr, new RegExp(`${bad}:5: projects\\.1\\.import: ${dir}/seed\\.yml is not an export archive`));
      assert.equal((await fetch(`${ready.url}/api/v4/projects/root%2Fx`, { headers: { 'private-token': ready.token } })).status, 404);
      const atStart = await start(['--seed', bad]);
      assert.equal(atStart.code, 1);
      assert.match(atStart.stderr(), new RegExp(`${bad}:3: projects\\.0\\.import: no file`));
    } finally {
      s.proc.kill('SIGTERM');
      await exited(s.proc);
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
  it('seed errors only the server finds name their line, all of them, before anything is applied; at start and by `anvil seed`', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-seedfile-'));
    const file = path.join(dir, 'seed.yml');
    fs.writeFileSync(file, [
      'users:',
      '  - username: bob',
      '  - username: bob',
      'groups:',
      '  - path: acme',
      '    visibility: private',
      '  - path: nowhere/sub',
      'projects:',
      '  - path: acme/open',
      '    visibility: public',
      '  - path: ghost/demo',
      '    members: [{user: carol, access_level: 30}]',
      '',
    ].join('\n'));
    const expected = [
      `${file}:3: users.1.username: "bob" is given twice (also users.0)`,
      `${file}:7: groups.1.path: no group "nowhere" above it, in the seed (before this one) or on the server`,
      `${file}:10: projects.0.visibility: public is wider than its group acme (private)`,
      `${file}:11: projects.1.path: no namespace "ghost": not a group or user of the seed, nor one on the server`,
      `${file}:12: projects.1.members.0.user: no user "carol" in the seed or on the server`,
    ];
    try {
      const s = await start(['--seed', file]);
      assert.equal(s.code, 1);
      assert.equal(s.line, '');
      assert.equal(s.stderr(), `anvil: ${expected.join('\n')}\n`);

      const ok = await start([]);
      const ready = JSON.parse(ok.line);
      try {
        fs.writeFileSync(path.join(dir, 'first.yml'), 'users:\n  - username: dave\n');
        assert.equal((await anvil(['seed', path.join(dir, 'first.yml'), '--url', ready.url, '--token', ready.token])).code, 0);
        fs.writeFileSync(path.join(dir, 'again.yml'), 'users:\n  - username: erin\n  - username: dave\n    email: dave2@example.com\n  - username: frank\n    email: dave@example.com\n');
        const again = await anvil(['seed', path.join(dir, 'again.yml'), '--url', ready.url, '--token', ready.token]);
        assert.equal(again.code, 1);
        assert.equal(again.stderr, [
          `anvil: ${dir}/again.yml:3: users.1.username: a user "dave" exists already`,
          `${dir}/again.yml:6: users.2.email: a user with the email dave@example.com exists already`,
          '',
        ].join('\n'));
        const erin = await fetch(`${ready.url}/api/v4/users?username=erin`, { headers: { 'private-token': ready.token } });
        assert.deepEqual(await erin.json(), [], 'nothing of the seed was applied');
      } finally {
        ok.proc.kill('SIGTERM');
        await exited(ok.proc);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad flag and a port in use are one line each, and leave no data dir', async () => {
    const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('anvil-ephemeral-')).length;
    const bad = await start(['--port', '99999']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr(), 'anvil: --port must be a whole number between 0 and 65535, got "99999"\n');
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const busy = await start(['--port', String(port)]);
      assert.equal(busy.code, 1);
      assert.equal(busy.stderr(), `anvil: port ${port} on 127.0.0.1 is in use (--port or ANVIL_PORT; 0 picks a free one)\n`);
    } finally {
      taken.close();
    }
    assert.ok(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('anvil-ephemeral-')).length <= before);
  });
});
