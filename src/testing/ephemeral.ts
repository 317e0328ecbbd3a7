// `serve --ephemeral`: a fresh data dir in the OS temp dir, owned by this process and removed
// when it ends; one left by a process killed outright is removed by the next ephemeral start.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const PREFIX = 'anvil-ephemeral-';
const OWNER = 'owner.pid';
/** A dir without an owner yet is being made; one older than this was left half-made. */
const UNOWNED_GRACE_MS = 60_000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the ephemeral dirs whose process is gone. */
export function sweepEphemeralDirs(tmp = os.tmpdir()): number {
  let removed = 0;
  for (const name of fs.readdirSync(tmp)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(tmp, name);
    try {
      const owner = Number(fs.readFileSync(path.join(dir, OWNER), 'utf8'));
      if (owner > 0 && alive(owner)) continue;
    } catch {
      try {
        if (Date.now() - fs.statSync(dir).mtimeMs < UNOWNED_GRACE_MS) continue;
      } catch {
        continue; // gone meanwhile
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** A new data dir owned by this process. */
export function makeEphemeralDir(): string {
  sweepEphemeralDirs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), PREFIX));
  fs.writeFileSync(path.join(dir, OWNER), String(process.pid));
  return dir;
}

export const removeEphemeralDir = (dir: string): void => fs.rmSync(dir, { recursive: true, force: true });

/** A port free on `host` now (port 0 asked of the system), so the external URL can name it. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
