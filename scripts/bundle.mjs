// The server as one file, dist/server.cjs, run by dist/anvil.mjs (src/launch.ts) through V8's code
// cache: Node then reads one file instead of hundreds of modules and compiles almost nothing,
// which was most of Anvil's start-up time. Native and optional modules stay outside.
import { build } from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
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
// What earlier builds left: the split bundle's chunks and code caches of other bundles.
fs.rmSync(path.join(root, 'dist/chunks'), { recursive: true, force: true });
fs.rmSync(path.join(root, 'dist/anvil.mjs.map'), { force: true });
for (const f of fs.existsSync(path.join(root, 'dist')) ? fs.readdirSync(path.join(root, 'dist')) : []) {
  if (f.startsWith('server.cjs.') && f.endsWith('.cache')) fs.rmSync(path.join(root, 'dist', f));
}
// The migrated empty database of the last build (src/db/schema_template.ts): the warm-up writes this build's.
fs.rmSync(path.join(root, 'dist/schema.sqlite3'), { force: true });
const forNode = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' };
// Parts that only some servers load (blobs in S3, PostgreSQL), each a bundle of its own in
// dist/lazy/: the server's bundle is read and handed to V8 at every start, and these were a
// quarter of it. The server requires them from there when first used.
const LAZY = [
  { name: 's3', entry: path.join(root, 'src/storage/s3.ts'), imports: /(^|\/)storage\/s3\.js$/ },
  { name: 'pg', entry: createRequire(import.meta.url).resolve('pg'), imports: /^pg$/ },
];
const lazyParts = {
  name: 'lazy-parts',
  setup(b) {
    // The import becomes a small module of the bundle that requires the part's file: the bundle
    // runs as CommonJS through vm.Script (src/launch.ts), where import() has no loader.
    for (const part of LAZY) b.onResolve({ filter: part.imports }, () => ({ path: part.name, namespace: 'lazy-part' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-part' }, (a) => ({ contents: `module.exports = require('./lazy/${a.path}.cjs');`, loader: 'js' }));
    b.onResolve({ filter: /^\.\/lazy\// }, (a) => ({ path: a.path, external: true }));
  },
};
fs.rmSync(path.join(root, 'dist/lazy'), { recursive: true, force: true });
for (const part of LAZY) {
  await build({ ...forNode, entryPoints: [part.entry], outfile: path.join(root, `dist/lazy/${part.name}.cjs`), format: 'cjs', external: ['pg-native'], minifyWhitespace: true, charset: 'ascii', legalComments: 'none' });
}
// The server: one CommonJS file, so that src/launch.ts can hand V8 its code cache (Node 20 caches
// no ES module). `await import()` inside stays lazy: that module runs only when first used.
await build({
  ...forNode,
  entryPoints: [path.join(root, 'src/main.ts')],
  outfile: path.join(root, 'dist/server.cjs'),
  format: 'cjs',
  sourcemap: true,
  external: ['better-sqlite3', 'pg-native'],
  plugins: [lazyParts],
  // Without comments and indentation (names stay): V8 keeps the whole source in memory, as
  // two bytes a character if a single one is not ASCII (dependencies' doc comments were).
  minifyWhitespace: true,
  charset: 'ascii',
  legalComments: 'external',
  // The few modules that find their files from their own URL (version, web assets) see the bundle's.
  banner: { js: "const __anvilModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { ANVIL_BUILD_COMMIT: JSON.stringify(commit()), 'import.meta.url': '__anvilModuleUrl' },
});
// The command (`anvil`, `npm start`): the launcher that runs the server through its code cache.
await build({ ...forNode, entryPoints: [path.join(root, 'src/launch.ts')], outfile: path.join(root, 'dist/anvil.mjs'), format: 'esm' });
fs.chmodSync(path.join(root, 'dist/anvil.mjs'), 0o755);
// `import { startAnvil } from 'anvil/testing'`: the client of an ephemeral server, and its types.
await build({ ...forNode, entryPoints: [path.join(root, 'src/testing/client.ts')], outfile: path.join(root, 'dist/testing.mjs'), format: 'esm' });
testingTypes(); // run as itself: its first line holds the memory settings
await buildWebAssets();
await warmCodeCache();

/** dist/testing.d.ts: the declarations of src/testing/client.ts, which imports nothing of the server. */
function testingTypes() {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-types-'));
  try {
    execFileSync(process.execPath, [
      path.join(root, 'node_modules/typescript/bin/tsc'), '--declaration', '--emitDeclarationOnly', '--strict', '--skipLibCheck',
      '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', '--outDir', out,
      path.join(root, 'src/testing/client.ts'),
    ], { cwd: root, stdio: 'inherit' });
    fs.copyFileSync(path.join(out, 'client.d.ts'), path.join(root, 'dist/testing.d.ts'));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Starts the new bundle once on a scratch data dir so that it writes its code cache: the first
 * start after a build is then as quick as the next ones. A failure only costs that first start.
 */
async function warmCodeCache() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-warm-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_')));
  const child = spawn(path.join(root, 'dist/anvil.mjs'), ['serve'], {
    env: { ...env, ANVIL_DATA_DIR: dataDir, ANVIL_PORT: '0', ANVIL_LOG_LEVEL: 'warn', ANVIL_RUNNER_ENABLED: 'false' },
    stdio: 'ignore',
  });
  const cached = () => fs.readdirSync(path.join(root, 'dist')).some((f) => f.startsWith('server.cjs.') && f.endsWith('.cache'));
  for (let waited = 0; waited < 20_000 && !cached() && child.exitCode === null; waited += 100) await new Promise((r) => setTimeout(r, 100));
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r()));
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (!cached()) process.stderr.write('bundle: no code cache was written; the first start will compile the bundle\n');
}
