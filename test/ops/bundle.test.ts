// The built command, as `npm start` runs it: dist/anvil.cjs runs the one-file server bundle
// (dist/server.cjs) through the V8 code cache the build wrote beside it. The other tests run src/
// through tsx, so this is where the bundle itself is checked: lazily loaded parts (the PostgreSQL
// driver, the CI file parser, git, the web pages and their assets) work from it.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, ROOT_TOKEN, freshPostgresUrl } from '../helpers/build.js';
import { ROOT, distIsFresh, startServer } from '../../bench/server.js';

const DIST = path.join(ROOT, 'dist');
const BUNDLE = path.join(DIST, 'server.cjs');

/** The cache file the launcher reads for the bundle as it is now (src/launch.ts names it). */
function cacheOfBundle(): string {
  const st = fs.statSync(BUNDLE);
  return path.join(DIST, `server.cjs.${st.size}-${Math.round(st.mtimeMs)}.cache`);
}

describe('the built server', () => {
  before(() => {
    if (distIsFresh()) return;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('the build leaves a code cache for its bundle, and only for it', () => {
    assert.ok(fs.existsSync(cacheOfBundle()), 'no code cache for dist/server.cjs');
    const caches = fs.readdirSync(DIST).filter((f) => f.endsWith('.cache'));
    assert.deepEqual(caches, [path.basename(cacheOfBundle())]);
  });

  it('keeps the parts few servers load (S3, PostgreSQL) in files of their own, loaded from the bundle', () => {
    const size = fs.statSync(BUNDLE).size;
    for (const part of ['s3', 'pg']) {
      const file = path.join(DIST, 'lazy', `${part}.cjs`);
      assert.ok(fs.existsSync(file), file);
      assert.ok(fs.readFileSync(BUNDLE, 'latin1').includes(`require("./lazy/${part}.cjs")`));
    }
    const s3 = spawnSync(process.execPath, ['-e', `console.log(typeof require(${JSON.stringify(path.join(DIST, 'lazy/s3.cjs'))}).S3BlobStorage)`], { encoding: 'utf8' });
    assert.equal(s3.stdout.trim(), 'function', s3.stderr);
    // What is left is Anvil and the dependencies every start loads (3.9 MB with merge requests,
    // issues, releases and the SSH server); one of the lazy parts inlined would add 0.1–1 MB.
    assert.ok(size < 4_300_000, `the bundle is ${size} bytes`);
  });

  it('makes a new SQLite database from the migrated empty one the build left', async () => {
    const template = path.join(DIST, 'schema.sqlite3');
    assert.ok(fs.existsSync(template), 'no dist/schema.sqlite3');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-bundle-'));
    const s = await startServer({ entry: 'dist', env: { ANVIL_ROOT_TOKEN: ROOT_TOKEN, ANVIL_DATA_DIR: dataDir } });
    try {
      const me = await fetch(`${s.url}/api/v4/user`, { headers: { 'private-token': ROOT_TOKEN } });
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { username: string }).username, 'root');
      // The template itself is still the empty schema: no user was written into it.
      const users = spawnSync(process.execPath, ['-e', `const D=require('better-sqlite3');console.log(new D(${JSON.stringify(template)},{readonly:true}).prepare('select count(*) n from users').get().n)`], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(users.stdout.trim(), '0', users.stderr);
    } finally {
      await s.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('prints its revision, run as itself', () => {
    const out = execFileSync(path.join(DIST, 'anvil.cjs'), ['--version'], { encoding: 'utf8' });
    assert.match(out.trim(), /^anvil-\d+\.\d+\.\d+-\w+$/);
  });

  it('the server runs with the memory settings of the command\'s first line', async () => {
    const s = await startServer({ entry: 'dist' });
    try {
      const pid = s.proc.pid!;
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      assert.ok(argv.includes('--max-semi-space-size=8') && argv.includes('--heap-growing-percent=20'), argv.join(' '));
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(environ.includes('MALLOC_ARENA_MAX=2') && environ.includes('MALLOC_MMAP_THRESHOLD_=65536'), environ.filter((e) => e.startsWith('MALLOC')).join(' '));
    } finally {
      await s.stop();
    }
  });

  for (const dialect of DIALECTS) {
    it(`serves the API, git, CI files and pages (${dialect})`, async () => {
      const pgDb = dialect === 'postgres' ? await freshPostgresUrl() : null;
      const s = await startServer({ entry: 'dist', env: { ANVIL_ROOT_TOKEN: ROOT_TOKEN, ...(pgDb ? { ANVIL_DATABASE_URL: pgDb.url } : {}) } });
      const api = async (method: string, p: string, body?: unknown) => {
        const r = await fetch(`${s.url}/api/v4${p}`, {
          method,
          headers: { 'private-token': ROOT_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        return { status: r.status, body: await r.json() };
      };
      try {
        const project = await api('POST', '/projects', { name: 'Built', initialize_with_readme: true, visibility: 'public' });
        assert.equal(project.status, 201, JSON.stringify(project.body));
        const tree = await api('GET', `/projects/${project.body.id}/repository/tree`);
        assert.deepEqual(tree.body.map((e: { name: string }) => e.name), ['README.md']);
        const ciFile = await api('POST', `/projects/${project.body.id}/repository/files/.service-ci.yml`, {
          branch: 'main',
          content: 'test:\n  script: echo ok\n',
          commit_message: 'CI',
        });
        assert.equal(ciFile.status, 201, JSON.stringify(ciFile.body));
        const pipeline = await api('POST', `/projects/${project.body.id}/pipeline`, { ref: 'main' });
        assert.equal(pipeline.status, 201, JSON.stringify(pipeline.body));
        const jobs = await api('GET', `/projects/${project.body.id}/pipelines/${pipeline.body.id}/jobs`);
        assert.deepEqual(jobs.body.map((j: { name: string }) => j.name), ['test']);

        const page = await fetch(`${s.url}/${project.body.path_with_namespace}`);
        assert.equal(page.status, 200);
        const html = await page.text();
        const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
        assert.ok(script, 'the page loads its script');
        assert.equal((await fetch(new URL(script, s.url))).status, 200);
      } finally {
        await s.stop();
        await pgDb?.drop();
      }
    });
  }
});
