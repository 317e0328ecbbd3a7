// Git over SSH in tests: a listening Anvil with its SSH server on a port of its own, real keys
// made by ssh-keygen, and the real `ssh` client (through GIT_SSH_COMMAND) that checks the
// server's host key against a known_hosts file written from the keys Anvil generated.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestDialect } from './build.js';
import { buildGitTestApp, freePort, runGit, type GitResult, type GitTestApp } from './git.js';
import { startSshServer, type SshServer } from '../../src/ssh/server.js';

export interface SshTestApp extends GitTestApp {
  sshPort: number;
  ssh: SshServer;
  knownHosts: string;
}

export async function buildSshTestApp(dialect: TestDialect, env: Record<string, string> = {}): Promise<SshTestApp> {
  const sshPort = await freePort();
  const t = await buildGitTestApp(dialect, { ANVIL_SSH_PORT: String(sshPort), ANVIL_SSH_HOST: '127.0.0.1', ...env });
  const ssh = await startSshServer(t.c);
  const knownHosts = path.join(t.tmp, 'known_hosts');
  const dir = path.join(t.c.config.dataDir, 'ssh');
  const lines = fs.readdirSync(dir).filter((f) => f.endsWith('.pub')).map((f) => `[127.0.0.1]:${sshPort} ${fs.readFileSync(path.join(dir, f), 'utf8').trim()}`);
  fs.writeFileSync(knownHosts, `${lines.join('\n')}\n`);
  const close = t.close;
  return Object.assign(t, {
    sshPort,
    ssh,
    knownHosts,
    async close() {
      await ssh.close();
      await close();
    },
  });
}

export interface TestKey {
  /** The private key file. */
  file: string;
  /** The public key line (with a comment). */
  publicKey: string;
}

let keySeq = 0;

/** A new key pair made by ssh-keygen. */
export function makeKey(t: GitTestApp, type: 'ed25519' | 'rsa' | 'ecdsa' = 'ed25519', bits?: number): TestKey {
  keySeq += 1;
  const file = path.join(t.tmp, `key${keySeq}`);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', `tester${keySeq}@example.com`, '-f', file]);
  return { file, publicKey: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
}

/** The `ssh` command git runs: only this key, the test's known_hosts, strict host checking, never a prompt. */
export function sshCommand(t: SshTestApp, key: TestKey): string {
  return [
    'ssh', '-F', '/dev/null', '-i', key.file, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes',
    '-o', `UserKnownHostsFile=${t.knownHosts}`, '-o', 'LogLevel=ERROR',
  ].join(' ');
}

/** Runs git with this key for SSH. */
export const gitSsh = (t: SshTestApp, key: TestKey, args: string[], opts: { cwd?: string } = {}): Promise<GitResult> =>
  runGit(t, args, { ...opts, env: { GIT_SSH_COMMAND: sshCommand(t, key) } });

/** Runs the ssh client itself against Anvil's SSH server (`ssh -p port git@127.0.0.1 [command]`). */
export function runSsh(t: SshTestApp, key: TestKey, args: string[]): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const argv = sshCommand(t, key).split(' ').slice(1);
    const child = spawn('ssh', [...argv, '-p', String(t.sshPort), 'git@127.0.0.1', ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: path.join(t.tmp, 'home') } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.stdin.end();
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Adds a key to a user through the API (their own token). */
export async function addKey(t: GitTestApp, token: string, key: TestKey, extra: Record<string, unknown> = {}): Promise<{ id: number }> {
  const r = await t.request('POST', '/api/v4/user/keys', { token, body: { title: 'test key', key: key.publicKey, ...extra } });
  if (r.status !== 201) throw new Error(`adding a key: ${r.status} ${r.text}`);
  return r.body;
}
