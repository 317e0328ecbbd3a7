// `npm test`: every test file under test/, with node's test runner through tsx.
// Each file runs its cases on SQLite, and on PostgreSQL when ANVIL_TEST_DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv.slice(2);

function collect(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'helpers' ? [] : collect(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const files = only.length ? only : collect(path.join(root, 'test')).sort();
const concurrency = process.env.ANVIL_TEST_CONCURRENCY ?? '4';
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(r.status ?? 1);
