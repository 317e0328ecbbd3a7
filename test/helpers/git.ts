// Git over HTTP in tests: a listening Anvil (real sockets, so the real `git` client can talk to it)
// and a runner for that client with a private HOME and no prompts. Shared by the smart HTTP,
// branches and protected-branches tests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildTestApp, type TestApp, type TestDialect } from './build.js';

/** The environment of a test's own git commands: no system or user config, a fixed identity. */
export const PLAIN_GIT_ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/nonexistent',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'A',
  GIT_AUTHOR_EMAIL: 'a@x',
  GIT_COMMITTER_NAME: 'C',
  GIT_COMMITTER_EMAIL: 'c@x',
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface GitTestApp extends TestApp {
  /** e.g. http://127.0.0.1:40123 (also the external URL, so http_url_to_repo is directly usable). */
  url: string;
  /** A scratch directory removed with the app; `git` runs here unless told otherwise. */
  tmp: string;
}

/** buildTestApp, listening on a free port whose address is the external URL (real clients follow its links). */
export async function listeningTestApp(dialect: TestDialect, env: Record<string, string> = {}): Promise<{ t: TestApp; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await buildTestApp(dialect, { ANVIL_EXTERNAL_URL: url, ...env });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, url };
}

/** A listening test app with a scratch directory and a HOME for git clients. */
export async function buildGitTestApp(dialect: TestDialect, env: Record<string, string> = {}): Promise<GitTestApp> {
  const { t, url } = await listeningTestApp(dialect, env);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-git-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  const close = t.close;
  return Object.assign(t, {
    url,
    tmp,
    async close() {
      await close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  });
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real git client (private HOME, no system config, never prompts). Never throws on exit codes. */
export function runGit(t: GitTestApp, args: string[], opts: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd ?? t.tmp,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: path.join(t.tmp, 'home'),
        LC_ALL: 'C',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_TERMINAL_PROMPT: '0',
        GIT_ASKPASS: '',
        SSH_ASKPASS: '',
        GIT_AUTHOR_NAME: 'Tester',
        GIT_AUTHOR_EMAIL: 'tester@example.com',
        GIT_COMMITTER_NAME: 'Tester',
        GIT_COMMITTER_EMAIL: 'tester@example.com',
        ...opts.env,
      },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.stdin.on('error', () => {}); // git may exit before reading its (empty) input
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(opts.input ?? '');
  });
}

/** Like runGit, but fails the test with git's output on a non-zero exit. */
export async function gitOk(t: GitTestApp, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  const r = await runGit(t, args, opts);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return r.stdout.trim();
}

/**
 * The clone URL of a project with credentials in it (any username, a token or password as the
 * password), or anonymous when `password` is null.
 */
export function cloneUrl(httpUrlToRepo: string, password: string | null, username = 'anyone'): string {
  if (password === null) return httpUrlToRepo;
  const u = new URL(httpUrlToRepo);
  u.username = encodeURIComponent(username);
  u.password = encodeURIComponent(password);
  return u.toString();
}

let dirSeq = 0;

/** A fresh directory under the app's scratch dir. */
export function scratchDir(t: GitTestApp, name = 'w'): string {
  dirSeq += 1;
  const d = path.join(t.tmp, `${name}${dirSeq}`);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

/** Clones into a fresh directory; returns the result and the directory. */
export async function clone(t: GitTestApp, url: string): Promise<GitResult & { dir: string }> {
  const dir = path.join(scratchDir(t, 'c'), 'repo');
  const r = await runGit(t, ['clone', '--quiet', url, dir]);
  return { ...r, dir };
}

/** Writes files and commits them in a working tree; returns the new commit sha. */
export async function commitFiles(t: GitTestApp, dir: string, files: Record<string, string | Buffer>, message = 'change'): Promise<string> {
  for (const [p, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), content);
  }
  await gitOk(t, ['add', '-A'], { cwd: dir });
  await gitOk(t, ['commit', '--quiet', '-m', message], { cwd: dir });
  return gitOk(t, ['rev-parse', 'HEAD'], { cwd: dir });
}

/** A new local repository with one commit on `branch` (default main), with `origin` set to url. */
export async function initWorkTree(t: GitTestApp, url: string, branch = 'main'): Promise<string> {
  const dir = scratchDir(t, 'w');
  await gitOk(t, ['init', '--quiet', `--initial-branch=${branch}`, dir]);
  await gitOk(t, ['remote', 'add', 'origin', url], { cwd: dir });
  return dir;
}

/** Runs plumbing in the server-side bare repository of a project (to check what a push did). */
export async function serverGit(t: GitTestApp, projectId: number, args: string[]): Promise<GitResult> {
  return runGit(t, [`--git-dir=${path.join(t.c.config.dataDir, 'repositories', `${projectId}.git`)}`, ...args]);
}
