// The commits API: commits from actions (every action type, text and base64), the reference's
// errors, permissions, the compare-and-swap that never loses a commit, and the commit readers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { COMMIT_KEYS } from '../helpers/keys.js';
import { commit, makeRepoProject, memberWith } from '../helpers/repository_content.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { gitText } from '../../src/git/git.js';
import { spawnsDuring } from '../helpers/spawns.js';

const DETAIL_KEYS = [...COMMIT_KEYS, 'last_pipeline', 'project_id', 'stats', 'status'].sort();
const DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;

for (const dialect of DIALECTS) {
  describe(`commits API (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const url = (id: number) => `/api/v4/projects/${id}/repository/commits`;
    const show = (id: number, rev: string) => gitText(['show', rev], { gitDir: repositoryDir(t.c, id) });
    const ls = (id: number, rev = 'main') => gitText(['ls-tree', '-r', rev], { gitDir: repositoryDir(t.c, id) });

    it('creates one commit from every action type and answers 201 with the CommitDetail', async () => {
      const p = await makeRepoProject(t, { path: 'acts' });
      const head = await gitText(['rev-parse', 'main'], { gitDir: repositoryDir(t.c, p.id) });
      await commit(t, p.id, { actions: [{ action: 'create', file_path: 'old.txt', content: 'one\ntwo\n' }, { action: 'create', file_path: 'gone.txt', content: 'x' }] });
      const r = await t.request('POST', url(p.id), {
        body: {
          branch: 'main',
          commit_message: 'Many things\n\nwith a body',
          author_name: 'Jane Doe',
          author_email: 'jane@example.com',
          actions: [
            { action: 'create', file_path: 'dir/new.txt', content: 'hello\n' },
            { action: 'create', file_path: 'bin/data.bin', content: Buffer.from([0, 1, 2, 254, 255]).toString('base64'), encoding: 'base64' },
            { action: 'update', file_path: 'README.md', content: '# changed\n' },
            { action: 'move', file_path: 'moved.txt', previous_path: 'old.txt' },
            { action: 'delete', file_path: 'gone.txt' },
            { action: 'chmod', file_path: 'dir/new.txt', execute_filemode: true },
          ],
        },
      });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(keysOf(r.body), DETAIL_KEYS);
      assert.equal(r.body.title, 'Many things');
      assert.equal(r.body.message, 'Many things\n\nwith a body');
      assert.equal(r.body.short_id, r.body.id.slice(0, 8));
      assert.equal(r.body.author_name, 'Jane Doe');
      assert.equal(r.body.author_email, 'jane@example.com');
      assert.equal(r.body.committer_name, 'Administrator');
      assert.match(r.body.authored_date, DATE);
      assert.equal(r.body.created_at, r.body.committed_date);
      assert.notEqual(r.body.parent_ids[0], head);
      assert.equal(r.body.project_id, p.id);
      assert.equal(r.body.status, null);
      assert.equal(r.body.last_pipeline, null);
      assert.deepEqual(r.body.trailers, {});
      assert.equal(r.body.web_url, `http://anvil.test/${p.path_with_namespace}/-/commit/${r.body.id}`);
      assert.deepEqual(keysOf(r.body.stats), ['additions', 'deletions', 'total']);
      assert.equal(r.body.stats.total, r.body.stats.additions + r.body.stats.deletions);

      const tree = await ls(p.id);
      assert.match(tree, /^100755 blob \S+\tdir\/new.txt$/m);
      assert.match(tree, /^100644 blob \S+\tmoved.txt$/m);
      assert.doesNotMatch(tree, /old\.txt|gone\.txt/);
      assert.equal(await gitText(['rev-parse', 'main'], { gitDir: repositoryDir(t.c, p.id) }), r.body.id);
      assert.equal(await show(p.id, 'main:moved.txt'), 'one\ntwo');
      assert.equal(await show(p.id, 'main:README.md'), '# changed');
      const bin = await gitText(['cat-file', '-s', 'main:bin/data.bin'], { gitDir: repositoryDir(t.c, p.id) });
      assert.equal(bin, '5');

      // chmod back, and stats=false leaves stats out
      const back = await t.request('POST', url(p.id), { body: { branch: 'main', commit_message: 'x', stats: false, actions: [{ action: 'chmod', file_path: 'dir/new.txt', execute_filemode: false }] } });
      assert.equal(back.status, 201, back.text);
      assert.equal(back.body.stats, undefined);
      assert.match(await ls(p.id), /^100644 blob \S+\tdir\/new.txt$/m);
    });

    it('answers the reference errors for actions that cannot apply, changing nothing', async () => {
      const p = await makeRepoProject(t);
      const head = () => gitText(['rev-parse', 'main'], { gitDir: repositoryDir(t.c, p.id) });
      const before = await head();
      const cases: [Record<string, unknown>, string][] = [
        [{ action: 'create', file_path: 'README.md', content: 'x' }, 'A file with this name already exists'],
        [{ action: 'update', file_path: 'nope.txt', content: 'x' }, "A file with this name doesn't exist"],
        [{ action: 'delete', file_path: 'nope.txt' }, "A file with this name doesn't exist"],
        [{ action: 'move', file_path: 'b.txt', previous_path: 'nope.txt' }, "A file with this name doesn't exist"],
        [{ action: 'chmod', file_path: 'nope.txt', execute_filemode: true }, "A file with this name doesn't exist"],
        [{ action: 'create', file_path: '../evil', content: 'x' }, 'Path cannot include directory traversal'],
      ];
      for (const [action, message] of cases) {
        const r = await t.request('POST', url(p.id), { body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'ok.txt', content: '1' }, action] } });
        assert.equal(r.status, 400, JSON.stringify(action));
        assert.deepEqual(r.body, { message });
      }
      assert.equal(await head(), before);
      const stale = await t.request('POST', url(p.id), { body: { branch: 'main', commit_message: 'x', actions: [{ action: 'update', file_path: 'README.md', content: 'y', last_commit_id: '1'.repeat(40) }] } });
      assert.equal(stale.status, 400);
      assert.deepEqual(stale.body, { message: 'The file has changed since you started editing it: README.md' });
      const fresh = await t.request('POST', url(p.id), { body: { branch: 'main', commit_message: 'x', actions: [{ action: 'update', file_path: 'README.md', content: 'y', last_commit_id: before }] } });
      assert.equal(fresh.status, 201, fresh.text);
    });

    it('400 for missing and invalid parameters', async () => {
      const p = await makeRepoProject(t);
      const post = (body: unknown) => t.request('POST', url(p.id), { body });
      const ok = { branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'a', content: '' }] };
      for (const key of ['branch', 'commit_message', 'actions']) {
        const { [key]: _drop, ...rest } = ok as Record<string, unknown>;
        const r = await post(rest);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, { message: `400 (Bad request) "${key}" not given` });
      }
      let r = await post({ ...ok, actions: [{ action: 'explode', file_path: 'a' }] });
      assert.deepEqual([r.status, r.body], [400, { error: 'actions[0][action] does not have a valid value' }]);
      r = await post({ ...ok, actions: [{ action: 'create' }] });
      assert.deepEqual([r.status, r.body], [400, { error: 'actions[0][file_path] is missing' }]);
      r = await post({ ...ok, actions: [{ action: 'move', file_path: 'x' }] });
      assert.deepEqual([r.status, r.body], [400, { error: 'actions[0][previous_path] is missing' }]);
      r = await post({ ...ok, actions: [{ action: 'create', file_path: 'x', encoding: 'rot13' }] });
      assert.deepEqual([r.status, r.body], [400, { error: 'actions[0][encoding] does not have a valid value' }]);
      r = await post({ ...ok, start_branch: 'main', start_sha: 'a'.repeat(40) });
      assert.deepEqual([r.status, r.body], [400, { error: 'start_branch, start_sha are mutually exclusive' }]);
    });

    it('creates branches from start_branch or start_sha, refuses an existing one unless force', async () => {
      const p = await makeRepoProject(t);
      const first = (await t.get(`${url(p.id)}/main`)).body.id;
      const second = await commit(t, p.id, { actions: [{ action: 'create', file_path: 'two.txt', content: '2' }] });

      let r = await t.request('POST', url(p.id), { body: { branch: 'feature/x', start_branch: 'main', commit_message: 'f', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body.parent_ids, [second.id]);

      r = await t.request('POST', url(p.id), { body: { branch: 'nobranch', commit_message: 'f', actions: [] } });
      assert.deepEqual([r.status, r.body], [400, { message: 'You can only create or edit files when you are on a branch' }]);
      r = await t.request('POST', url(p.id), { body: { branch: 'feature/x', start_branch: 'main', commit_message: 'f', actions: [] } });
      assert.deepEqual([r.status, r.body], [400, { message: "A branch called 'feature/x' already exists. Switch to that branch in order to make changes" }]);

      r = await t.request('POST', url(p.id), { body: { branch: 'from-sha', start_sha: first, commit_message: 's', actions: [{ action: 'create', file_path: 's.txt', content: 's' }] } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body.parent_ids, [first]);
      r = await t.request('POST', url(p.id), { body: { branch: 'x', start_sha: '1'.repeat(40), commit_message: 's', actions: [] } });
      assert.deepEqual([r.status, r.body], [400, { message: `Cannot find start_sha '${'1'.repeat(40)}'` }]);
      r = await t.request('POST', url(p.id), { body: { branch: 'x', start_sha: first.slice(0, 7), commit_message: 's', actions: [] } });
      assert.deepEqual([r.status, r.body], [400, { message: `Invalid start_sha '${first.slice(0, 7)}'` }]);

      // force: an existing (unprotected) branch is rewritten from start_sha
      r = await t.request('POST', url(p.id), { body: { branch: 'feature/x', start_sha: first, force: true, commit_message: 'reset', actions: [{ action: 'create', file_path: 'r.txt', content: 'r' }] } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body.parent_ids, [first]);
      assert.equal(await gitText(['rev-parse', 'feature/x'], { gitDir: repositoryDir(t.c, p.id) }), r.body.id);
      // the protected default branch refuses a force push, through the same check as a git push
      r = await t.request('POST', url(p.id), { body: { branch: 'main', start_sha: first, force: true, commit_message: 'reset', actions: [] } });
      // the reference answers a refusal of its git checks with 400 and git's words (PreReceiveError)
      assert.deepEqual([r.status, r.body], [400, { message: 'You are not allowed to force push code to a protected branch on this project.' }]);
      assert.equal(await gitText(['rev-parse', 'main'], { gitDir: repositoryDir(t.c, p.id) }), second.id);
    });

    it('the first commit of an empty repository creates its branch', async () => {
      const p = await makeRepoProject(t, { initialize_with_readme: false });
      const r = await t.request('POST', url(p.id), { body: { branch: 'main', commit_message: 'root', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body.parent_ids, []);
      assert.deepEqual(r.body.stats, { additions: 1, deletions: 0, total: 1 });
    });

    it('who may commit: developers; reporters 403, no token 401, read_api 403, archived 403, invisible 404', async () => {
      const p = await makeRepoProject(t);
      await commit(t, p.id, { branch: 'dev', start_branch: 'main', actions: [] });
      const body = { branch: 'dev', commit_message: 'm', actions: [{ action: 'create', file_path: `f${Math.random()}`, content: '' }] };
      const dev = await memberWith(t, p.id, 30);
      const rep = await memberWith(t, p.id, 20);
      const readApi = await memberWith(t, p.id, 30, ['read_api']);
      const stranger = await t.createUser();
      assert.equal((await t.request('POST', url(p.id), { token: dev.token, body })).status, 201);
      const r = await t.request('POST', url(p.id), { token: rep.token, body });
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, { message: '403 Forbidden - You are not allowed to push into this branch' });
      assert.equal((await t.request('POST', url(p.id), { token: null, body })).status, 401);
      const s = await t.request('POST', url(p.id), { token: readApi.token, body });
      assert.deepEqual([s.status, s.body.error], [403, 'insufficient_scope']);
      const hidden = await t.request('POST', url(p.id), { token: stranger.token, body });
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/archive`)).status, 201);
      const a = await t.request('POST', url(p.id), { token: dev.token, body });
      assert.equal(a.status, 403);
    });

    it('a protected branch refuses a developer in the content APIs\' words; pushing to another branch works', async () => {
      const p = await makeRepoProject(t);
      const dev = await memberWith(t, p.id, 30);
      const refused = { message: '403 Forbidden - You are not allowed to push into this branch' };
      const actions = [{ action: 'create', file_path: 'x.txt', content: 'x' }];
      let r = await t.request('POST', url(p.id), { token: dev.token, body: { branch: 'main', commit_message: 'm', actions } });
      assert.deepEqual([r.status, r.body], [403, refused]);
      // a new branch that a protection rule matches is refused the same way
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/protected_branches`, { body: { name: 'rel-*' } })).status, 201);
      r = await t.request('POST', url(p.id), { token: dev.token, body: { branch: 'rel-1', start_branch: 'main', commit_message: 'm', actions } });
      assert.deepEqual([r.status, r.body], [403, refused]);
      const files = (path: string) => `/api/v4/projects/${p.id}/repository/files/${path}`;
      const body = { branch: 'main', commit_message: 'm', content: 'c' };
      for (const [method, path] of [['POST', 'new.txt'], ['PUT', 'README.md'], ['DELETE', 'README.md']] as const) {
        r = await t.request(method, files(path), { token: dev.token, body });
        assert.deepEqual([r.status, r.body], [403, refused], `${method} files`);
      }
      r = await t.request('POST', url(p.id), { token: dev.token, body: { branch: 'dev', start_branch: 'main', commit_message: 'm', actions } });
      assert.equal(r.status, 201, r.text);
    });

    it('concurrent commits to one branch are all kept (compare-and-swap, rebuilt on the new head)', async () => {
      const p = await makeRepoProject(t);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          t.request('POST', url(p.id), { body: { branch: 'main', commit_message: `c${i}`, actions: [{ action: 'create', file_path: `c${i}.txt`, content: `${i}` }] } }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status), Array(8).fill(201));
      const dir = repositoryDir(t.c, p.id);
      assert.equal(await gitText(['rev-list', '--count', 'main'], { gitDir: dir }), '9');
      const tree = await ls(p.id);
      for (let i = 0; i < 8; i++) assert.match(tree, new RegExp(`\\tc${i}\\.txt$`, 'm'));
    });

    it('a commit shows up in the commits list and as a push event', async () => {
      const p = await makeRepoProject(t);
      const c = await commit(t, p.id, { commit_message: 'Evented', actions: [{ action: 'create', file_path: 'e.txt', content: 'e' }] });
      const list = await t.get(url(p.id));
      assert.equal(list.body[0].id, c.id);
      const ev = await t.get(`/api/v4/projects/${p.id}/events`);
      const push = ev.body.find((e: any) => e.push_data?.commit_to === c.id);
      assert.ok(push, JSON.stringify(ev.body));
      assert.equal(push.action_name, 'pushed to');
      assert.deepEqual(push.push_data, { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: c.parent_ids[0], commit_to: c.id, ref: 'main', commit_title: 'Evented' });
    });

    it('lists commits newest first, paged without totals, filtered by ref, path and dates', async () => {
      const p = await makeRepoProject(t, { visibility: 'public' });
      for (let i = 0; i < 4; i++) await commit(t, p.id, { commit_message: `n${i}`, actions: [{ action: 'create', file_path: i % 2 ? `odd/${i}` : `even/${i}`, content: `${i}` }] });
      await commit(t, p.id, { branch: 'side', start_branch: 'main', commit_message: 'side', actions: [{ action: 'create', file_path: 's', content: 's' }] });

      const page1 = await t.get(`${url(p.id)}?per_page=2`, null);
      assert.equal(page1.status, 200);
      assert.deepEqual(page1.body.map((c: any) => c.title), ['n3', 'n2']);
      assert.deepEqual(keysOf(page1.body[0]), COMMIT_KEYS);
      assert.equal(page1.headers['x-page'], '1');
      assert.equal(page1.headers['x-per-page'], '2');
      assert.equal(page1.headers['x-next-page'], '2');
      assert.equal(page1.headers['x-total'], undefined);
      assert.equal(page1.headers['x-total-pages'], undefined);
      const page3 = await t.get(`${url(p.id)}?per_page=2&page=3`, null);
      assert.deepEqual(page3.body.map((c: any) => c.title), ['Initial commit']);
      assert.equal(page3.headers['x-next-page'], '');

      assert.deepEqual((await t.get(`${url(p.id)}?ref_name=side&per_page=1`)).body.map((c: any) => c.title), ['side']);
      assert.deepEqual((await t.get(`${url(p.id)}?path=odd`)).body.map((c: any) => c.title), ['n3', 'n1']);
      assert.equal((await t.get(`${url(p.id)}?all=true`)).body.length, 6);
      assert.deepEqual((await t.get(`${url(p.id)}?until=2000-01-01T00:00:00Z`)).body, []);
      assert.equal((await t.get(`${url(p.id)}?since=2000-01-01T00:00:00Z`)).body.length, 5);
      assert.deepEqual((await t.get(`${url(p.id)}?ref_name=nope`)).body, []);
      const stats = await t.get(`${url(p.id)}?with_stats=true&per_page=1`);
      assert.deepEqual(stats.body[0].stats, { additions: 1, deletions: 0, total: 1 });
      assert.equal((await t.get(`${url(p.id)}?since=garbage`)).status, 400);
      assert.equal((await t.get(`${url(p.id)}?order=sideways`)).status, 400);
    });

    it('a filtered list starts no process: path, dates, all refs, first parents and pages are walked in-process', async () => {
      const p = await makeRepoProject(t, { visibility: 'public' });
      for (let i = 0; i < 3; i++) await commit(t, p.id, { commit_message: `m${i}`, actions: [{ action: 'create', file_path: `dir/f${i}`, content: `${i}` }] });
      await commit(t, p.id, { branch: 'side', start_branch: 'main', commit_message: 'side', actions: [{ action: 'create', file_path: 'dir/s', content: 's' }] });
      await t.get(url(p.id)); // the repository's object reader starts once, not per list
      const queries = ['path=dir', 'path=dir/f1&since=2000-01-01T00:00:00Z', 'until=2099-01-01T00:00:00.000Z&first_parent=true', 'all=true&path=dir/s', 'all=true&per_page=2&page=2'];
      for (const q of queries) {
        const { spawned, result } = await spawnsDuring(() => t.get(`${url(p.id)}?${q}`));
        assert.equal(result.status, 200, q);
        assert.ok(result.body.length > 0, q);
        assert.deepEqual(spawned, [], q);
      }
      const titles = async (q: string) => (await t.get(`${url(p.id)}?${q}`)).body.map((c: any) => c.title);
      assert.deepEqual(await titles('path=dir'), ['m2', 'm1', 'm0']);
      assert.deepEqual(await titles('all=true&path=dir/s'), ['side']);
      assert.deepEqual(await titles('path=../dir'), []);
      // a file's last commit is the same walk with a limit of one
      const file = await spawnsDuring(() => t.get(`/api/v4/projects/${p.id}/repository/files/dir%2Ff1?ref=main`));
      assert.deepEqual([file.result.status, file.spawned], [200, []]);
      assert.equal(file.result.body.last_commit_id, (await t.get(`${url(p.id)}?path=dir/f1`)).body[0].id);
    });

    it('with_stats counts lines as git diff --numstat does, and starts no process per list', async () => {
      const p = await makeRepoProject(t, { visibility: 'public' });
      await commit(t, p.id, { commit_message: 'two files', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\nb\nc\n' }, { action: 'create', file_path: 'b.txt', content: 'x\n' }] });
      await commit(t, p.id, { commit_message: 'edit', actions: [{ action: 'update', file_path: 'a.txt', content: 'a\nB\nc\nd\n' }, { action: 'delete', file_path: 'b.txt' }] });
      await commit(t, p.id, { commit_message: 'binary', actions: [{ action: 'create', file_path: 'bin.dat', content: Buffer.from([0, 1, 2, 0, 255]).toString('base64'), encoding: 'base64' }] });
      await commit(t, p.id, { commit_message: 'empty', actions: [{ action: 'create', file_path: 'empty.txt', content: '' }] });
      await t.get(`${url(p.id)}?with_stats=true&per_page=1`); // the repository's readers start once, not per list
      const { spawned, result } = await spawnsDuring(() => t.get(`${url(p.id)}?with_stats=true&per_page=100`));
      assert.equal(result.status, 200);
      assert.deepEqual(spawned, []);
      const dir = repositoryDir(t.c, p.id);
      for (const c of result.body) {
        // what git itself counts for the commit against its first parent (the root: against nothing)
        const base = c.parent_ids[0] ?? '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
        let additions = 0;
        let deletions = 0;
        for (const line of (await gitText(['diff', '--numstat', '--no-renames', base, c.id], { gitDir: dir })).split('\n')) {
          const [a, d] = line.split('\t');
          if (/^\d+$/.test(a ?? '')) additions += Number(a);
          if (/^\d+$/.test(d ?? '')) deletions += Number(d);
        }
        assert.deepEqual(c.stats, { additions, deletions, total: additions + deletions }, c.title);
      }
      const byTitle = Object.fromEntries(result.body.map((c: any) => [c.title, c.stats]));
      assert.deepEqual(byTitle.edit, { additions: 2, deletions: 2, total: 4 });
      assert.deepEqual(byTitle.binary, { additions: 0, deletions: 0, total: 0 });
    });

    it('gets one commit by sha, short sha or branch; 404 Commit Not Found otherwise', async () => {
      const p = await makeRepoProject(t);
      const c = await commit(t, p.id, { branch: 'feat/a', start_branch: 'main', actions: [{ action: 'create', file_path: 'x', content: 'x\ny\n' }] });
      for (const ref of [c.id, c.short_id, 'feat%2Fa']) {
        const r = await t.get(`${url(p.id)}/${ref}`);
        assert.equal(r.status, 200, ref);
        assert.deepEqual(keysOf(r.body), DETAIL_KEYS);
        assert.equal(r.body.id, c.id);
        assert.deepEqual(r.body.stats, { additions: 2, deletions: 0, total: 2 });
      }
      assert.equal((await t.get(`${url(p.id)}/${c.id}?stats=false`)).body.stats, undefined);
      const miss = await t.get(`${url(p.id)}/${'0'.repeat(40)}`);
      assert.deepEqual([miss.status, miss.body], [404, { message: '404 Commit Not Found' }]);
      assert.equal((await t.get(`${url(p.id)}/--all`)).status, 404);
    });

    it('reading: public needs no token; private needs reporter (guest 403), anonymous 404', async () => {
      const pub = await makeRepoProject(t, { visibility: 'public' });
      assert.equal((await t.get(url(pub.id), null)).status, 200);
      const priv = await makeRepoProject(t);
      const anon = await t.get(url(priv.id), null);
      assert.deepEqual([anon.status, anon.body], [404, { message: '404 Project Not Found' }]);
      const guest = await memberWith(t, priv.id, 10);
      assert.equal((await t.get(url(priv.id), guest.token)).status, 403);
      const rep = await memberWith(t, priv.id, 20);
      assert.equal((await t.get(url(priv.id), rep.token)).status, 200);
      assert.equal((await t.get(`${url(priv.id)}/main`, rep.token)).status, 200);
    });
  });
}
