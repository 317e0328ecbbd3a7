// GET /projects: orderings by statistics (admins), the [adv] checksum filters; the orderings
// GET /users/:id/projects refuses; the [adv] fields of the full form.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { makeRepoProject } from '../helpers/repository_content.js';
import { putFiles } from '../helpers/ci.js';

const ADV = {
  approvals_before_merge: 0,
  auto_devops_enabled: true,
  auto_devops_deploy_strategy: 'continuous',
  mirror: false,
  external_authorization_classification_label: null,
  packages_enabled: true,
  service_desk_enabled: false,
  service_desk_address: null,
};
const pick = (o: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

for (const dialect of DIALECTS) {
  describe(`project list filters and [adv] fields (${dialect})`, () => {
    let t: TestApp;
    /** Three projects whose repositories differ in size: small, large, medium. */
    let sized: any[];
    before(async () => {
      t = await buildTestApp(dialect);
      sized = [];
      for (const bytes of [10, 60_000, 20_000]) {
        const p = await makeRepoProject(t, { name: `sized-${bytes}` });
        // random bytes, so that compression does not even the sizes out
        await putFiles(t, p.id, { 'blob.txt': crypto.randomBytes(bytes).toString('base64') });
        const s = await t.get(`/api/v4/projects/${p.id}?statistics=true`);
        assert.equal(s.status, 200);
        sized.push({ ...p, size: s.body.statistics.repository_size });
      }
    });
    after(async () => t.close());

    const ids = (r: any) => r.body.map((p: any) => p.id);
    const sizedIds = (r: any) => ids(r).filter((id: number) => sized.some((s) => s.id === id));

    it('order_by=repository_size and storage_size sort administrators\' lists by the statistics, both ways', async () => {
      const bySize = [...sized].sort((a, b) => a.size - b.size).map((p) => p.id);
      assert.ok(sized[1].size > sized[2].size && sized[2].size > sized[0].size, JSON.stringify(sized.map((s) => s.size)));
      for (const order of ['repository_size', 'storage_size']) {
        const asc = await t.get(`/api/v4/projects?order_by=${order}&sort=asc&per_page=100`);
        assert.equal(asc.status, 200);
        assert.deepEqual(sizedIds(asc), bySize);
        const desc = await t.get(`/api/v4/projects?order_by=${order}&sort=desc&per_page=100`);
        assert.deepEqual(sizedIds(desc), [...bySize].reverse());
        const statistics = await t.get(`/api/v4/projects?order_by=${order}&sort=desc&statistics=true&per_page=1`);
        assert.equal(statistics.body[0].id, bySize.at(-1));
        assert.equal(statistics.body[0].statistics.repository_size, sized[1].size);
      }
    });

    it('packages_size and wiki_size (nothing has either) order by id; a non-admin gets created_at, in the order asked', async () => {
      for (const order of ['packages_size', 'wiki_size']) {
        const r = await t.get(`/api/v4/projects?order_by=${order}&sort=asc&per_page=100`);
        assert.deepEqual(sizedIds(r), sized.map((p) => p.id));
      }
      const u = await t.createUser();
      for (const v of ['public', 'public', 'public']) await makeProject(t, u.token, { name: `mine-${crypto.randomBytes(3).toString('hex')}`, visibility: v });
      const mine = (await t.get(`/api/v4/projects?owned=true&order_by=created_at&sort=asc`, u.token)).body.map((p: any) => p.id);
      const asUser = await t.get(`/api/v4/projects?owned=true&order_by=repository_size&sort=asc`, u.token);
      assert.equal(asUser.status, 200);
      assert.deepEqual(ids(asUser), mine);
      const bad = await t.get('/api/v4/projects?order_by=lfs_size');
      assert.deepEqual([bad.status, bad.body], [400, { error: 'order_by does not have a valid value' }]);
    });

    it('repository_checksum_failed / wiki_checksum_failed: no checksum fails here, so true lists nothing and false everything', async () => {
      const all = ids(await t.get('/api/v4/projects?per_page=100'));
      assert.ok(all.length >= 3);
      for (const name of ['repository_checksum_failed', 'wiki_checksum_failed']) {
        const failed = await t.get(`/api/v4/projects?${name}=true`);
        assert.equal(failed.status, 200);
        assert.deepEqual(failed.body, []);
        assert.equal(failed.headers['x-total'], '0');
        assert.deepEqual(ids(await t.get(`/api/v4/projects?${name}=false&per_page=100`)), all);
        const bad = await t.get(`/api/v4/projects?${name}=maybe`);
        assert.deepEqual([bad.status, bad.body], [400, { error: `${name} is invalid` }]);
      }
    });

    it('GET /users/:id/projects refuses order_by similarity and the sizes (400); the others are accepted', async () => {
      const u = await t.createUser();
      await makeProject(t, u.token, { name: 'listed', visibility: 'public' });
      for (const order of ['similarity', 'repository_size', 'storage_size', 'packages_size', 'wiki_size']) {
        const r = await t.get(`/api/v4/users/${u.id}/projects?order_by=${order}`);
        assert.deepEqual([r.status, r.body], [400, { error: 'order_by does not have a valid value' }], order);
      }
      for (const order of ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at']) {
        const r = await t.get(`/api/v4/users/${u.id}/projects?order_by=${order}`, u.token);
        assert.equal(r.status, 200, order);
        assert.deepEqual(r.body.map((p: any) => p.name), ['listed']);
      }
      assert.equal((await t.get(`/api/v4/projects?order_by=similarity&search=listed`)).status, 200);
    });

    it('with_programming_language lists the projects whose repository has that language (any case)', async () => {
      const ruby = await makeRepoProject(t, { name: 'lang-ruby' });
      await putFiles(t, ruby.id, { 'app.rb': 'puts 1\n'.repeat(50), 'tool.py': 'print(1)\n' });
      const python = await makeRepoProject(t, { name: 'lang-python' });
      await putFiles(t, python.id, { 'main.py': 'print(1)\n'.repeat(20) });
      for (const p of [ruby, python]) assert.equal((await t.get(`/api/v4/projects/${p.id}/languages`)).status, 200);
      assert.deepEqual(Object.keys((await t.get(`/api/v4/projects/${ruby.id}/languages`)).body), ['Ruby', 'Python']);
      const named = (lang: string) => t.get(`/api/v4/projects?with_programming_language=${encodeURIComponent(lang)}&order_by=id&sort=asc&per_page=100`);
      assert.deepEqual(ids(await named('Ruby')), [ruby.id]);
      assert.deepEqual(ids(await named('python')), [ruby.id, python.id]);
      assert.deepEqual(ids(await named('Rub')), []);
      assert.deepEqual(ids(await named('C%')), []);
      const u = await t.createUser();
      assert.deepEqual(ids(await t.get('/api/v4/projects?with_programming_language=Ruby', u.token)), [], 'private projects stay hidden');
    });

    it("the full form carries the [adv] fields with the reference's values; repository_storage for administrators only", async () => {
      const u = await t.createUser();
      const p = await makeProject(t, u.token, { name: 'plain' });
      assert.deepEqual(pick(p, Object.keys(ADV)), ADV);
      for (const k of ['mirror_user_id', 'mirror_trigger_builds', 'only_mirror_protected_branches', 'mirror_overwrites_diverged_branches', 'repository_storage']) {
        assert.equal(k in p, false, k);
      }
      const asAdmin = await t.get(`/api/v4/projects/${p.id}`);
      assert.deepEqual(pick(asAdmin.body, Object.keys(ADV)), ADV);
      assert.equal(asAdmin.body.repository_storage, 'default');
      const listed = (await t.get(`/api/v4/projects?owned=true`, u.token)).body;
      assert.deepEqual(pick(listed[0], Object.keys(ADV)), ADV);
      assert.equal('repository_storage' in listed[0], false);
      const simple = (await t.get(`/api/v4/projects/${p.id}`, null)).body;
      assert.equal(simple.message, '404 Project Not Found');
      // Auto DevOps follows the instance default, as it does for a project without its own setting.
      assert.equal((await t.request('PUT', '/api/v4/application/settings', { body: { auto_devops_enabled: false } })).status, 200);
      assert.equal((await t.get(`/api/v4/projects/${p.id}`, u.token)).body.auto_devops_enabled, false);
      await t.request('PUT', '/api/v4/application/settings', { body: { auto_devops_enabled: true } });
    });
  });
}
