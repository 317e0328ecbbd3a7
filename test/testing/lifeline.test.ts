// An ephemeral server ends with the process that started it, however that one ends: each runner
// below starts the server as the README says (Node's startAnvil; Python and Go through `npx
// anvil`, which puts npm and a shell in between), prints the ready line, and is killed with
// SIGKILL. Two seconds later the server is gone and so is its data dir.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, distIsFresh } from '../../bench/server.js';
import { PYTHON, goOfflineEnv } from '../helpers/clients.js';
import { linkOf } from '../../src/testing/lifeline.js';

/** What the issue asks: within two seconds of the runner's end. */
const WITHIN_MS = 2000;
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_') && !k.startsWith('npm_') && k !== 'NODE_TEST_CONTEXT'));

interface Ready {
  url: string;
  token: string;
  pid: number;
  data_dir: string;
}

/** Starts a runner; resolves with it and the server's ready line it printed. */
async function runner(cmd: string, args: string[], cwd: string): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`the runner exited (${code}) before the server was ready: ${stderr}`)));
  });
  return { proc, ready: JSON.parse(line) };
}

/** SIGKILLs the runner; how long until the server and its data dir are gone (or the limit, when they are not). */
async function killAndWatch(proc: ChildProcess, ready: { pid: number; data_dir: string }): Promise<number> {
  assert.ok(linkOf(ready.pid), 'the server runs');
  assert.ok(fs.existsSync(ready.data_dir));
  const killed = Date.now();
  proc.kill('SIGKILL');
  while (Date.now() - killed < WITHIN_MS * 3) {
    if (!linkOf(ready.pid) && !fs.existsSync(ready.data_dir)) return Date.now() - killed;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    process.kill(ready.pid, 'SIGKILL'); // not left behind by a failing test
  } catch {
    // gone
  }
  return Infinity;
}

describe('an ephemeral server ends with the process that started it', () => {
  // A folder as a user's project has it after `npm install anvil`: node_modules/anvil (this build) and its bin.
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-lifeline-'));
  before(() => {
    if (!distIsFresh()) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'uses-anvil', private: true, type: 'module' }));
    fs.mkdirSync(path.join(app, 'node_modules/.bin'), { recursive: true });
    fs.symlinkSync(ROOT, path.join(app, 'node_modules/anvil'));
    fs.symlinkSync('../anvil/dist/anvil.cjs', path.join(app, 'node_modules/.bin/anvil'));
  });
  after(() => fs.rmSync(app, { recursive: true, force: true }));

  it("Node: startAnvil's suite killed with SIGKILL", async () => {
    fs.writeFileSync(path.join(app, 'suite.mjs'), `
      import { startAnvil } from 'anvil/testing';
      const anvil = await startAnvil();
      console.log(JSON.stringify({ url: anvil.url, token: anvil.token, pid: anvil.pid, data_dir: anvil.dataDir }));
      setInterval(() => {}, 1000);
    `);
    const { proc, ready } = await runner(process.execPath, ['suite.mjs'], app);
    assert.ok((await killAndWatch(proc, ready)) <= WITHIN_MS);
  });

  it('Python: a pytest-style fixture through `npx anvil`, killed with SIGKILL', async () => {
    fs.writeFileSync(path.join(app, 'suite.py'), `
import json, subprocess, sys, time
proc = subprocess.Popen(["npx", "anvil", "serve", "--ephemeral"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
print(proc.stdout.readline(), end="", flush=True)
time.sleep(600)
`);
    const { proc, ready } = await runner(PYTHON, ['suite.py'], app);
    assert.ok((await killAndWatch(proc, ready)) <= WITHIN_MS);
  });

  it('Go: a TestMain-style launcher through `npx anvil`, killed with SIGKILL', { skip: spawnSync('go', ['version']).status !== 0 && 'no go here' }, async () => {
    const dir = path.join(app, 'go');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'main.go'), `package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"time"
)

func main() {
	cmd := exec.Command("npx", "anvil", "serve", "--ephemeral")
	cmd.Dir = ".."
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\\n')
	fmt.Print(line)
	time.Sleep(10 * time.Minute)
}
`);
    execFileSync('go', ['build', '-o', 'runner', 'main.go'], { cwd: dir, env: goOfflineEnv(env) });
    const { proc, ready } = await runner(path.join(dir, 'runner'), [], dir);
    assert.ok((await killAndWatch(proc, ready)) <= WITHIN_MS);
  });

  it('a shell that started it in the background ends: so does the server (unless --no-parent-watch)', async () => {
    const script = 'npx anvil serve --ephemeral & wait';
    const { proc, ready } = await runner('sh', ['-c', script], app);
    assert.ok((await killAndWatch(proc, ready)) <= WITHIN_MS);

    const kept = await runner('sh', ['-c', 'npx anvil serve --ephemeral --no-parent-watch & wait'], app);
    kept.proc.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, WITHIN_MS));
    assert.ok(linkOf(kept.ready.pid), 'it keeps serving');
    const res = await fetch(`${kept.ready.url}/api/v4/version`, { headers: { 'private-token': kept.ready.token } });
    assert.equal(res.status, 200);
    process.kill(kept.ready.pid, 'SIGTERM');
    const t = Date.now();
    while (fs.existsSync(kept.ready.data_dir) && Date.now() - t < 10_000) await new Promise((r) => setTimeout(r, 50));
    assert.equal(fs.existsSync(kept.ready.data_dir), false);
  });
});
