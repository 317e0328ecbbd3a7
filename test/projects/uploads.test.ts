import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { DIALECTS, EXTERNAL_URL, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember, makeProject } from '../helpers/projects.js';
import { PNG, multipart, type FilePart } from '../helpers/project_resources.js';

for (const dialect of DIALECTS) {
  describe(`project uploads and avatars (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    let stranger: { id: number; username: string; token: string };
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      stranger = await t.createUser();
    });
    after(async () => t.close());

    const upload = (projectId: number | string, token: string | null, files: FilePart[], fields: [string, string][] = []) => {
      const m = multipart(fields, files);
      return t.request('POST', `/api/v4/projects/${projectId}/uploads`, { token, payload: m.payload, headers: m.headers });
    };

    it('POST /projects/:id/uploads stores the file and the url serves the same bytes back', async () => {
      const p = await makeProject(t, owner.token, { name: 'up1', visibility: 'public' });
      const bytes = crypto.randomBytes(70_000);
      const r = await upload(p.id, owner.token, [{ name: 'file', filename: 'data file.bin', content: bytes }]);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(keysOf(r.body), ['alt', 'full_path', 'markdown', 'url']);
      assert.match(r.body.url, /^\/uploads\/[0-9a-f]{32}\/data_file\.bin$/);
      assert.equal(r.body.full_path, `/${p.path_with_namespace}${r.body.url}`);
      assert.equal(r.body.alt, 'data_file.bin');
      assert.equal(r.body.markdown, `[data_file.bin](${r.body.url})`);

      const got = await t.app.inject({ method: 'GET', url: r.body.full_path });
      assert.equal(got.statusCode, 200);
      assert.equal(got.headers['content-type'], 'application/octet-stream');
      assert.equal(got.headers['content-length'], String(bytes.length));
      assert.match(String(got.headers['content-disposition']), /^attachment; filename="data_file.bin"/);
      assert.ok(got.rawPayload.equals(bytes));
    });

    it('images get ! markdown, their base name as alt, and their image content type', async () => {
      const p = await makeProject(t, owner.token, { name: 'up2', visibility: 'public' });
      const r = await upload(p.id, owner.token, [{ name: 'file', filename: 'shot.png', content: PNG }]);
      assert.equal(r.status, 201);
      assert.equal(r.body.alt, 'shot');
      assert.equal(r.body.markdown, `![shot](${r.body.url})`);
      const got = await t.app.inject({ method: 'GET', url: r.body.full_path });
      assert.equal(got.headers['content-type'], 'image/png');
      assert.ok(got.rawPayload.equals(PNG));
      // a wrong secret or file name is not found
      const wrong = await t.app.inject({ method: 'GET', url: r.body.full_path.replace(/[0-9a-f]{32}/, '0'.repeat(32)) });
      assert.equal(wrong.statusCode, 404);
    });

    it('private project uploads are served to members only; others get 404', async () => {
      const p = await makeProject(t, owner.token, { name: 'up3', visibility: 'private' });
      const r = await upload(p.id, owner.token, [{ name: 'file', filename: 'secret.txt', content: 'top secret' }]);
      assert.equal(r.status, 201);
      const anon = await t.app.inject({ method: 'GET', url: r.body.full_path });
      assert.equal(anon.statusCode, 404);
      const other = await t.app.inject({ method: 'GET', url: r.body.full_path, headers: { 'private-token': stranger.token } });
      assert.equal(other.statusCode, 404);
      const mine = await t.app.inject({ method: 'GET', url: r.body.full_path, headers: { 'private-token': owner.token } });
      assert.equal(mine.statusCode, 200);
      assert.equal(mine.headers['content-type'], 'text/plain');
      assert.equal(mine.body, 'top secret');
      // nor may a stranger upload to it
      assert.equal((await upload(p.id, stranger.token, [{ name: 'file', filename: 'x.txt', content: 'x' }])).status, 404);
    });

    it('uploads into a project in a nested group are served at its full path', async () => {
      const g = await t.request('POST', '/api/v4/groups', { token: owner.token, body: { name: 'top', path: 'top-up', visibility: 'public' } });
      const sub = await t.request('POST', '/api/v4/groups', { token: owner.token, body: { name: 'sub', path: 'sub', parent_id: g.body.id, visibility: 'public' } });
      const p = await makeProject(t, owner.token, { name: 'deep', namespace_id: sub.body.id, visibility: 'public' });
      const r = await upload(p.id, owner.token, [{ name: 'file', filename: 'a.txt', content: 'deep' }]);
      assert.equal(r.body.full_path, `/top-up/sub/deep${r.body.url}`);
      const got = await t.app.inject({ method: 'GET', url: r.body.full_path });
      assert.equal(got.body, 'deep');
    });

    it('bad inputs: missing or empty file 400, a string file 400, no token 401, unknown project 404', async () => {
      const p = await makeProject(t, owner.token, { name: 'up4' });
      const none = await upload(p.id, owner.token, [], [['other', 'x']]);
      assert.equal(none.status, 400);
      assert.deepEqual(none.body, { message: '400 (Bad request) "file" not given' });
      const empty = await upload(p.id, owner.token, [{ name: 'file', filename: 'empty.txt', content: '' }]);
      assert.equal(empty.status, 400);
      const str = await t.request('POST', `/api/v4/projects/${p.id}/uploads`, { token: owner.token, body: { file: 'abc' } });
      assert.equal(str.status, 400);
      assert.deepEqual(str.body, { error: 'file is invalid' });
      assert.equal((await upload(p.id, null, [{ name: 'file', filename: 'a.txt', content: 'a' }])).status, 401);
      assert.equal((await upload(999999, owner.token, [{ name: 'file', filename: 'a.txt', content: 'a' }])).status, 404);
    });

    it('max_attachment_size caps uploads: over it answers 413', async () => {
      const p = await makeProject(t, owner.token, { name: 'up5' });
      const set = await t.request('PUT', '/api/v4/application/settings', { body: { max_attachment_size: 1 } });
      assert.equal(set.status, 200, set.text);
      try {
        const big = await upload(p.id, owner.token, [{ name: 'file', filename: 'big.bin', content: Buffer.alloc(1024 * 1024 + 1) }]);
        assert.equal(big.status, 413);
        assert.deepEqual(big.body, { message: '413 Request Entity Too Large' });
        const fits = await upload(p.id, owner.token, [{ name: 'file', filename: 'fits.bin', content: Buffer.alloc(1024 * 1024) }]);
        assert.equal(fits.status, 201);
      } finally {
        await t.request('PUT', '/api/v4/application/settings', { body: { max_attachment_size: 10 } });
      }
    });

    describe('avatar', () => {
      const putAvatar = (id: number, token: string, file: FilePart, fields: [string, string][] = []) => {
        const m = multipart(fields, [file]);
        return t.request('PUT', `/api/v4/projects/${id}`, { token, payload: m.payload, headers: m.headers });
      };

      it('PUT with an avatar answers with the whole project; avatar_url serves the image', async () => {
        const p = await makeProject(t, owner.token, { name: 'av1', visibility: 'public' });
        const r = await putAvatar(p.id, owner.token, { name: 'avatar', filename: 'logo.png', content: PNG, type: 'image/png' }, [['description', 'with logo']]);
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.id, p.id);
        assert.equal(r.body.description, 'with logo');
        assert.ok('shared_with_groups' in r.body && 'permissions' in r.body, 'full form');
        assert.equal(r.body.avatar_url, `${EXTERNAL_URL}/uploads/-/system/project/avatar/${p.id}/logo.png`);
        const got = await t.app.inject({ method: 'GET', url: new URL(r.body.avatar_url).pathname });
        assert.equal(got.statusCode, 200);
        assert.equal(got.headers['content-type'], 'image/png');
        assert.equal(got.headers['content-length'], String(PNG.length));
        assert.ok(got.rawPayload.equals(PNG));
        assert.equal((await t.get(`/api/v4/projects/${p.id}`, null)).body.avatar_url, r.body.avatar_url);
        // a new avatar replaces the old one
        const again = await putAvatar(p.id, owner.token, { name: 'avatar', filename: 'new.png', content: PNG });
        assert.equal(again.body.avatar_url, `${EXTERNAL_URL}/uploads/-/system/project/avatar/${p.id}/new.png`);
        assert.equal((await t.app.inject({ method: 'GET', url: `/uploads/-/system/project/avatar/${p.id}/logo.png` })).statusCode, 404);
      });

      it('a private project avatar is for members only', async () => {
        const p = await makeProject(t, owner.token, { name: 'av2', visibility: 'private' });
        const r = await putAvatar(p.id, owner.token, { name: 'avatar', filename: 'a.png', content: PNG });
        const path = new URL(r.body.avatar_url).pathname;
        assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 404);
        assert.equal((await t.app.inject({ method: 'GET', url: path, headers: { 'private-token': owner.token } })).statusCode, 200);
      });

      it('refuses non-images and images over 200 KB with 400; developers get 403', async () => {
        const p = await makeProject(t, owner.token, { name: 'av3' });
        const txt = await putAvatar(p.id, owner.token, { name: 'avatar', filename: 'a.txt', content: 'hi' });
        assert.equal(txt.status, 400);
        assert.deepEqual(Object.keys(txt.body.message), ['avatar']);
        assert.match(txt.body.message.avatar[0], /^file format is not supported/);
        const big = await putAvatar(p.id, owner.token, { name: 'avatar', filename: 'big.png', content: Buffer.alloc(201 * 1024) });
        assert.equal(big.status, 400);
        assert.deepEqual(big.body.message.avatar, ['is too big (should be at most 200 KB)']);
        const dev = await t.createUser();
        await addMember(t, 'Project', p.id, dev.id, 30);
        assert.equal((await putAvatar(p.id, dev.token, { name: 'avatar', filename: 'a.png', content: PNG })).status, 403);
        assert.equal((await t.get(`/api/v4/projects/${p.id}`, owner.token)).body.avatar_url, null);
      });
    });
  });
}
