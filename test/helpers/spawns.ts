// The processes the code under test starts: node's child_process.spawn (which every git run in
// src/git goes through) is watched, and the commands it started while a call ran are returned.
// The repository's long-lived git processes (cat-file, diff-tree) are left out: each is started once, not per request.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
const started: string[] = [];
let watching = false;

function watch(): void {
  if (watching) return;
  watching = true;
  const real = cp.spawn;
  cp.spawn = function (this: unknown, ...args: unknown[]) {
    const [command, argv] = args as [string, unknown];
    started.push([command, ...(Array.isArray(argv) ? argv : [])].join(' '));
    return (real as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof cp.spawn;
  syncBuiltinESMExports(); // `import { spawn } from 'node:child_process'` now sees the watched one
}

/** The commands `run` started (but long-lived readers), and what it returned. */
export async function spawnsDuring<T>(run: () => Promise<T>): Promise<{ spawned: string[]; result: T }> {
  watch();
  const from = started.length;
  const result = await run();
  return { spawned: started.slice(from).filter((c) => !c.includes('cat-file --batch-command') && !c.includes('diff-tree --stdin')), result };
}
