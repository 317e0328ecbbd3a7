// One file for the server (dist/anvil.mjs): Node then loads one module instead of hundreds,
// which is most of Anvil's start-up time. Native and optional modules stay outside the bundle.
import { build } from 'esbuild';
import path from 'node:path';
import { buildWebAssets } from './web-assets.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outfile: path.join(root, 'dist/anvil.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: ['better-sqlite3', 'pg-native'],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __anvilRequire } from 'node:module'; const require = __anvilRequire(import.meta.url);" },
  logLevel: 'warning',
});
await buildWebAssets();
