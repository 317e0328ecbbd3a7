// The package as a user gets it: `npm pack`, then `npm install ./anvil-*.tgz` in an empty folder
// (its only dependency is the native SQLite module, built there if need be), then
// `npx anvil serve --ephemeral` and `import { startAnvil } from 'anvil/testing'` in that folder.
// Slow (the install may compile better-sqlite3): this is the one test that installs the package.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, distIsFresh } from '../../bench/server.js';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_') && !k.startsWith('npm_')));

describe('the package', { timeout: INSTALL_TIMEOUT_MS + 120_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-package-'));
  const app = path.join(dir, 'app');

  before(() => {
    if (!distIsFresh()) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, env, stdio: 'ignore' });
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'uses-anvil', private: true, type: 'module' }));
    const tgz = fs.readdirSync(dir).find((f) => /^anvil-.*\.tgz$/.test(f));
    assert.ok(tgz, 'npm pack made no anvil-*.tgz');
    // Only the npm registry is reachable: better-sqlite3 is built from its source, not fetched prebuilt.
    const r = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, tgz)], {
      cwd: app,
      env: { ...env, npm_config_build_from_source: 'true' },
      encoding: 'utf8',
      timeout: INSTALL_TIMEOUT_MS,
    });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('holds the built command and the testing client, and brings no dependency but the SQLite module', () => {
    const pkg = path.join(app, 'node_modules/anvil');
    for (const f of ['dist/anvil.cjs', 'dist/server.cjs', 'dist/testing.mjs', 'dist/testing.d.ts', 'dist/schema.sqlite3', 'package.json',
      'dist/python/anvil_pytest.py', 'dist/go/anviltest/go.mod', 'dist/go/anviltest/anviltest.go', 'examples/seed.yml', 'examples/pytest/conftest.py', 'examples/go/go.mod']) {
      assert.ok(fs.existsSync(path.join(pkg, f)), f);
    }
    assert.equal(fs.existsSync(path.join(pkg, 'src')), false);
    assert.ok(fs.existsSync(path.join(app, 'node_modules/better-sqlite3')));
    for (const bundled of ['fastify', 'kysely', 'pg', '@aws-sdk']) assert.equal(fs.existsSync(path.join(app, 'node_modules', bundled)), false, bundled);
    assert.ok(fs.existsSync(path.join(app, 'node_modules/.bin/anvil')));
  });

  it('`npx anvil serve --ephemeral` prints its ready line and serves', async () => {
    // Its own process group: npx runs the command in a child of its own, which a signal to npx alone would leave running.
    const proc = spawn('npx', ['anvil', 'serve', '--ephemeral'], { cwd: app, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        readline.createInterface({ input: proc.stdout! }).once('line', resolve);
        proc.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const ready = JSON.parse(line) as { url: string; token: string; data_dir: string };
      const res = await fetch(`${ready.url}/api/v4/version`, { headers: { 'private-token': ready.token } });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { version: string }).version, '15.1.0');
    } finally {
      const exited = new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));
      process.kill(-proc.pid!, 'SIGTERM');
      await exited;
    }
  });

  it("`import { startAnvil } from 'anvil/testing'` starts, seeds, resets and stops a server", () => {
    fs.writeFileSync(path.join(app, 'suite.mjs'), `
      import { startAnvil } from 'anvil/testing';
      const anvil = await startAnvil({ seed: { users: [{ username: 'alice', tokens: [{ name: 'ci', token: 'alice-package-token-000001', scopes: ['api'] }] }] } });
      const me = await (await fetch(anvil.url + '/api/v4/user', { headers: { 'private-token': 'alice-package-token-000001' } })).json();
      await anvil.reset();
      const deliveries = await anvil.deliveries();
      await anvil.stop();
      console.log(JSON.stringify({ username: me.username, deliveries, keys: Object.keys(anvil).sort() }));
    `);
    const out = execFileSync(process.execPath, ['suite.mjs'], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
    assert.deepEqual(JSON.parse(out), {
      username: 'alice',
      deliveries: [],
      keys: ['clock', 'dataDir', 'deliveries', 'faults', 'inboxFaults', 'pid', 'requestCount', 'requests', 'reset', 'restore', 'seed', 'snapshot', 'stop', 'token', 'url'],
    });
  });
  // The helpers as a user runs them from the package, offline: the pytest plugin and the Go package, through the packaged examples.
  const packaged = path.join(app, 'node_modules/anvil/examples');
  const userEnv = { ...env, ANVIL_COMMAND: path.join(app, 'node_modules/.bin/anvil') };

  it('the pytest plugin runs the packaged pytest example', { skip: spawnSync('/usr/bin/python3', ['-c', 'import gitlab, pytest']).status !== 0 && 'no python-gitlab or pytest here' }, () => {
    const r = spawnSync('/usr/bin/python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], { cwd: path.join(packaged, 'pytest'), env: userEnv, encoding: 'utf8', timeout: 300_000 });
    assert.match(r.stdout, /6 passed/, `${r.stdout}\n${r.stderr}`);
  });

  it('the anviltest Go package runs the packaged Go example, in module mode with no network', { skip: spawnSync('go', ['version']).status !== 0 && 'no go here' }, () => {
    const goEnv = { ...userEnv, GO111MODULE: 'on', GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: path.join(os.tmpdir(), 'anvil-gocache') };
    const r = spawnSync('go', ['test', '-count=1', '.'], { cwd: path.join(packaged, 'go'), env: goEnv, encoding: 'utf8', timeout: 300_000 });
    assert.match(r.stdout, /^ok /m, `${r.stdout}\n${r.stderr}`);
  });
});
