// `npm start`: build when the sources are newer than dist/, then serve.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const entry = path.join(root, 'dist/anvil.cjs');

function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

if (!fs.existsSync(entry) || newest(path.join(root, 'src')) > fs.statSync(entry).mtimeMs) {
  process.stdout.write('building…\n');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(root, 'scripts/bundle.mjs')], { stdio: 'inherit' });
}
// run as itself: the launcher's first line gives Node its memory settings (src/launch.ts)
const child = spawn(entry, ['serve', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
