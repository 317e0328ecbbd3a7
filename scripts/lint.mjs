// `npm run lint`: the house rules of DESIGN.md that the type checker cannot see.
//  - imports run one way: api → domain → {db, git, queue, storage, webhooks, outbound, ci}; only app.ts wires http/, api/ and web/
//  - web/ reads through the REST API: of the domain, only sessions, the settings reader, and the few reads the API has no single call for
//  - no run-time import cycle in src/ (type-only imports are erased, so they do not count)
//  - the domain takes its Container type from domain/context.ts, never from container.ts
//  - SQL (query builders, sql``) lives only in src/db/
//  - only src/config.ts reads process.env
//  - the domain never imports the raw git wrapper (src/git/git.ts)
// Imports are read with TypeScript's own parser, so multi-line imports and re-exports count too.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');
const problems = [];

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The relative imports and re-exports of a file: `{ target, line, runtime }`, target relative to
 * src/ as a .ts path. `runtime` is false for `import type`, `export type` and imports whose every
 * named binding is marked `type` (all erased when compiled).
 */
function importsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out = [];
  for (const st of sf.statements) {
    let spec;
    let runtime = true;
    if (ts.isImportDeclaration(st)) {
      spec = st.moduleSpecifier;
      const clause = st.importClause;
      if (clause?.isTypeOnly) runtime = false;
      else if (clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings)) {
        const els = clause.namedBindings.elements;
        runtime = els.length === 0 || els.some((e) => !e.isTypeOnly);
      }
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier) {
      spec = st.moduleSpecifier;
      runtime = !st.isTypeOnly && !(st.exportClause && ts.isNamedExports(st.exportClause) && st.exportClause.elements.every((e) => e.isTypeOnly));
    }
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    const target = path.relative(src, path.resolve(path.dirname(file), spec.text)).replace(/\.js$/, '.ts').split(path.sep).join('/');
    out.push({ target, line: sf.getLineAndCharacterOfPosition(st.getStart(sf)).line + 1, runtime });
  }
  return out;
}

const areaOf = (rel) => rel.split('/')[0];
// Which top-level folders each folder may import at run time (type-only imports are free).
const ALLOWED = {
  domain: ['domain', 'db', 'git', 'queue', 'storage', 'webhooks', 'outbound', 'ci', 'import_export', 'config.ts', 'version.ts'],
  db: ['db', 'domain/shared', 'config.ts'],
  queue: ['queue', 'db', 'domain/shared', 'config.ts'],
  storage: ['storage', 'config.ts'],
  import_export: ['import_export'],
  git: ['git', 'config.ts'],
  webhooks: ['webhooks', 'db', 'domain/shared', 'config.ts'],
  outbound: ['outbound'],
  ci: ['ci', 'git', 'db', 'storage', 'domain/shared', 'config.ts'],
  http: ['http', 'domain', 'config.ts', 'container.ts', 'version.ts'],
  api: ['api', 'http', 'domain', 'config.ts', 'container.ts', 'version.ts'],
  // The web interface reads and writes through the REST API; of the domain it uses only sessions
  // (sign-in, sign-out, CSRF), the setting that allows password sign-in, the list of token scopes,
  // and, as the session's actor (authenticated as the API does), the reads the REST API has no
  // single call for: the pipelines list's rows (pipelineRowViews: the API would take a call per row),
  // the last commits of a tree's entries (the reference's own web route, logs_tree; its commits in
  // the API's shape), a bridge by id and a child pipeline's parent (the API finds bridges only by
  // pipeline, and names no parent), a repository archive (streamed: the in-process API client would hold
  // it whole); of the rest, only the zip reader (the artifacts browser reads the API's archive with it).
  web: [
    'web', 'http/auth.ts', 'http/errors.ts', 'domain/tokens/sessions.ts', 'domain/tokens/scopes.ts', 'domain/settings/service.ts', 'domain/context.ts',
    'domain/auth/service.ts', 'domain/ci/pipelines.ts', 'domain/ci/jobs.ts', 'domain/repository/tree.ts', 'domain/repository/archive.ts', 'api/repository/present.ts', 'api/jobs/present.ts',
    'ci/artifacts/zip.ts', 'config.ts', 'version.ts',
  ],
};
// src/shared/ is the lowest room (the clock and other rules every area needs): any area may read
// it, and it reads nothing of Anvil's.
for (const list of Object.values(ALLOWED)) list.push('shared');
ALLOWED.shared = ['shared'];
const SQL = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto)\(|\bsql`|\bsql\.(ref|raw|lit|table|id)\(/;

/** Run-time import graph of src/: file → files it imports (relative to src/). */
const graph = new Map();

for (const file of walk(src)) {
  const rel = path.relative(src, file).split(path.sep).join('/');
  const text = fs.readFileSync(file, 'utf8');
  const area = areaOf(rel);
  text.split('\n').forEach((line, i) => {
    const where = `src/${rel}:${i + 1}`;
    if (area !== 'db' && SQL.test(line)) problems.push(`${where}: SQL outside src/db/`);
    // testing/client.ts is no part of the server: it runs in a test suite and hands that process's environment to the server it starts.
    if (rel !== 'config.ts' && rel !== 'testing/client.ts' && /process\.env\b/.test(line)) problems.push(`${where}: process.env read outside src/config.ts`);
  });
  const imports = importsOf(file, text);
  for (const { target, line } of area === 'domain' ? imports : []) {
    // The domain receives its context as the type of domain/context.ts, never the wiring module.
    if (target === 'container.ts') problems.push(`src/${rel}:${line}: the domain takes its Container type from domain/context.ts`);
    // The domain runs git only through src/git's named operations (each guards its arguments).
    if (target === 'git/git.ts') problems.push(`src/${rel}:${line}: the domain may not import the raw git wrapper (src/git/git.ts); add a named operation in src/git/`);
  }
  const runtime = imports.filter((imp) => imp.runtime);
  graph.set(rel, runtime.map((imp) => imp.target));
  const allowed = ALLOWED[area];
  if (!allowed) continue; // app.ts, main.ts, container.ts wire everything
  for (const { target, line } of runtime) {
    if (!allowed.some((a) => target === a || target.startsWith(`${a}/`))) problems.push(`src/${rel}:${line}: ${area}/ may not import ${target}`);
  }
}

// Import cycles: the strongly connected components of the run-time graph (Tarjan), each reported once.
{
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) {
      problems.push(`import cycle (run time) of ${component.length} modules: ${component.sort().map((f) => `src/${f}`).join(', ')}`);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
}

// Exact bodies written in the domain: a body that recurs becomes an error kind of src/domain/errors.ts,
// mapped once in src/http/errors.ts. The ceiling only goes down: lower it when a call goes away.
const EXACT_ERROR_CEILING = 9;
const exactErrors = walk(path.join(src, 'domain')).flatMap((file) =>
  fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (/\bexactError\(/.test(line) ? [`src/${path.relative(src, file)}:${i + 1}`] : [])),
);
if (exactErrors.length > EXACT_ERROR_CEILING) {
  problems.push(`${exactErrors.length} exactError( calls in src/domain, over the ceiling of ${EXACT_ERROR_CEILING}: add an error kind instead\n  ${exactErrors.join('\n  ')}`);
}

if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\nlint: ${problems.length} problem(s)\n`);
  process.exit(1);
}
process.stdout.write('lint: ok\n');
