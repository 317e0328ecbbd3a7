// `npm run lint`: the house rules of DESIGN.md that the type checker cannot see.
//  - imports run one way: api → domain → {db, git, queue, storage, webhooks, ci}; only app.ts wires http/ and api/
//  - SQL (query builders, sql``) lives only in src/db/
//  - only src/config.ts reads process.env
//  - the domain never imports the raw git wrapper (src/git/git.ts)
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');
const problems = [];

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const areaOf = (file) => path.relative(src, file).split(path.sep)[0];
// Which top-level folders each folder may import at run time (type-only imports are free).
const ALLOWED = {
  domain: ['domain', 'db', 'git', 'queue', 'storage', 'webhooks', 'ci', 'import_export', 'config.ts', 'container.ts', 'version.ts'],
  db: ['db', 'domain/shared', 'config.ts'],
  queue: ['queue', 'db', 'domain/shared', 'config.ts'],
  storage: ['storage', 'config.ts'],
  import_export: ['import_export'],
  git: ['git', 'config.ts'],
  webhooks: ['webhooks', 'db', 'domain/shared', 'config.ts'],
  ci: ['ci', 'git', 'db', 'storage', 'domain/shared', 'config.ts'],
  http: ['http', 'domain', 'config.ts', 'container.ts', 'version.ts'],
  api: ['api', 'http', 'domain', 'config.ts', 'container.ts', 'version.ts'],
};
const SQL = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto)\(|\bsql`|\bsql\.(ref|raw|lit|table|id)\(/;

for (const file of walk(src)) {
  const rel = path.relative(src, file);
  const text = fs.readFileSync(file, 'utf8');
  const area = areaOf(file);
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const where = `src/${rel}:${i + 1}`;
    if (area !== 'db' && SQL.test(line)) problems.push(`${where}: SQL outside src/db/`);
    if (rel !== 'config.ts' && /process\.env\b/.test(line)) problems.push(`${where}: process.env read outside src/config.ts`);
    const m = /^\s*import\s+(type\s+)?[^'"]*from\s+'(\.[^']+)'/.exec(line) ?? /^\s*export\s+[^'"]*from\s+'(\.[^']+)'/.exec(line);
    if (!m || m[1] === 'type ' || /^\s*import\s+type\b/.test(line)) return;
    const spec = m[2] ?? m[1];
    const target = path.relative(src, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '.ts');
    const allowed = ALLOWED[area];
    if (!allowed) return; // app.ts, main.ts, container.ts wire everything
    if (!allowed.some((a) => target === a || target.startsWith(`${a}/`) || target.startsWith(`${a}${path.sep}`))) {
      problems.push(`${where}: ${area}/ may not import ${target}`);
    }
  });
}

// The domain runs git only through src/git's named operations (each guards its arguments),
// never through the raw wrapper src/git/git.ts.
for (const file of walk(path.join(src, 'domain'))) {
  fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (/from\s+'(\.\.\/)+git\/git(\.js)?'/.test(line)) problems.push(`src/${path.relative(src, file)}:${i + 1}: the domain may not import the raw git wrapper (src/git/git.ts); add a named operation in src/git/`);
  });
}

if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\nlint: ${problems.length} problem(s)\n`);
  process.exit(1);
}
process.stdout.write('lint: ok\n');
