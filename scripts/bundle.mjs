// The server as one file, dist/server.cjs, run by dist/anvil.cjs (src/launch.ts) through V8's code
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
/** The shared views of Node's modules (oneViewPerNodeModule); __toESM is esbuild's, defined below the banner. */
const NODE_MODULE_VIEWS = 'const __nodeViews = new Map(); const __nodeView = (name) => { let v = __nodeViews.get(name); if (!v) __nodeViews.set(name, (v = __toESM(require(name)))); return v; };';
const forNode = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' };
// Parts that only some servers load (blobs in S3, PostgreSQL) or only some pages (the
// highlighter), each a bundle of its own in dist/lazy/: the server's bundle is read and handed to
// V8 at every start, and these were a third of it. The server requires them from there when first
// used. A part of several modules (highlight.js: its core and each language the highlighter names)
// is one file that exports each by its path, and each import picks its own.
const HIGHLIGHT_MODULES = [...fs.readFileSync(path.join(root, 'src/web/views/highlight.ts'), 'utf8').matchAll(/'highlight\.js\/lib\/([\w/-]+)'/g)].map((m) => m[1]);
const LAZY = [
  { name: 's3', entry: path.join(root, 'src/storage/s3.ts'), imports: /(^|\/)storage\/s3\.js$/ },
  { name: 'pg', entry: createRequire(import.meta.url).resolve('pg'), imports: /^pg$/ },
  // git over SSH (src/ssh/), loaded only when the SSH server is on. Its optional native parts
  // (its crypto binding, cpu-features) stay out: it falls back to its JavaScript and WebAssembly.
  { name: 'ssh2', entry: createRequire(import.meta.url).resolve('ssh2'), imports: /^ssh2$/ },
  {
    name: 'highlight',
    source: `module.exports = {${HIGHLIGHT_MODULES.map((m) => `${JSON.stringify(m)}: require('highlight.js/lib/${m}')`).join(', ')}};`,
    imports: /^highlight\.js\/lib\/[\w/-]+$/,
    pick: (specifier) => specifier.slice('highlight.js/lib/'.length),
  },
];
const lazyParts = {
  name: 'lazy-parts',
  setup(b) {
    // The import becomes a small module of the bundle that requires the part's file: the bundle
    // runs as CommonJS through vm.Script (src/launch.ts), where import() has no loader.
    for (const part of LAZY) {
      b.onResolve({ filter: part.imports }, (a) => ({ path: part.pick ? `${part.name}#${part.pick(a.path)}` : part.name, namespace: 'lazy-part' }));
    }
    b.onLoad({ filter: /.*/, namespace: 'lazy-part' }, (a) => {
      const [name, pick] = a.path.split('#');
      return { contents: `module.exports = require('./lazy/${name}.cjs')${pick ? `[${JSON.stringify(pick)}]` : ''};`, loader: 'js' };
    });
    b.onResolve({ filter: /^\.\/lazy\// }, (a) => ({ path: a.path, external: true }));
  },
};
// Dependencies' work that every start paid for nothing, put off until it is needed. Each patch
// names the text it replaces: a dependency that changes fails the build here, not silently.
const LAZY_ROUTER_FN = (compile) => `{ let compiled; return (a, b, c, d, e) => (compiled || (compiled = ${compile}))(a, b, c, d, e); }`;
const START_PATCHES = [
  // fastify loads Node's HTTPS and HTTP/2 modules (TLS with them) for servers Anvil never starts.
  ...['node:https', 'node:http2'].map((m) => ({
    file: /node_modules\/fastify\/lib\/server\.js$/,
    text: `require('${m}')`,
    by: `new Proxy({}, { get: (_, key) => require('${m}')[key] })`,
  })),
  // find-my-way compiles a matcher (new Function) for every node of the route tree, again at each
  // split while routes are added, and a params builder for every route: some 2,000 compilations,
  // a tenth of a start. Each is compiled when a request first needs it.
  {
    file: /node_modules\/find-my-way\/lib\/node\.js$/,
    text: 'function compilePrefixMatch (prefix) {',
    by: `function compilePrefixMatch (prefix) ${LAZY_ROUTER_FN('compilePrefixMatchNow(prefix)')}\nfunction compilePrefixMatchNow (prefix) {`,
  },
  {
    file: /node_modules\/find-my-way\/lib\/handler-storage\.js$/,
    text: '_createParamsObject: this._compileCreateParamsObject(params)',
    by: `_createParamsObject: (() => ${LAZY_ROUTER_FN('this._compileCreateParamsObject(params)')})()`,
  },
  {
    // The compression plugin's fallback to mime-db's list (135 KB) for types Anvil's own list
    // (src/app.ts) leaves out: that list alone decides, as it means to (mime-db would compress
    // event streams and tar files).
    file: /node_modules\/@fastify\/compress\/index\.js$/,
    text: "require('mime-db')",
    by: '{}',
  },
  {
    // and its copy of Node's streams (with a Buffer polyfill, 150 KB): Node's own
    file: /node_modules\/@fastify\/compress\/index\.js$/,
    text: "require('readable-stream')",
    by: "require('node:stream')",
  },
  {
    // Node defines the global Response on first use, loading its whole fetch (undici): the
    // compression plugin's check of every answer did that on the first request. Only an object
    // with arrayBuffer() can be a Response.
    file: /node_modules\/@fastify\/compress\/lib\/utils\.js$/,
    text: 'return obj instanceof Response',
    by: "return typeof obj?.arrayBuffer === 'function' && obj instanceof Response",
  },
  {
    // compiled again at every handler added to a node; now once, at the node's first lookup
    file: /node_modules\/find-my-way\/lib\/handler-storage\.js$/,
    text: 'this._compileGetHandlerMatchingConstraints(constrainer, constraints)',
    by: 'this._getHandlerMatchingConstraints = (derived) => (this._compileGetHandlerMatchingConstraints(constrainer, constraints), this._getHandlerMatchingConstraints(derived))',
  },
];
const startPatches = {
  name: 'start-patches',
  setup(b) {
    const files = new Map(START_PATCHES.map((p) => [p.file.source, p.file]));
    for (const [source, file] of files) {
      b.onLoad({ filter: file }, (a) => {
        let text = fs.readFileSync(a.path, 'utf8');
        for (const p of START_PATCHES.filter((x) => x.file.source === source)) {
          if (!text.includes(p.text)) throw new Error(`bundle: ${a.path} no longer has ${p.text}`);
          text = text.replace(p.text, p.by);
        }
        return { contents: text, loader: 'js' };
      });
    }
  },
};
fs.rmSync(path.join(root, 'dist/lazy'), { recursive: true, force: true });
for (const part of LAZY) {
  const from = part.source ? { stdin: { contents: part.source, resolveDir: root, loader: 'js' } } : { entryPoints: [part.entry] };
  await build({ ...forNode, ...from, outfile: path.join(root, `dist/lazy/${part.name}.cjs`), format: 'cjs', external: ['pg-native', 'cpu-features', '*.node'], minifyWhitespace: true, charset: 'ascii', legalComments: 'none' });
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
  plugins: [lazyParts, startPatches],
  // Without comments and indentation (names stay): V8 keeps the whole source in memory, as
  // two bytes a character if a single one is not ASCII (dependencies' doc comments were).
  minifyWhitespace: true,
  charset: 'ascii',
  legalComments: 'external',
  // The few modules that find their files from their own URL (version, web assets) see the bundle's.
  banner: { js: `const __anvilModuleUrl = require('node:url').pathToFileURL(__filename).href;${NODE_MODULE_VIEWS}` },
  define: { ANVIL_BUILD_COMMIT: JSON.stringify(commit()), 'import.meta.url': '__anvilModuleUrl' },
});
oneViewPerNodeModule(path.join(root, 'dist/server.cjs'));
// The command (`anvil`, `npm start`): the launcher that runs the server through its code cache.
// CommonJS, as the bundle: an ES module entry would load Node's ES module loader at every start.
await build({
  ...forNode,
  entryPoints: [path.join(root, 'src/launch.ts')],
  outfile: path.join(root, 'dist/anvil.cjs'),
  format: 'cjs',
  banner: { js: "const __launcherUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__launcherUrl' },
});
fs.rmSync(path.join(root, 'dist/anvil.mjs'), { force: true }); // the launcher of earlier builds
fs.chmodSync(path.join(root, 'dist/anvil.cjs'), 0o755);
// `import { startAnvil } from 'anvil/testing'`: the client of an ephemeral server, and its types.
await build({ ...forNode, entryPoints: [path.join(root, 'src/testing/client.ts')], outfile: path.join(root, 'dist/testing.mjs'), format: 'esm' });
// The helpers for other languages, as they are: the pytest plugin and the Go package (its own go.mod).
for (const lang of ['python', 'go']) {
  fs.rmSync(path.join(root, 'dist', lang), { recursive: true, force: true });
  fs.cpSync(path.join(root, 'src/testing', lang), path.join(root, 'dist', lang), { recursive: true, filter: (f) => !f.includes('__pycache__') });
}
testingTypes(); // run as itself: its first line holds the memory settings
await buildWebAssets();
await warmCodeCache();

/**
 * esbuild gives each `import … from 'node:fs'` of each module a view of its own of Node's module
 * (`__toESM(require("node:fs"),1)`: a getter defined for every export), made when the module loads:
 * some 120 views of fs, path, crypto… were a twentieth of a start. The bundle shares one view per
 * Node module instead (NODE_MODULE_VIEWS, in the banner: a Node module is never an ES module, so
 * both forms of the call give the same view); the call is replaced by one of the same length, so
 * that the source map still points at the right columns.
 */
function oneViewPerNodeModule(file) {
  const text = fs.readFileSync(file, 'latin1');
  const shared = text.replace(/__toESM\(require\(("node:[a-z_/]+")\)(?:,1)?\)/g, (call, name) => `__nodeView(${name})`.padEnd(call.length, ' '));
  fs.writeFileSync(file, shared, 'latin1');
}

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
 * Starts the new bundle once (an ephemeral server) so that it writes its code cache, and asks it
 * what a client asks first, so that the cache also holds the request path: the first start after
 * a build is then as quick as the next ones, and so is its first answer. A failure only costs that
 * first start. This start also leaves the migrated empty database (src/db/schema_template.ts).
 */
async function warmCodeCache() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANVIL_')));
  const child = spawn(path.join(root, 'dist/anvil.cjs'), ['serve', '--ephemeral'], {
    env: { ...env, ANVIL_LOG_LEVEL: 'warn', ANVIL_RUNNER_ENABLED: 'false' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const cached = () => fs.readdirSync(path.join(root, 'dist')).some((f) => f.startsWith('server.cjs.') && f.endsWith('.cache'));
  let asked = false;
  for (let waited = 0; waited < 20_000 && !cached() && child.exitCode === null; waited += 100) {
    if (!asked && out.includes('\n')) {
      asked = true;
      const { url, token } = JSON.parse(out.split('\n')[0]);
      for (const at of ['/-/health', '/api/v4/version', '/api/v4/projects', '/users/sign_in']) {
        await fetch(`${url}${at}`, { headers: { 'PRIVATE-TOKEN': token } }).then((r) => r.arrayBuffer()).catch(() => undefined);
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r()));
  if (!cached()) process.stderr.write('bundle: no code cache was written; the first start will compile the bundle\n');
}
