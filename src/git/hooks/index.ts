// Anvil's git hooks. receive-pack runs with core.hooksPath pointing at a directory Anvil writes;
// its pre-receive hook connects back to the Anvil process over a Unix socket made for that one
// push, hands over the ref updates (and the quarantine environment, so Anvil can read the pushed
// objects before they are accepted) and waits for allow or refuse. A refusal is printed to the
// pusher (`remote: …`) and git rejects the whole push, moving no ref.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const HOOK_SOCKET_ENV = 'ANVIL_HOOK_SOCKET';
export const HOOK_ID_ENV = 'ANVIL_HOOK_ID';

/** The quarantine variables git gives a pre-receive hook; git needs them to see the pushed objects. */
export const QUARANTINE_ENV = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'] as const;

// The hook program (CommonJS, run by the same node binary as Anvil). It is a separate process
// reading the environment git gave it, not Anvil's configuration.
const HOOK_PROGRAM = `'use strict';
const net = require('node:net');
const env = process['env'];
const QUARANTINE = ${JSON.stringify(QUARANTINE_ENV)};
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const socket = env.${HOOK_SOCKET_ENV};
  if (!socket) { process.stderr.write('Push refused: no access check available.\\n'); process.exit(1); }
  const quarantine = {};
  for (const k of QUARANTINE) if (env[k]) quarantine[k] = env[k];
  const conn = net.createConnection(socket);
  let answer = '';
  conn.setEncoding('utf8');
  conn.on('connect', () => conn.end(JSON.stringify({ id: env.${HOOK_ID_ENV}, lines: input.split('\\n').filter(Boolean), env: quarantine }) + '\\n'));
  conn.on('data', (d) => { answer += d; });
  conn.on('error', () => { process.stderr.write('Push refused: the access check is unavailable.\\n'); process.exit(1); });
  conn.on('close', () => {
    let reply;
    try { reply = JSON.parse(answer); } catch { reply = { ok: false, message: 'Push refused: the access check failed.' }; }
    if (reply.ok) process.exit(0);
    process.stderr.write(String(reply.message) + '\\n');
    process.exit(1);
  });
});
`;

const written = new Set<string>();

/** Writes the hooks directory (once per process; atomically, so concurrent pushes never see half a file). */
export function ensureHooks(dir: string): string {
  if (written.has(dir)) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const put = (name: string, content: string) => {
    const tmp = path.join(dir, `.${name}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`);
    fs.writeFileSync(tmp, content, { mode: 0o755 });
    fs.renameSync(tmp, path.join(dir, name));
  };
  put('pre-receive.cjs', HOOK_PROGRAM);
  // A shell shim so the hook runs with this exact node binary, never one found on PATH.
  put('pre-receive', `#!/bin/sh\nexec '${process.execPath.replace(/'/g, `'\\''`)}' "$(dirname "$0")/pre-receive.cjs"\n`);
  written.add(dir);
  return dir;
}

export interface HookLine {
  oldSha: string;
  newSha: string;
  ref: string;
}

export type HookDecision = { ok: true } | { ok: false; message: string };

export interface HookListener {
  /** Environment for git receive-pack: where the hook finds this listener, and the one-time id. */
  env: Record<string, string>;
  close(): void;
}

const SHA = /^[0-9a-f]{40}$/;

export function parseHookLines(lines: unknown): HookLine[] | null {
  if (!Array.isArray(lines)) return null;
  const out: HookLine[] = [];
  for (const l of lines) {
    const m = typeof l === 'string' ? /^(\S+) (\S+) (\S+)$/.exec(l) : null;
    if (!m || !SHA.test(m[1]) || !SHA.test(m[2])) return null;
    out.push({ oldSha: m[1], newSha: m[2], ref: m[3] });
  }
  return out;
}

/**
 * A Unix socket in a private directory for one receive-pack. The first connection carrying the
 * right id gets `decide`'s answer; anything else is refused. Close it when receive-pack exits.
 */
export async function listenForHook(
  decide: (lines: HookLine[], quarantineEnv: Record<string, string>) => Promise<HookDecision>,
): Promise<HookListener> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-push-'));
  fs.chmodSync(dir, 0o700);
  const socketPath = path.join(dir, 's');
  const id = crypto.randomBytes(24).toString('hex');
  let used = false;
  // half-open: the hook ends its side after sending, and still reads the answer
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    let data = '';
    conn.setEncoding('utf8');
    conn.on('error', () => conn.destroy());
    conn.on('data', (d: string) => {
      data += d;
      if (data.length > 16 * 1024 * 1024) conn.destroy(); // no real push names this many refs
    });
    conn.on('end', () => {
      void (async () => {
        let answer: HookDecision;
        try {
          const msg = JSON.parse(data) as { id?: unknown; lines?: unknown; env?: Record<string, unknown> };
          const lines = parseHookLines(msg.lines);
          if (used || msg.id !== id || !lines) answer = { ok: false, message: 'Push refused: unknown push.' };
          else {
            used = true;
            const env: Record<string, string> = {};
            for (const k of QUARANTINE_ENV) {
              const v = msg.env?.[k];
              if (typeof v === 'string') env[k] = v;
            }
            answer = await decide(lines, env);
          }
        } catch {
          answer = { ok: false, message: 'Push refused: the access check failed.' };
        }
        conn.end(JSON.stringify(answer));
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    env: { [HOOK_SOCKET_ENV]: socketPath, [HOOK_ID_ENV]: id },
    close() {
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
