// Repository extras: archives (every format, sha and path, names as the reference gives them),
// blobs by sha, contributors, commit refs, cherry-pick and revert through the one ref-change path,
// and changelogs (generated and committed). Bad input, 401/403/404 on each.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { COMMIT_KEYS } from '../helpers/keys.js';
import { commit, makeRepoProject, memberWith } from '../helpers/repository_content.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { gitText } from '../../src/git/git.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-extras-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

/** The names in an archive, as tar or unzip list them. */
function entries(bytes: Buffer, format: string): string[] {
  const file = path.join(tmp, `a-${Math.random().toString(36).slice(2)}.${format}`);
  fs.writeFileSync(file, bytes);
  const out = format === 'zip' ? execFileSync('unzip', ['-Z1', file]) : execFileSync('tar', [format === 'tar.bz2' ? '-tjf' : format === 'tar' ? '-tf' : '-tzf', file]);
  return out.toString('utf8').split('\n').filter(Boolean).sort();
}

for (const dialect of DIALECTS) {
  describe(`repository extras (${dialect})`, () => {
    let t: TestApp;
    let p: any;
    let priv: any;
    let head: string;
    let outsider: { token: string };
    let reporter: { token: string };
    let developer: { token: string };
    before(async () => {
      t = await buildTestApp(dialect);
      p = await makeRepoProject(t, { path: 'extras', visibility: 'public' });
      await commit(t, p.id, { actions: [{ action: 'create', file_path: 'docs/guide.md', content: 'guide\n' }, { action: 'create', file_path: 'src/a.txt', content: 'a\n' }] });
      head = (await commit(t, p.id, { commit_message: 'second', author_name: 'Jane', author_email: 'jane@example.com', actions: [{ action: 'update', file_path: 'src/a.txt', content: 'a\nb\n' }] })).id;
      priv = await makeRepoProject(t, { path: 'hidden', visibility: 'private' });
      outsider = await t.createUser();
      reporter = await memberWith(t, p.id, 20);
      developer = await memberWith(t, p.id, 30);
    });
    after(async () => t.close());

    const base = (id: number) => `/api/v4/projects/${id}/repository`;
    const raw = (url: string, token: string | null = t.rootToken) => t.app.inject({ method: 'GET', url, headers: token ? { 'private-token': token } : {} });
    const git = (id: number, args: string[]) => gitText(args, { gitDir: repositoryDir(t.c, id) });

    describe('archive', () => {
      for (const [suffix, format, type] of [
        ['', 'tar.gz', 'application/octet-stream'],
        ['.tar.gz', 'tar.gz', 'application/octet-stream'],
        ['.tgz', 'tar.gz', 'application/octet-stream'],
        ['.tar.bz2', 'tar.bz2', 'application/octet-stream'],
        ['.tar', 'tar', 'application/octet-stream'],
        ['.zip', 'zip', 'application/zip'],
      ] as const) {
        it(`archive${suffix || ' (default)'}: ${format}, named project-ref-sha, every file under that directory`, async () => {
          const r = await raw(`${base(p.id)}/archive${suffix}`);
          assert.equal(r.statusCode, 200, r.body);
          assert.equal(r.headers['content-type'], type);
          const name = `extras-main-${head}`;
          assert.equal(r.headers['content-disposition'], `attachment; filename="${name}.${format}"`);
          assert.equal(r.headers['content-transfer-encoding'], 'binary');
          assert.deepEqual(entries(r.rawPayload, format), [`${name}/`, `${name}/README.md`, `${name}/docs/`, `${name}/docs/guide.md`, `${name}/src/`, `${name}/src/a.txt`]);
        });
      }

      it('sha (a branch, a tag, a commit) and path: that commit, only that directory, the path in the name', async () => {
        const first = await git(p.id, ['rev-parse', 'main~1']);
        const r = await raw(`${base(p.id)}/archive.zip?sha=${first}&path=docs`);
        assert.equal(r.statusCode, 200, r.body);
        const name = `extras-${first}-${first}-docs`;
        assert.equal(r.headers['content-disposition'], `attachment; filename="${name}.zip"`);
        assert.deepEqual(entries(r.rawPayload, 'zip'), [`${name}/`, `${name}/docs/`, `${name}/docs/guide.md`]);
        const file = path.join(tmp, 'old.zip');
        fs.writeFileSync(file, r.rawPayload);
        assert.equal(execFileSync('unzip', ['-p', file, `${name}/docs/guide.md`]).toString(), 'guide\n');
        // the query's format is read too
        const q = await raw(`${base(p.id)}/archive?format=tar&sha=main`);
        assert.equal(q.headers['content-disposition'], `attachment; filename="extras-main-${head}.tar"`);
      });

      it('unknown sha, unknown path, an unknown format, an empty repository: 404', async () => {
        for (const [url, body] of [
          [`${base(p.id)}/archive?sha=nope`, { message: '404 File Not Found' }],
          [`${base(p.id)}/archive?path=missing`, { message: '404 File Not Found' }],
          [`${base(p.id)}/archive?path=../x`, { message: '404 File Not Found' }],
          [`${base(p.id)}/archive.rar`, { error: '404 Not Found' }],
        ] as const) {
          const r = await t.get(url);
          assert.equal(r.status, 404, url);
          assert.deepEqual(r.body, body, url);
        }
        const empty = await makeRepoProject(t, { path: 'empty-one', initialize_with_readme: false });
        assert.equal((await t.get(`${base(empty.id)}/archive`)).status, 404);
      });

      it('the web URL /-/archive/:ref/:file: named as asked (the sha only when the name is not project-ref), path too', async () => {
        const web = (u: string) => t.app.inject({ method: 'GET', url: u });
        const r = await web(`/${p.path_with_namespace}/-/archive/main/extras-main.zip`);
        assert.equal(r.statusCode, 200, r.body);
        assert.equal(r.headers['content-type'], 'application/zip');
        assert.equal(r.headers['content-disposition'], 'attachment; filename="extras-main.zip"');
        assert.ok(entries(r.rawPayload, 'zip').includes('extras-main/src/a.txt'));
        const other = await web(`/${p.path_with_namespace}/-/archive/main/whatever.tar.gz?path=src`);
        assert.equal(other.headers['content-disposition'], `attachment; filename="extras-main-${head}-src.tar.gz"`);
        assert.deepEqual(entries(other.rawPayload, 'tar.gz'), [`extras-main-${head}-src/`, `extras-main-${head}-src/src/`, `extras-main-${head}-src/src/a.txt`]);
        const bySha = await web(`/${p.path_with_namespace}/-/archive/${head}/x.tar`);
        assert.equal(bySha.headers['content-disposition'], `attachment; filename="extras-${head}.tar"`);
        // nothing there: the site's not-found answer (for an anonymous visitor, the sign-in page)
        assert.equal((await web(`/${p.path_with_namespace}/-/archive/nope/extras-nope.zip`)).statusCode, 302);
        assert.equal((await web(`/${p.path_with_namespace}/-/archive/main/extras-main.rar`)).statusCode, 302);
        // a private project: sign in first
        const hidden = await web(`/${priv.path_with_namespace}/-/archive/main/hidden-main.zip`);
        assert.equal(hidden.statusCode, 302);
        assert.match(String(hidden.headers.location), /^\/users\/sign_in/);
      });

      it("another user's private project is 404, anonymous 404 too; public is open to anyone", async () => {
        assert.deepEqual((await t.get(`${base(priv.id)}/archive`, outsider.token)).body, { message: '404 Project Not Found' });
        assert.equal((await t.get(`${base(priv.id)}/archive`, null)).status, 404);
        assert.equal((await raw(`${base(p.id)}/archive.tar`, null)).statusCode, 200);
      });
    });

    describe('blobs', () => {
      it('GET blobs/:sha: size, base64 content, sha; raw: the bytes, uncached', async () => {
        const sha = await git(p.id, ['rev-parse', 'main:src/a.txt']);
        const r = await t.get(`${base(p.id)}/blobs/${sha}`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, { size: 4, encoding: 'base64', content: Buffer.from('a\nb\n').toString('base64'), sha });
        const short = await t.get(`${base(p.id)}/blobs/${sha.slice(0, 10)}`);
        assert.equal(short.body.sha, sha);
        const rr = await raw(`${base(p.id)}/blobs/${sha}/raw`);
        assert.equal(rr.statusCode, 200);
        assert.equal(rr.body, 'a\nb\n');
        assert.equal(rr.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(rr.headers['cache-control'], 'no-cache, no-store');
      });

      it('a tree, a commit, an unknown or malformed sha: 404 Blob; private: 404 Project; anonymous on private: 404', async () => {
        const tree = await git(p.id, ['rev-parse', 'main^{tree}']);
        for (const sha of [tree, head, '0'.repeat(40), 'main', '--help']) {
          const r = await t.get(`${base(p.id)}/blobs/${encodeURIComponent(sha)}`);
          assert.equal(r.status, 404, sha);
          assert.deepEqual(r.body, { message: '404 Blob Not Found' });
          assert.equal((await t.get(`${base(p.id)}/blobs/${encodeURIComponent(sha)}/raw`)).status, 404);
        }
        const sha = await git(priv.id, ['rev-parse', 'main:README.md']);
        assert.deepEqual((await t.get(`${base(priv.id)}/blobs/${sha}`, outsider.token)).body, { message: '404 Project Not Found' });
        assert.equal((await t.get(`${base(priv.id)}/blobs/${sha}/raw`, null)).status, 404);
      });
    });

    describe('contributors', () => {
      it('one row per author email with commit counts, ordered and sorted as asked, paginated', async () => {
        const r = await t.get(`${base(p.id)}/contributors`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, [
          { name: 'Jane', email: 'jane@example.com', commits: 1, additions: 0, deletions: 0 },
          { name: 'Administrator', email: 'admin@example.com', commits: 2, additions: 0, deletions: 0 },
        ].map((x) => ({ ...x, email: x.email === 'admin@example.com' ? r.body[1].email : x.email })));
        const byName = await t.get(`${base(p.id)}/contributors?order_by=name&sort=desc`);
        assert.deepEqual(byName.body.map((x: any) => x.name), ['Jane', 'Administrator']);
        const paged = await t.get(`${base(p.id)}/contributors?per_page=1&page=2`);
        assert.equal(paged.body.length, 1);
        assert.equal(paged.headers['x-total'], '2');
        const first = await t.get(`${base(p.id)}/contributors?ref=main~1`);
        assert.deepEqual(first.body.map((x: any) => x.commits), [2]);
      });

      it('bad order_by: 400; unknown ref: 404; private: 404', async () => {
        const bad = await t.get(`${base(p.id)}/contributors?order_by=size`);
        assert.equal(bad.status, 400);
        assert.deepEqual(bad.body, { error: 'order_by does not have a valid value' });
        assert.deepEqual((await t.get(`${base(p.id)}/contributors?ref=nope`)).body, { message: '404 Not Found' });
        assert.equal((await t.get(`${base(priv.id)}/contributors`, outsider.token)).status, 404);
      });
    });

    describe('commit refs', () => {
      it('branches and tags holding a commit, by type', async () => {
        const first = await git(p.id, ['rev-parse', 'main~1']);
        assert.equal((await t.request('POST', `${base(p.id)}/branches?branch=side&ref=${first}`)).status, 201);
        assert.equal((await t.request('POST', `${base(p.id)}/tags`, { body: { tag_name: 'v0.1.0', ref: first } })).status, 201);
        const all = await t.get(`${base(p.id)}/commits/${first}/refs`);
        assert.equal(all.status, 200, all.text);
        assert.deepEqual(all.body, [{ type: 'branch', name: 'main' }, { type: 'branch', name: 'side' }, { type: 'tag', name: 'v0.1.0' }]);
        assert.deepEqual((await t.get(`${base(p.id)}/commits/${first}/refs?type=tag`)).body, [{ type: 'tag', name: 'v0.1.0' }]);
        assert.deepEqual((await t.get(`${base(p.id)}/commits/${head}/refs?type=branch`)).body, [{ type: 'branch', name: 'main' }]);
        assert.equal((await t.get(`${base(p.id)}/commits/${first}/refs?type=note`)).status, 400);
        assert.deepEqual((await t.get(`${base(p.id)}/commits/${'1'.repeat(40)}/refs`)).body, { message: '404 Commit Not Found' });
        assert.equal((await t.get(`${base(priv.id)}/commits/main/refs`, outsider.token)).status, 404);
      });
    });

    describe('cherry-pick and revert', () => {
      it("cherry-pick applies the commit's change on a branch: 201 Commit, the branch moved, a push event published", async () => {
        const q = await makeRepoProject(t, { path: 'picks' });
        const start = await git(q.id, ['rev-parse', 'main']);
        assert.equal((await t.request('POST', `${base(q.id)}/branches?branch=stable&ref=main`)).status, 201);
        const change = await commit(t, q.id, { commit_message: 'Add feature\n\nbody', author_name: 'Ann', author_email: 'ann@example.com', actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }] });
        const r = await t.request('POST', `${base(q.id)}/commits/${change.id}/cherry_pick`, { body: { branch: 'stable' } });
        assert.equal(r.status, 201, r.text);
        assert.deepEqual(keysOf(r.body), COMMIT_KEYS);
        assert.equal(r.body.message, `Add feature\n\nbody\n\n(cherry picked from commit ${change.id})`);
        assert.equal(r.body.author_name, 'Ann');
        assert.equal(r.body.committer_name, 'Administrator');
        assert.deepEqual(r.body.parent_ids, [start]);
        assert.equal(await git(q.id, ['rev-parse', 'stable']), r.body.id);
        assert.equal(await git(q.id, ['show', 'stable:f.txt']), 'f');
        const events = await t.get(`/api/v4/projects/${q.id}/events?action=pushed`);
        assert.ok(events.body.some((e: any) => e.push_data.ref === 'stable' && e.push_data.commit_to === r.body.id), JSON.stringify(events.body));

        // again: nothing left to apply
        const again = await t.request('POST', `${base(q.id)}/commits/${change.id}/cherry_pick`, { body: { branch: 'stable' } });
        assert.equal(again.status, 400);
        assert.deepEqual(again.body, {
          message: 'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.',
          error_code: 'empty',
        });
        // a custom message; dry_run answers without moving the branch
        const other = await commit(t, q.id, { actions: [{ action: 'create', file_path: 'g.txt', content: 'g\n' }] });
        const dry = await t.request('POST', `${base(q.id)}/commits/${other.id}/cherry_pick`, { body: { branch: 'stable', dry_run: true } });
        assert.equal(dry.status, 200, dry.text);
        assert.deepEqual(dry.body, { dry_run: 'success' });
        assert.equal(await git(q.id, ['rev-parse', 'stable']), r.body.id);
        const msg = await t.request('POST', `${base(q.id)}/commits/${other.id}/cherry_pick`, { body: { branch: 'stable', message: 'Backport g' } });
        assert.equal(msg.body.message, 'Backport g');
      });

      it('conflict: 400 error_code conflict (dry_run says error); revert undoes a change; revert twice: empty', async () => {
        const q = await makeRepoProject(t, { path: 'reverts' });
        await commit(t, q.id, { actions: [{ action: 'create', file_path: 'c.txt', content: 'one\n' }] });
        assert.equal((await t.request('POST', `${base(q.id)}/branches?branch=other&ref=main`)).status, 201);
        const mainChange = await commit(t, q.id, { actions: [{ action: 'update', file_path: 'c.txt', content: 'two\n' }] });
        await commit(t, q.id, { branch: 'other', actions: [{ action: 'update', file_path: 'c.txt', content: 'three\n' }] });
        const conflict = await t.request('POST', `${base(q.id)}/commits/${mainChange.id}/cherry_pick`, { body: { branch: 'other', dry_run: true } });
        assert.equal(conflict.status, 400);
        assert.equal(conflict.body.error_code, 'conflict');
        assert.equal(conflict.body.dry_run, 'error');

        const rev = await t.request('POST', `${base(q.id)}/commits/${mainChange.id}/revert`, { body: { branch: 'main' } });
        assert.equal(rev.status, 201, rev.text);
        assert.equal(rev.body.message, `Revert "change"\n\nThis reverts commit ${mainChange.id}`);
        assert.equal(await git(q.id, ['show', 'main:c.txt']), 'one');
        const twice = await t.request('POST', `${base(q.id)}/commits/${mainChange.id}/revert`, { body: { branch: 'main' } });
        assert.equal(twice.status, 400);
        assert.deepEqual(twice.body, {
          message: 'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.',
          error_code: 'empty',
        });
      });

      it('missing branch: 400; unknown commit or branch: 404; reporter: 403; protected branch: 403; none: 401; private: 404', async () => {
        const first = await git(p.id, ['rev-parse', 'main~1']);
        const url = `${base(p.id)}/commits/${first}/cherry_pick`;
        assert.deepEqual((await t.request('POST', url, { body: {} })).body, { message: '400 (Bad request) "branch" not given' });
        assert.deepEqual((await t.request('POST', `${base(p.id)}/commits/${'2'.repeat(40)}/cherry_pick`, { body: { branch: 'main' } })).body, { message: '404 Commit Not Found' });
        assert.deepEqual((await t.request('POST', url, { body: { branch: 'nope' } })).body, { message: '404 Branch Not Found' });
        const rep = await t.request('POST', url, { token: reporter.token, body: { branch: 'side' } });
        assert.equal(rep.status, 403);
        assert.deepEqual(rep.body, { message: '403 Forbidden - You are not allowed to push into this branch' });
        // main is protected (maintainers push): a developer may not pick onto it
        const dev = await t.request('POST', `${base(p.id)}/commits/${first}/revert`, { token: developer.token, body: { branch: 'main' } });
        assert.equal(dev.status, 403, dev.text);
        assert.equal((await t.request('POST', url, { token: null, body: { branch: 'main' } })).status, 401);
        assert.equal((await t.request('POST', `${base(priv.id)}/commits/main/revert`, { token: outsider.token, body: { branch: 'main' } })).status, 404);
      });
    });

    describe('changelog', () => {
      let q: any;
      before(async () => {
        q = await makeRepoProject(t, { path: 'logs' });
        assert.equal((await t.request('POST', `${base(q.id)}/tags`, { body: { tag_name: 'v1.0.0', ref: 'main' } })).status, 201);
        await commit(t, q.id, { commit_message: 'Add login\n\nChangelog: added', actions: [{ action: 'create', file_path: 'l.txt', content: 'l' }] });
        await commit(t, q.id, { commit_message: 'Fix crash\n\nChangelog: fixed', actions: [{ action: 'create', file_path: 'c.txt', content: 'c' }] });
        await commit(t, q.id, { commit_message: 'Add signup\n\nChangelog: added', actions: [{ action: 'create', file_path: 's.txt', content: 's' }] });
        await commit(t, q.id, { commit_message: 'Chore without trailer', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] });
      });

      it('GET: the commits since the previous tag with the trailer, grouped, under the version and date', async () => {
        const r = await t.get(`${base(q.id)}/changelog?version=1.1.0&date=2026-03-04T05:06:07Z`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(keysOf(r.body), ['notes']);
        const shas = (await git(q.id, ['log', '--format=%H', '-4', 'main'])).split('\n').reverse();
        assert.equal(
          r.body.notes,
          `## 1.1.0 (2026-03-04)\n\n### added (2 changes)\n\n- [Add login](${q.path_with_namespace}@${shas[0]})\n- [Add signup](${q.path_with_namespace}@${shas[2]})\n\n` +
            `### fixed (1 change)\n\n- [Fix crash](${q.path_with_namespace}@${shas[1]})\n\n`,
        );
        const none = await t.get(`${base(q.id)}/changelog?version=1.1.0&date=2026-03-04&from=main`);
        assert.equal(none.body.notes, '## 1.1.0 (2026-03-04)\n\nNo changes.\n\n');
      });

      it('bad version: 400; no previous tag: 422; private: 404', async () => {
        assert.deepEqual((await t.get(`${base(q.id)}/changelog`)).body, { message: '400 (Bad request) "version" not given' });
        assert.deepEqual((await t.get(`${base(q.id)}/changelog?version=one`)).body, { error: 'version is invalid' });
        const old = await t.get(`${base(q.id)}/changelog?version=0.1.0`);
        assert.equal(old.status, 422);
        assert.deepEqual(old.body, { message: 'Failed to generate the changelog: The commit start range is unspecified, and no previous tag could be found to use instead' });
        assert.equal((await t.get(`${base(priv.id)}/changelog?version=1.0.0`, outsider.token)).status, 404);
      });

      it('POST: commits the section into CHANGELOG.md (200), newest release first, once per version; reporter: 403', async () => {
        const r = await t.request('POST', `${base(q.id)}/changelog`, { body: { version: '1.1.0', date: '2026-03-04' } });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.text, '200');
        const content = await git(q.id, ['show', 'main:CHANGELOG.md']);
        assert.match(content, /^## 1\.1\.0 \(2026-03-04\)\n\n### added \(2 changes\)/);
        assert.equal(await git(q.id, ['log', '-1', '--format=%s', 'main']), 'Add changelog for version 1.1.0');
        assert.equal((await t.request('POST', `${base(q.id)}/changelog`, { body: { version: '1.1.0' } })).status, 200);
        assert.equal(await git(q.id, ['log', '-1', '--format=%s', 'main']), 'Add changelog for version 1.1.0');
        // a newer release goes above
        const next = await t.request('POST', `${base(q.id)}/changelog`, { body: { version: '1.2.0', from: 'main', date: '2026-04-01', message: 'Release notes' } });
        assert.equal(next.status, 200, next.text);
        const both = await git(q.id, ['show', 'main:CHANGELOG.md']);
        assert.ok(both.indexOf('## 1.2.0') < both.indexOf('## 1.1.0'), both);
        const rep = await memberWith(t, q.id, 20);
        const denied = await t.request('POST', `${base(q.id)}/changelog`, { token: rep.token, body: { version: '1.3.0' } });
        assert.equal(denied.status, 403);
        assert.deepEqual(denied.body, { message: '403 Forbidden - You are not allowed to commit a changelog on this branch' });
        assert.equal((await t.request('POST', `${base(q.id)}/changelog`, { token: null, body: { version: '1.3.0' } })).status, 401);
      });
    });
  });
}
