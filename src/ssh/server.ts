// The SSH transport of git: `git clone ssh://git@host/group/project.git` and friends. A client
// signs in with a key (a user's or a deploy key, src/domain/keys/); then one command per session:
// git-upload-pack, git-receive-pack or git-upload-archive on a project, through the same access
// check (gitAccess) and the same push path (receivePack: hooks, protected refs, events) as smart
// HTTP; no shell: a session without a command gets the welcome line. Everything else (other
// commands, port forwarding, agents, X11, subsystems) is refused.
import type { AddressInfo } from 'node:net';
import ssh2, { type Connection, type ServerChannel, type Session } from 'ssh2';
import type { Container } from '../domain/context.js';
import type { Actor } from '../domain/auth/actor.js';
import { DomainError } from '../domain/errors.js';
import { keyForSignIn, sshActor } from '../domain/keys/ssh_auth.js';
import { gitAccess, PROJECT_NOT_FOUND_MESSAGE } from '../domain/repository/git_access.js';
import { readOverSsh, receivePack } from '../domain/repository/push.js';
import type { KeyRow } from '../db/repos/keys.js';
import type { GitCommand } from '../git/smart_http.js';
import { hostKeys } from './host_keys.js';

const COMMANDS: readonly GitCommand[] = ['git-upload-pack', 'git-receive-pack', 'git-upload-archive'];
const DISALLOWED = 'Disallowed command';
const NOT_ALLOWED = "The command you're trying to execute is not allowed.";

/** `git-upload-pack '/group/project.git'` (or `git upload-pack …`) → the command and the project's path; null for anything else. */
export function parseGitCommand(line: string): { command: GitCommand; path: string } | null {
  const m = /^\s*git[ -](upload-pack|receive-pack|upload-archive)\s+(?:'([^']*)'|"([^"]*)"|(\S+))\s*$/.exec(line);
  if (!m) return null;
  const path = (m[2] ?? m[3] ?? m[4] ?? '').replace(/^~?\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '');
  if (path === '') return null;
  return { command: `git-${m[1]}` as GitCommand, path };
}

/** Text as the reference's shell shows an error: a framed block, each line after `remote: `. */
export function framed(message: string): string {
  const line = (s: string) => `remote: ${s}\n`;
  const divider = line('') + line('='.repeat(72)) + line('');
  return `${divider}${line(`ERROR: ${message}`)}${divider}`;
}

/** The message a refusal shows over SSH. */
function refusalText(e: unknown): string | null {
  if (!(e instanceof DomainError)) return null;
  const d = e.detail;
  switch (d.kind) {
    case 'forbidden':
      return d.reason ?? NOT_ALLOWED;
    case 'push_refused':
      return d.message;
    case 'exact':
      return typeof d.body === 'string' ? d.body : String((d.body as { message?: unknown })?.message ?? NOT_ALLOWED);
    case 'not_found':
    case 'unauthorized':
      return PROJECT_NOT_FOUND_MESSAGE;
    default:
      return null;
  }
}

export interface SshServer {
  port: number;
  close(): Promise<void>;
}

/** Starts the SSH server (config.ssh must be set); resolves once it listens. */
export async function startSshServer(c: Container): Promise<SshServer> {
  const ssh = c.config.ssh!;
  const server = new ssh2.Server({ hostKeys: hostKeys(ssh, c.config.dataDir), ident: 'Anvil' }, (client, info) => serveClient(c, client, info.ip));
  const connections = new Set<Connection>();
  server.on('connection', (client) => {
    connections.add(client);
    client.on('close', () => connections.delete(client));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ssh.port, ssh.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => c.log.error({ err }, 'ssh server error'));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const client of connections) client.end();
      }),
  };
}

function serveClient(c: Container, client: Connection, ip: string): void {
  let key: KeyRow | null = null;
  client.on('error', (err) => c.log.debug({ err, ip }, 'ssh client error'));
  client.on('authentication', (ctx) => {
    if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
    void (async () => {
      const found = await keyForSignIn(c, ctx.key.data);
      if (!found) return ctx.reject(['publickey']);
      // Without a signature the client only asks whether the key would do; with one, it must verify.
      if (ctx.signature && ctx.blob) {
        const parsed = ssh2.utils.parseKey(found.key);
        const pub = Array.isArray(parsed) ? parsed[0] : parsed;
        if (!pub || pub instanceof Error || pub.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(['publickey']);
        key = found;
      }
      ctx.accept();
    })().catch((err: unknown) => {
      c.log.error({ err, ip }, 'ssh authentication failed');
      ctx.reject(['publickey']);
    });
  });
  // No forwarding of any kind.
  client.on('tcpip', (_accept, reject) => reject());
  client.on('openssh.streamlocal', (_accept, reject) => reject());
  client.on('request', (_accept, reject) => reject?.());
  client.on('session', (accept) => {
    if (!key) return;
    serveSession(c, accept(), key, ip);
  });
}

function serveSession(c: Container, session: Session, key: KeyRow, ip: string): void {
  let protocol: string | undefined;
  let used = false;
  session.on('env', (accept, reject, info) => {
    // git asks for protocol v2 this way (ssh -o SendEnv=GIT_PROTOCOL); nothing else is taken
    if (info.key === 'GIT_PROTOCOL') {
      protocol = info.val;
      accept?.();
    } else reject?.();
  });
  for (const refused of ['pty', 'x11', 'auth-agent', 'subsystem', 'sftp', 'signal', 'window-change'] as const) {
    session.on(refused, (_accept, reject) => reject?.());
  }
  session.on('shell', (accept) => {
    if (used) return;
    used = true;
    const channel = accept();
    void (async () => {
      const actor = await sshActor(c, key);
      channel.write(`Welcome to Anvil, @${actor.user.username}!\n`);
      finish(channel, 0);
    })().catch((e: unknown) => refuse(c, channel, e));
  });
  session.on('exec', (accept, _reject, info) => {
    if (used) return;
    used = true;
    const channel = accept();
    void runCommand(c, channel, key, info.command, protocol).catch((e: unknown) => refuse(c, channel, e));
  });
  void ip;
}

function finish(channel: ServerChannel, code: number): void {
  channel.exit(code);
  channel.end();
}

function refuse(c: Container, channel: ServerChannel, e: unknown): void {
  const text = refusalText(e);
  if (text === null) c.log.error({ err: e }, 'ssh command failed');
  channel.stderr.write(framed(text ?? 'Internal API unreachable'));
  finish(channel, 1);
}

async function runCommand(c: Container, channel: ServerChannel, key: KeyRow, line: string, protocol: string | undefined): Promise<void> {
  const parsed = parseGitCommand(line);
  if (!parsed || !COMMANDS.includes(parsed.command)) {
    channel.stderr.write(framed(DISALLOWED));
    return finish(channel, 1);
  }
  const actor: Actor = await sshActor(c, key);
  const target = await gitAccess(c, actor, parsed.path, parsed.command, 'ssh');
  if (parsed.command === 'git-receive-pack') {
    const run = await receivePack(c, actor, target, protocol, 'duplex');
    channel.pipe(run.stdin);
    channel.on('close', () => run.kill());
    run.stdout.pipe(channel, { end: false });
    const code = await run.exit;
    await new Promise<void>((resolve) => (run.stdout.readableEnded ? resolve() : run.stdout.once('end', resolve)));
    return finish(channel, code);
  }
  const child = readOverSsh(target, parsed.command, protocol);
  channel.pipe(child.stdin);
  child.stdout.pipe(channel, { end: false });
  child.stderr.pipe(channel.stderr, { end: false });
  channel.on('close', () => child.kill());
  const code = await new Promise<number>((resolve) => {
    let out = false;
    let exitCode: number | null = null;
    const done = () => out && exitCode !== null && resolve(exitCode);
    child.stdout.once('end', () => ((out = true), done()));
    child.on('close', (code) => ((exitCode = code ?? 1), done()));
  });
  finish(channel, code);
}
