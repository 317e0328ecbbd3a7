// Git over smart HTTP with the real git client against a listening Anvil: who may clone and push,
// with which credentials, what a refused push shows and leaves, streaming of large packs, and the
// push event a push records.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIALECTS } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { addMember, makeGroup } from '../helpers/groups.js';
import { PUSH_DATA_KEYS } from '../helpers/events.js';
import {
  buildGitTestApp,
  clone,
  cloneUrl,
  commitFiles,
  gitOk,
  initWorkTree,
  runGit,
  serverGit,
  type GitTestApp,
} from '../helpers/git.js';
import { rewriteGitUrl } from '../../src/http/git_http.js';

const REPORTER = 20;
const DEVELOPER = 30;

for (const dialect of DIALECTS) {
  describe(`git over HTTP (${dialect})`, () => {
    let t: GitTestApp;
    let owner: { id: number; username: string; token: string };
    let dev: { id: number; username: string; token: string };
    let reporter: { id: number; username: string; token: string };
    let stranger: { id: number; username: string; token: string };
    let external: { id: number; username: string; token: string };
    let group: { id: number; full_path: string };
    const projects: Record<'public' | 'internal' | 'private', any> = {} as any;

    before(async () => {
      t = await buildGitTestApp(dialect);
      owner = await t.createUser();
      dev = await t.createUser();
      reporter = await t.createUser();
      stranger = await t.createUser();
      external = await t.createUser({ external: true });
      group = await makeGroup(t, { token: t.rootToken, visibility: 'public' });
      const sub = await makeGroup(t, { token: t.rootToken, visibility: 'public', parent_id: group.id });
      await addMember(t, group.id, owner.id, 50);
      await addMember(t, group.id, dev.id, DEVELOPER);
      await addMember(t, group.id, reporter.id, REPORTER);
      for (const v of ['public', 'internal', 'private'] as const) {
        projects[v] = await makeProject(t, owner.token, { name: `repo-${v}`, namespace_id: sub.id, visibility: v, initialize_with_readme: true });
      }
    });
    after(async () => t.close());

    it('maps <namespace…>/<project>.git URLs onto the internal routes and leaves others alone', () => {
      assert.equal(rewriteGitUrl('/a/b/c.git/info/refs?service=git-upload-pack'), '/-/git-http/info/refs/a%2Fb%2Fc?service=git-upload-pack');
      assert.equal(rewriteGitUrl('/a/c.git/git-receive-pack'), '/-/git-http/git-receive-pack/a%2Fc');
      assert.equal(rewriteGitUrl('/api/v4/projects/x.git/info/refs'), '/api/v4/projects/x.git/info/refs');
      assert.equal(rewriteGitUrl('/api/v4/projects'), '/api/v4/projects');
    });

    it('clones a public project anonymously through a multi-level namespace, with its content', async () => {
      const p = projects.public;
      assert.match(p.http_url_to_repo, new RegExp(`^${t.url}/${group.full_path}/[^/]+/repo-public\\.git$`));
      const r = await clone(t, cloneUrl(p.http_url_to_repo, null));
      assert.equal(r.code, 0, r.stderr);
      assert.match(fs.readFileSync(path.join(r.dir, 'README.md'), 'utf8'), /^# repo-public/);
      assert.equal(await gitOk(t, ['rev-parse', 'HEAD'], { cwd: r.dir }), (await serverGit(t, p.id, ['rev-parse', 'main'])).stdout.trim());
    });

    it('internal: anonymous gets an authentication failure, a signed-in user clones, an external user gets 404', async () => {
      const p = projects.internal;
      const anon = await clone(t, cloneUrl(p.http_url_to_repo, null));
      assert.notEqual(anon.code, 0);
      assert.match(anon.stderr, /could not read Username|Authentication failed/);
      const signed = await clone(t, cloneUrl(p.http_url_to_repo, stranger.token));
      assert.equal(signed.code, 0, signed.stderr);
      assert.ok(fs.existsSync(path.join(signed.dir, 'README.md')));
      const ext = await clone(t, cloneUrl(p.http_url_to_repo, external.token));
      assert.notEqual(ext.code, 0);
      assert.match(ext.stderr, /remote: The project you were looking for could not be found or you don't have permission to view it\./);
      assert.match(ext.stderr, /not found|404/);
    });

    it('private: anonymous 401 (with a Basic challenge), non-member 404, member and external member clone', async () => {
      const p = projects.private;
      const anon = await clone(t, cloneUrl(p.http_url_to_repo, null));
      assert.notEqual(anon.code, 0);
      assert.match(anon.stderr, /could not read Username|Authentication failed/);
      const raw = await fetch(`${p.http_url_to_repo}/info/refs?service=git-upload-pack`);
      assert.equal(raw.status, 401);
      assert.match(raw.headers.get('www-authenticate') ?? '', /^Basic realm="/);
      assert.match(await raw.text(), /^HTTP Basic: Access denied/);
      const non = await clone(t, cloneUrl(p.http_url_to_repo, stranger.token));
      assert.notEqual(non.code, 0);
      assert.match(non.stderr, /remote: The project you were looking for could not be found/);
      const mem = await clone(t, cloneUrl(p.http_url_to_repo, reporter.token));
      assert.equal(mem.code, 0, mem.stderr);
      assert.ok(fs.existsSync(path.join(mem.dir, 'README.md')));
      const admin = await clone(t, cloneUrl(p.http_url_to_repo, t.rootToken, 'root'));
      assert.equal(admin.code, 0, admin.stderr);
    });

    it('download_code: a guest of a private project, and an external guest of an internal one, may not clone (403 with the reason)', async () => {
      const guest = await t.createUser();
      const extGuest = await t.createUser({ external: true });
      const member = async (projectId: number, userId: number) => {
        const r = await t.request('POST', `/api/v4/projects/${projectId}/members`, { token: owner.token, body: { user_id: userId, access_level: 10 } });
        assert.equal(r.status, 201, r.text);
      };
      await member(projects.private.id, guest.id);
      await member(projects.internal.id, extGuest.id);
      for (const [p, who] of [[projects.private, guest], [projects.internal, extGuest]] as const) {
        const r = await clone(t, cloneUrl(p.http_url_to_repo, who.token));
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /remote: You are not allowed to download code from this project\./);
      }
      // The same guests see the projects (read_project), and the non-external guest clones the internal one.
      assert.equal((await t.get(`/api/v4/projects/${projects.private.id}`, guest.token)).status, 200);
      assert.equal((await clone(t, cloneUrl(projects.internal.http_url_to_repo, guest.token))).code, 0);
    });

    it('the info/refs advertisement has the service header and content type; unknown paths are 401 anonymously, 404 signed in', async () => {
      const p = projects.public;
      const r = await fetch(`${p.http_url_to_repo}/info/refs?service=git-upload-pack`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
      const body = await r.text();
      assert.ok(body.startsWith('001e# service=git-upload-pack\n0000'), body.slice(0, 40));
      assert.match(body, /refs\/heads\/main/);
      assert.equal((await fetch(`${t.url}/${group.full_path}/nope.git/info/refs?service=git-upload-pack`)).status, 401);
      const auth = { authorization: `Basic ${Buffer.from(`x:${stranger.token}`).toString('base64')}` };
      const nf = await fetch(`${t.url}/${group.full_path}/nope.git/info/refs?service=git-upload-pack`, { headers: auth });
      assert.equal(nf.status, 404);
      assert.equal(nf.headers.get('content-type'), 'text/plain; charset=utf-8');
    });

    it('a gzipped upload-pack request is inflated', async () => {
      const p = projects.public;
      const sha = (await serverGit(t, p.id, ['rev-parse', 'main'])).stdout.trim();
      const pkt = (s: string) => (s.length + 4).toString(16).padStart(4, '0') + s;
      const request = `${pkt(`want ${sha} ofs-delta\n`)}0000${pkt('done\n')}`;
      const r = await fetch(`${p.http_url_to_repo}/git-upload-pack`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
        body: zlib.gzipSync(request),
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/x-git-upload-pack-result');
      const out = Buffer.from(await r.arrayBuffer());
      assert.ok(out.includes(Buffer.from('PACK')), out.subarray(0, 40).toString());
    });

    it('a developer pushes a new branch; the repository has it, and a push event with push_data is recorded', async () => {
      const p = projects.private;
      const c = await clone(t, cloneUrl(p.http_url_to_repo, dev.token));
      assert.equal(c.code, 0, c.stderr);
      await gitOk(t, ['checkout', '--quiet', '-b', 'feature/one'], { cwd: c.dir });
      await commitFiles(t, c.dir, { 'a.txt': 'one\n' }, 'First change');
      const tip = await commitFiles(t, c.dir, { 'b.txt': 'two\n' }, 'Second change');
      const push = await runGit(t, ['push', 'origin', 'feature/one'], { cwd: c.dir });
      assert.equal(push.code, 0, push.stderr);
      assert.match(push.stderr, /\* \[new branch\]\s+feature\/one -> feature\/one/);
      assert.equal((await serverGit(t, p.id, ['rev-parse', 'refs/heads/feature/one'])).stdout.trim(), tip);
      assert.equal((await serverGit(t, p.id, ['fsck', '--no-progress'])).code, 0);
      assert.equal((await serverGit(t, p.id, ['cat-file', '-p', `${tip}:b.txt`])).stdout, 'two\n');

      const ev = await t.get(`/api/v4/projects/${p.id}/events`, owner.token);
      assert.equal(ev.status, 200, ev.text);
      const pushed = ev.body.find((e: any) => e.push_data?.ref === 'feature/one');
      assert.ok(pushed, JSON.stringify(ev.body));
      assert.equal(pushed.action_name, 'pushed new');
      assert.equal(pushed.author_id, dev.id);
      assert.deepEqual(Object.keys(pushed.push_data).sort(), PUSH_DATA_KEYS);
      assert.deepEqual(
        { ...pushed.push_data },
        { commit_count: 2, action: 'created', ref_type: 'branch', commit_from: null, commit_to: tip, ref: 'feature/one', commit_title: 'Second change' },
      );

      // a fast-forward of the same branch: counted from the old tip
      const next = await commitFiles(t, c.dir, { 'c.txt': 'three\n' }, 'Third change');
      const again = await runGit(t, ['push', 'origin', 'feature/one'], { cwd: c.dir });
      assert.equal(again.code, 0, again.stderr);
      const ev2 = await t.get(`/api/v4/projects/${p.id}/events`, owner.token);
      const upd = ev2.body.find((e: any) => e.push_data?.commit_to === next);
      assert.equal(upd.action_name, 'pushed to');
      assert.equal(upd.push_data.commit_count, 1);
      assert.equal(upd.push_data.commit_from, tip);
      assert.equal(upd.push_data.action, 'pushed');
    });

    it('a reporter cannot push: a clear message, nothing changes', async () => {
      const p = projects.private;
      const before = (await serverGit(t, p.id, ['for-each-ref'])).stdout;
      const c = await clone(t, cloneUrl(p.http_url_to_repo, reporter.token));
      assert.equal(c.code, 0, c.stderr);
      await commitFiles(t, c.dir, { 'r.txt': 'no\n' }, 'Reporter change');
      await gitOk(t, ['branch', 'reporter-branch'], { cwd: c.dir });
      const push = await runGit(t, ['push', 'origin', 'main', 'reporter-branch'], { cwd: c.dir });
      assert.notEqual(push.code, 0);
      assert.match(push.stderr, /remote: You are not allowed to push code to this project\./);
      assert.equal((await serverGit(t, p.id, ['for-each-ref'])).stdout, before);
    });

    it('a refusal in the pre-receive check rejects the whole push and moves no ref', async () => {
      // The advertisement lets a developer in; the per-ref check (in the hook) refuses one of two refs.
      const p = await makeProject(t, owner.token, { name: 'hooked', namespace_id: group.id, visibility: 'private', initialize_with_readme: true });
      const c = await clone(t, cloneUrl(p.http_url_to_repo, dev.token));
      assert.equal(c.code, 0, c.stderr);
      await commitFiles(t, c.dir, { 'h.txt': 'x\n' }, 'Hooked');
      const hex = 'a'.repeat(40);
      await gitOk(t, ['branch', 'fine-branch'], { cwd: c.dir });
      await gitOk(t, ['branch', hex], { cwd: c.dir });
      const before = (await serverGit(t, p.id, ['for-each-ref'])).stdout;
      const push = await runGit(t, ['push', 'origin', 'fine-branch', hex], { cwd: c.dir });
      assert.notEqual(push.code, 0);
      assert.match(push.stderr, /remote: You cannot create a branch with a 40-character hexadecimal branch name\./);
      assert.match(push.stderr, /! \[remote rejected\]\s+fine-branch -> fine-branch \(pre-receive hook declined\)/);
      assert.equal((await serverGit(t, p.id, ['for-each-ref'])).stdout, before);
      // and no push event for a push that moved nothing
      const ev = await t.get(`/api/v4/projects/${p.id}/events`, owner.token);
      assert.equal(ev.body.filter((e: any) => e.action_name.startsWith('pushed')).length, 0);

      // deleting the default branch is refused the same way
      const del = await runGit(t, ['push', 'origin', ':main'], { cwd: c.dir });
      assert.notEqual(del.code, 0);
      assert.match(del.stderr, /remote: The default branch of a project cannot be deleted\./);
      assert.equal((await serverGit(t, p.id, ['for-each-ref'])).stdout, before);
    });

    it('an archived project refuses pushes but still clones', async () => {
      const p = await makeProject(t, owner.token, { name: 'archived', namespace_id: group.id, visibility: 'private', initialize_with_readme: true });
      assert.equal((await t.request('POST', `/api/v4/projects/${p.id}/archive`, { token: owner.token })).status, 201);
      const c = await clone(t, cloneUrl(p.http_url_to_repo, owner.token));
      assert.equal(c.code, 0, c.stderr);
      await commitFiles(t, c.dir, { 'z.txt': 'z\n' }, 'Archived change');
      const push = await runGit(t, ['push', 'origin', 'main'], { cwd: c.dir });
      assert.notEqual(push.code, 0);
      assert.match(push.stderr, /remote: You are not allowed to push code to an archived project\./);
      assert.equal((await serverGit(t, p.id, ['rev-list', '--count', 'main'])).stdout.trim(), '1');
    });

    it('bad, expired and revoked tokens fail authentication', async () => {
      // (git sends credentials only when challenged, so this needs a project anonymous callers cannot read)
      const bad = await clone(t, cloneUrl(projects.internal.http_url_to_repo, 'not-a-token'));
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /remote: HTTP Basic: Access denied/);
      assert.match(bad.stderr, /Authentication failed/);

      const u = await t.createUser();
      await t.c.db.updateTable('personal_access_tokens').set({ expires_at: '2000-01-01' }).where('user_id', '=', u.id).execute();
      const expired = await clone(t, cloneUrl(projects.internal.http_url_to_repo, u.token));
      assert.notEqual(expired.code, 0);
      assert.match(expired.stderr, /Authentication failed/);

      const v = await t.createUser();
      await t.c.db.updateTable('personal_access_tokens').set({ revoked: 1 }).where('user_id', '=', v.id).execute();
      const revoked = await clone(t, cloneUrl(projects.internal.http_url_to_repo, v.token));
      assert.notEqual(revoked.code, 0);
      assert.match(revoked.stderr, /Authentication failed/);
    });

    it('scopes: read_repository and read_api clone but cannot push, write_repository pushes, read_user does neither', async () => {
      const p = projects.private;
      const mk = async (scopes: string[]) => {
        const r = await t.request('POST', `/api/v4/users/${dev.id}/personal_access_tokens`, { body: { name: `s-${scopes[0]}`, scopes } });
        assert.equal(r.status, 201, r.text);
        return r.body.token as string;
      };
      const readTok = await mk(['read_repository']);
      const writeTok = await mk(['write_repository']);
      const apiRead = await mk(['read_api']);
      const userRead = await mk(['read_user']);

      const c = await clone(t, cloneUrl(p.http_url_to_repo, readTok));
      assert.equal(c.code, 0, c.stderr);
      await gitOk(t, ['checkout', '--quiet', '-b', 'scoped'], { cwd: c.dir });
      const tip = await commitFiles(t, c.dir, { 's.txt': 's\n' }, 'Scoped');
      const denied = await runGit(t, ['push', 'origin', 'scoped'], { cwd: c.dir });
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /remote: You are not allowed to upload code\./);
      assert.equal((await serverGit(t, p.id, ['rev-parse', '--verify', '--quiet', 'refs/heads/scoped'])).code, 1);

      const ok = await runGit(t, ['push', cloneUrl(p.http_url_to_repo, writeTok), 'scoped'], { cwd: c.dir });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal((await serverGit(t, p.id, ['rev-parse', 'refs/heads/scoped'])).stdout.trim(), tip);

      // read_api carries download_code (the reference's read-only abilities): it clones and fetches, never pushes
      const viaApi = await clone(t, cloneUrl(p.http_url_to_repo, apiRead));
      assert.equal(viaApi.code, 0, viaApi.stderr);
      assert.equal((await runGit(t, ['fetch', 'origin', 'scoped'], { cwd: viaApi.dir })).code, 0);
      await gitOk(t, ['checkout', '--quiet', '-b', 'from-read-api'], { cwd: viaApi.dir });
      await commitFiles(t, viaApi.dir, { 'r.txt': 'r\n' }, 'Read api');
      const apiPush = await runGit(t, ['push', 'origin', 'from-read-api'], { cwd: viaApi.dir });
      assert.notEqual(apiPush.code, 0);
      assert.match(apiPush.stderr, /remote: You are not allowed to upload code\./);
      assert.equal((await serverGit(t, p.id, ['rev-parse', '--verify', '--quiet', 'refs/heads/from-read-api'])).code, 1);

      const noRead = await clone(t, cloneUrl(p.http_url_to_repo, userRead));
      assert.notEqual(noRead.code, 0);
      assert.match(noRead.stderr, /remote: You are not allowed to download code\./);
    });

    it('password authentication follows password_authentication_enabled_for_git', async () => {
      const u = await t.createUser({ password: 'S3cret-pass-word' });
      await addMember(t, group.id, u.id, DEVELOPER);
      const url = cloneUrl(projects.private.http_url_to_repo, 'S3cret-pass-word', u.username);
      const on = await clone(t, url);
      assert.equal(on.code, 0, on.stderr);
      const wrong = await clone(t, cloneUrl(projects.private.http_url_to_repo, 'wrong-password', u.username));
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /Authentication failed/);

      const off = await t.request('PUT', '/api/v4/application/settings', { body: { password_authentication_enabled_for_git: false } });
      assert.equal(off.status, 200, off.text);
      try {
        const refused = await clone(t, url);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /remote: HTTP Basic: Access denied/);
        // tokens still work
        assert.equal((await clone(t, cloneUrl(projects.private.http_url_to_repo, u.token))).code, 0);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { password_authentication_enabled_for_git: true } });
      }
    });

    it('enabled_git_access_protocol=ssh refuses git over HTTP', async () => {
      const r = await t.request('PUT', '/api/v4/application/settings', { body: { enabled_git_access_protocol: 'ssh' } });
      assert.equal(r.status, 200, r.text);
      try {
        const c = await clone(t, cloneUrl(projects.public.http_url_to_repo, dev.token));
        assert.notEqual(c.code, 0);
        assert.match(c.stderr, /remote: Git access over HTTP is not allowed/);
        assert.match(c.stderr, /403/);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { enabled_git_access_protocol: 'nil' } });
      }
      assert.equal((await clone(t, cloneUrl(projects.public.http_url_to_repo, dev.token))).code, 0);
    });

    it('an old path (after a rename) still clones', async () => {
      const p = await makeProject(t, owner.token, { name: 'moving', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
      const r = await t.request('PUT', `/api/v4/projects/${p.id}`, { token: owner.token, body: { path: 'moved' } });
      assert.equal(r.status, 200, r.text);
      const c = await clone(t, p.http_url_to_repo);
      assert.equal(c.code, 0, c.stderr);
      assert.ok(fs.existsSync(path.join(c.dir, 'README.md')));
    });

    it('streams a push and a clone larger than the request body limit', async () => {
      // 12 MB of incompressible data: more than the 10 MB body limit, so a buffered body would be refused.
      const p = await makeProject(t, owner.token, { name: 'big', namespace_id: group.id, visibility: 'private' });
      const w = await initWorkTree(t, cloneUrl(p.http_url_to_repo, owner.token));
      const files: Record<string, Buffer> = {};
      for (let i = 0; i < 12; i++) files[`blob${i}.bin`] = crypto.randomBytes(1024 * 1024);
      const tip = await commitFiles(t, w, files, 'Big');
      const push = await runGit(t, ['push', 'origin', 'main'], { cwd: w });
      assert.equal(push.code, 0, push.stderr);
      assert.equal((await serverGit(t, p.id, ['rev-parse', 'main'])).stdout.trim(), tip);
      const c = await clone(t, cloneUrl(p.http_url_to_repo, owner.token));
      assert.equal(c.code, 0, c.stderr);
      for (const [name, content] of Object.entries(files)) assert.ok(fs.readFileSync(path.join(c.dir, name)).equals(content), name);
    });
  });
}
