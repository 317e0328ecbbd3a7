// The server as dist/anvil.mjs: Node then loads a few modules instead of hundreds, which is most
// of Anvil's start-up time. Code that start-up does not need (the S3 SDK, the PostgreSQL driver,
// the CI configuration parser: whatever src/ loads with `await import()`) goes into
// dist/chunks/, compiled only when first used. Native and optional modules stay outside.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildWebAssets } from './web-assets.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** Anvil's revision names the commit (src/version.ts); asked here once rather than at every start. */
function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
}
fs.rmSync(path.join(root, 'dist/chunks'), { recursive: true, force: true });
await build({
  entryPoints: { anvil: path.join(root, 'src/main.ts') },
  outdir: path.join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: ['better-sqlite3', 'pg-native'],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __anvilRequire } from 'node:module'; const require = __anvilRequire(import.meta.url);" },
  define: { ANVIL_BUILD_COMMIT: JSON.stringify(commit()) },
  logLevel: 'warning',
});
await buildWebAssets();
