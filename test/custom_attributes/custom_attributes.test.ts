import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { makeGroup } from '../helpers/groups.js';
import { makeProject } from '../helpers/projects.js';

const enc = encodeURIComponent;

for (const dialect of DIALECTS) {
  describe(`custom attributes (${dialect})`, () => {
    let t: TestApp;
    let alice: { id: number; username: string; token: string };
    let readApiAdmin: { id: number; username: string; token: string };
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      t = await buildTestApp(dialect);
      alice = await t.createUser();
      readApiAdmin = await t.createUser({ admin: true, scopes: ['read_api'] });
      group = await makeGroup(t, { visibility: 'public' });
      project = await makeProject(t, alice.token, { name: 'attrs', visibility: 'public' });
    });
    after(async () => t.close());

    const subjects = () => [
      { kind: 'users', id: String(alice.id), missing: '999999', notFound: '404 User Not Found' },
      { kind: 'groups', id: enc(group.full_path), missing: '999999', notFound: '404 Group Not Found' },
      { kind: 'projects', id: enc(project.path_with_namespace), missing: '999999', notFound: '404 Project Not Found' },
    ];

    for (const kind of ['users', 'groups', 'projects'] as const) {
      describe(kind, () => {
        const s = () => subjects().find((x) => x.kind === kind)!;
        const base = () => `/api/v4/${kind}/${s().id}/custom_attributes`;

        it('PUT creates, PUT again updates, GET lists and reads one, DELETE removes (204)', async () => {
          let r = await t.request('PUT', `${base()}/colour`, { body: { value: 'red' } });
          assert.equal(r.status, 200, r.text);
          assert.equal(r.headers['content-type'], 'application/json');
          assert.deepEqual(r.body, { key: 'colour', value: 'red' });
          r = await t.request('PUT', `${base()}/size?value=big`);
          assert.equal(r.status, 200);
          assert.deepEqual(r.body, { key: 'size', value: 'big' });
          r = await t.request('PUT', `${base()}/colour`, { body: { value: 'blue' } });
          assert.deepEqual(r.body, { key: 'colour', value: 'blue' });

          r = await t.get(base());
          assert.equal(r.status, 200);
          assert.deepEqual(r.body, [{ key: 'colour', value: 'blue' }, { key: 'size', value: 'big' }]);
          assert.equal(r.headers['x-total'], undefined); // a plain array, not a page

          r = await t.get(`${base()}/size`);
          assert.equal(r.status, 200);
          assert.deepEqual(keysOf(r.body), ['key', 'value']);
          assert.deepEqual(r.body, { key: 'size', value: 'big' });

          r = await t.request('DELETE', `${base()}/size`);
          assert.equal(r.status, 204);
          assert.equal(r.text, '');
          r = await t.get(`${base()}/size`);
          assert.equal(r.status, 404);
          assert.deepEqual(r.body, { message: '404 Not found' });
          r = await t.request('DELETE', `${base()}/size`);
          assert.equal(r.status, 404);
          assert.deepEqual(r.body, { message: '404 Not found' });
          r = await t.get(base());
          assert.deepEqual(r.body, [{ key: 'colour', value: 'blue' }]);
          await t.request('DELETE', `${base()}/colour`);
        });

        it('is for administrators only: 401 without a token, 403 for others, insufficient_scope for read_api writes', async () => {
          for (const [method, path] of [['GET', base()], ['GET', `${base()}/k`], ['PUT', `${base()}/k?value=v`], ['DELETE', `${base()}/k`]] as const) {
            let r = await t.request(method, path, { token: null });
            assert.equal(r.status, 401, `${method} ${path}`);
            assert.deepEqual(r.body, { message: '401 Unauthorized' });
            r = await t.request(method, path, { token: alice.token });
            assert.equal(r.status, 403, `${method} ${path}`);
            assert.deepEqual(r.body, { message: '403 Forbidden' });
          }
          const r = await t.request('PUT', `${base()}/k?value=v`, { token: readApiAdmin.token });
          assert.equal(r.status, 403);
          assert.equal(r.body.error, 'insufficient_scope');
          assert.equal((await t.get(base(), readApiAdmin.token)).status, 200);
        });

        it('refuses a missing or blank value, and answers 404 for an unknown subject', async () => {
          let r = await t.request('PUT', `${base()}/k`, { body: {} });
          assert.equal(r.status, 400);
          assert.deepEqual(r.body, { message: '400 (Bad request) "value" not given' });
          r = await t.request('PUT', `${base()}/k`, { body: { value: '  ' } });
          assert.equal(r.status, 400);
          assert.deepEqual(r.body, { message: { value: ["can't be blank"] } });
          for (const [method, path] of [
            ['GET', `/api/v4/${kind}/${s().missing}/custom_attributes`],
            ['GET', `/api/v4/${kind}/${s().missing}/custom_attributes/k`],
            ['PUT', `/api/v4/${kind}/${s().missing}/custom_attributes/k?value=v`],
            ['DELETE', `/api/v4/${kind}/${s().missing}/custom_attributes/k`],
          ] as const) {
            r = await t.request(method, path);
            assert.equal(r.status, 404, `${method} ${path}`);
            assert.deepEqual(r.body, { message: s().notFound });
          }
        });
      });
    }

    it('finds users by numeric id only, and groups and projects by id too', async () => {
      let r = await t.get(`/api/v4/users/${alice.username}/custom_attributes`);
      assert.equal(r.status, 404);
      r = await t.request('PUT', `/api/v4/groups/${group.id}/custom_attributes/by-id?value=1`);
      assert.equal(r.status, 200);
      r = await t.get(`/api/v4/groups/${enc(group.full_path)}/custom_attributes/by-id`);
      assert.deepEqual(r.body, { key: 'by-id', value: '1' });
      r = await t.request('PUT', `/api/v4/projects/${project.id}/custom_attributes/by-id?value=2`);
      assert.deepEqual(r.body, { key: 'by-id', value: '2' });
      await t.request('DELETE', `/api/v4/groups/${group.id}/custom_attributes/by-id`);
      await t.request('DELETE', `/api/v4/projects/${project.id}/custom_attributes/by-id`);
    });

    describe('the list filter and with_custom_attributes', () => {
      let u1: { id: number; username: string; token: string };
      let u2: { id: number; username: string; token: string };
      let g1: { id: number }, g2: { id: number };
      let p1: { id: number }, p2: { id: number };

      before(async () => {
        u1 = await t.createUser();
        u2 = await t.createUser();
        g1 = await makeGroup(t, { visibility: 'public' });
        g2 = await makeGroup(t, { visibility: 'public' });
        p1 = await makeProject(t, u1.token, { name: 'filter-one', visibility: 'public' });
        p2 = await makeProject(t, u1.token, { name: 'filter-two', visibility: 'public' });
        const put = (kind: string, id: number, key: string, value: string) => t.request('PUT', `/api/v4/${kind}/${id}/custom_attributes/${key}?value=${value}`);
        for (const [kind, a, b] of [['users', u1.id, u2.id], ['groups', g1.id, g2.id], ['projects', p1.id, p2.id]] as const) {
          await put(kind, a, 'team', 'red');
          await put(kind, a, 'tier', 'gold');
          await put(kind, b, 'team', 'red');
          await put(kind, b, 'tier', 'silver');
        }
      });

      const ids = (body: Array<{ id: number }>) => body.map((x) => x.id).sort((a, b) => a - b);

      for (const kind of ['users', 'groups', 'projects'] as const) {
        const pick = () => (kind === 'users' ? [u1.id, u2.id] : kind === 'groups' ? [g1.id, g2.id] : [p1.id, p2.id]);
        const extra = kind === 'groups' ? '&all_available=true' : '';

        it(`${kind}: custom_attributes[key]=value keeps the items that have every pair (admins)`, async () => {
          const [a, b] = pick();
          let r = await t.get(`/api/v4/${kind}?custom_attributes[team]=red&per_page=100${extra}`);
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(ids(r.body), [a, b].sort((x, y) => x - y));
          assert.equal(r.headers['x-total'], '2');
          r = await t.get(`/api/v4/${kind}?custom_attributes[team]=red&custom_attributes[tier]=gold${extra}`);
          assert.deepEqual(ids(r.body), [a]);
          r = await t.get(`/api/v4/${kind}?${enc('custom_attributes[tier]')}=silver${extra}`);
          assert.deepEqual(ids(r.body), [b]);
          r = await t.get(`/api/v4/${kind}?custom_attributes[team]=blue${extra}`);
          assert.deepEqual(r.body, []);
          r = await t.get(`/api/v4/${kind}?custom_attributes=red${extra}`);
          assert.equal(r.status, 400);
          assert.deepEqual(r.body, { error: 'custom_attributes is invalid' });
        });

        it(`${kind}: others' filters are ignored and with_custom_attributes shows nothing to them`, async () => {
          const r = await t.get(`/api/v4/${kind}?custom_attributes[team]=blue&with_custom_attributes=true&per_page=100${extra}`, u1.token);
          assert.equal(r.status, 200, r.text);
          assert.ok(r.body.length >= 2);
          for (const item of r.body) assert.equal('custom_attributes' in item, false);
        });

        it(`${kind}: with_custom_attributes adds them to each item for admins, only when asked`, async () => {
          const [a, b] = pick();
          let r = await t.get(`/api/v4/${kind}?custom_attributes[team]=red&with_custom_attributes=true${extra}`);
          const byId = new Map(r.body.map((x: any) => [x.id, x.custom_attributes]));
          assert.deepEqual(byId.get(a), [{ key: 'team', value: 'red' }, { key: 'tier', value: 'gold' }]);
          assert.deepEqual(byId.get(b), [{ key: 'team', value: 'red' }, { key: 'tier', value: 'silver' }]);
          r = await t.get(`/api/v4/${kind}?per_page=100&with_custom_attributes=true${extra}`);
          for (const item of r.body) assert.ok(Array.isArray(item.custom_attributes), `${kind} ${item.id}`);
          r = await t.get(`/api/v4/${kind}?custom_attributes[team]=red${extra}`);
          for (const item of r.body) assert.equal('custom_attributes' in item, false);

          r = await t.get(`/api/v4/${kind}/${a}?with_custom_attributes=true`);
          assert.equal(r.status, 200);
          assert.deepEqual(r.body.custom_attributes, [{ key: 'team', value: 'red' }, { key: 'tier', value: 'gold' }]);
          r = await t.get(`/api/v4/${kind}/${a}`);
          assert.equal('custom_attributes' in r.body, false);
          r = await t.get(`/api/v4/${kind}/${a}?with_custom_attributes=true`, u1.token);
          assert.equal(r.status, 200);
          assert.equal('custom_attributes' in r.body, false);
        });
      }

      it('projects: the filter also narrows /users/:id/projects and simple=true carries the attributes', async () => {
        let r = await t.get(`/api/v4/users/${u1.id}/projects?custom_attributes[tier]=silver`);
        assert.deepEqual(ids(r.body), [p2.id]);
        r = await t.get(`/api/v4/projects?simple=true&custom_attributes[tier]=gold&with_custom_attributes=true`);
        assert.equal(r.body.length, 1);
        assert.deepEqual(r.body[0].custom_attributes, [{ key: 'team', value: 'red' }, { key: 'tier', value: 'gold' }]);
        assert.equal('visibility' in r.body[0], false);
      });
    });
  });
}
