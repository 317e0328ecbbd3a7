// CI/CD variables through the API: projects (maintainers), groups (owners), the instance
// (admins). Exact shapes, the reference's validation messages, environment scopes with
// filter[environment_scope], 401/403/404, and values encrypted at rest.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { addMember as addProjectMember, makeProject } from '../helpers/projects.js';
import { addMember, makeGroup } from '../helpers/groups.js';

type U = { id: number; username: string; token: string };

const KEYS = ['description', 'environment_scope', 'key', 'masked', 'protected', 'raw', 'value', 'variable_type'];
const INSTANCE_KEYS = KEYS.filter((k) => k !== 'environment_scope');

for (const dialect of DIALECTS) {
  describe(`CI/CD variables API (${dialect})`, () => {
    let t: TestApp;
    let owner: U;
    let maintainer: U;
    let dev: U;
    let stranger: U;
    let group: { id: number; full_path: string };
    let p: any;

    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      maintainer = await t.createUser();
      dev = await t.createUser();
      stranger = await t.createUser();
      group = await makeGroup(t, { token: owner.token });
      await addMember(t, group.id, maintainer.id, 40, owner.token);
      p = await makeProject(t, owner.token, { name: 'vars', namespace_id: group.id });
      await addProjectMember(t, 'Project', p.id, dev.id, 30);
    });
    after(async () => t.close());

    const base = () => `/api/v4/projects/${p.id}/variables`;

    it('creates, reads, lists, updates and deletes a project variable; the value is encrypted at rest', async () => {
      const created = await t.request('POST', base(), {
        token: maintainer.token,
        body: { key: 'DEPLOY_TOKEN', value: 'sEcReT-value-123', masked: true, protected: true, description: 'for deploys' },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers['content-type'], 'application/json');
      assert.deepEqual(created.body, {
        variable_type: 'env_var',
        key: 'DEPLOY_TOKEN',
        value: 'sEcReT-value-123',
        protected: true,
        masked: true,
        raw: false,
        environment_scope: '*',
        description: 'for deploys',
      });
      assert.deepEqual(Object.keys(created.body), ['variable_type', 'key', 'value', 'protected', 'masked', 'raw', 'environment_scope', 'description']);

      const row = await t.c.db.selectFrom('ci_variables').selectAll().where('key', '=', 'DEPLOY_TOKEN').executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes('sEcReT-value-123'), 'the value is not stored in clear');

      const got = await t.get(`${base()}/DEPLOY_TOKEN`, maintainer.token);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, created.body);

      const list = await t.get(base(), owner.token);
      assert.equal(list.status, 200);
      assert.equal(list.headers['x-total'], '1');
      assert.deepEqual(list.body, [created.body]);

      const upd = await t.request('PUT', `${base()}/DEPLOY_TOKEN`, { token: maintainer.token, body: { value: 'other-secret-456', variable_type: 'file', raw: true } });
      assert.equal(upd.status, 200, upd.text);
      assert.deepEqual(keysOf(upd.body), KEYS);
      assert.equal(upd.body.value, 'other-secret-456');
      assert.equal(upd.body.variable_type, 'file');
      assert.equal(upd.body.raw, true);
      assert.equal(upd.body.masked, true);
      assert.equal(upd.body.description, 'for deploys');

      const del = await t.request('DELETE', `${base()}/DEPLOY_TOKEN`, { token: maintainer.token });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      const gone = await t.get(`${base()}/DEPLOY_TOKEN`, maintainer.token);
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: '404 Variable Not Found' });
    });

    it('refuses what the reference refuses, in its words', async () => {
      const post = (body: unknown) => t.request('POST', base(), { token: maintainer.token, body });
      let r = await post({ value: 'x' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: '400 (Bad request) "key" not given' });
      r = await post({ key: 'A' });
      assert.deepEqual(r.body, { message: '400 (Bad request) "value" not given' });
      r = await post({ key: 'A', value: 'x', variable_type: 'secret' });
      assert.deepEqual(r.body, { error: 'variable_type does not have a valid value' });
      r = await post({ key: 'bad key!', value: 'x' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { key: ["can contain only letters, digits and '_'."] } });
      r = await post({ key: 'K'.repeat(256), value: 'x' });
      assert.deepEqual(r.body, { message: { key: ['is too long (maximum is 255 characters)'] } });
      // Masked: 8+ characters of the Base64 alphabet plus @ : . ~ (raw: anything but spaces).
      r = await post({ key: 'SHORT', value: 'abc', masked: true });
      assert.deepEqual(r.body, { message: { value: ['is invalid'] } });
      r = await post({ key: 'SPACED', value: 'has a space', masked: true });
      assert.deepEqual(r.body, { message: { value: ['is invalid'] } });
      r = await post({ key: 'DOLLAR', value: 'abc$defgh', masked: true });
      assert.deepEqual(r.body, { message: { value: ['is invalid'] } });
      r = await post({ key: 'DOLLAR', value: 'abc$defgh!', masked: true, raw: true });
      assert.equal(r.status, 201, r.text);
      r = await post({ key: 'SCOPED', value: 'x', environment_scope: 'prod#1' });
      assert.deepEqual(r.body, { message: { environment_scope: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] } });
      // The same key twice in one scope.
      r = await post({ key: 'DOLLAR', value: 'y' });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: { key: ['(DOLLAR) has already been taken'] } });
      // Masking an existing value that cannot be masked.
      await post({ key: 'PLAIN', value: 'two words' });
      r = await t.request('PUT', `${base()}/PLAIN`, { token: maintainer.token, body: { masked: true } });
      assert.deepEqual(r.body, { message: { value: ['is invalid'] } });
      r = await t.request('PUT', `${base()}/NOPE`, { token: maintainer.token, body: { value: 'x' } });
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { message: '404 Variable Not Found' });
    });

    it('one key in several environment scopes: 409 without filter[environment_scope]', async () => {
      for (const scope of ['*', 'production', 'review/*']) {
        const r = await t.request('POST', base(), { token: maintainer.token, body: { key: 'API_URL', value: `url-${scope}`, environment_scope: scope } });
        assert.equal(r.status, 201, r.text);
      }
      const many = await t.get(`${base()}/API_URL`, maintainer.token);
      assert.equal(many.status, 409);
      assert.deepEqual(many.body, { message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" });
      const one = await t.get(`${base()}/API_URL?filter[environment_scope]=production`, maintainer.token);
      assert.equal(one.status, 200);
      assert.equal(one.body.value, 'url-production');
      const upd = await t.request('PUT', `${base()}/API_URL?filter[environment_scope]=review/*`, { token: maintainer.token, body: { value: 'changed' } });
      assert.equal(upd.status, 200, upd.text);
      assert.equal(upd.body.environment_scope, 'review/*');
      assert.equal(upd.body.value, 'changed');
      // Moving a variable into a scope its key already has.
      const clash = await t.request('PUT', `${base()}/API_URL?filter[environment_scope]=review/*`, { token: maintainer.token, body: { environment_scope: 'production' } });
      assert.equal(clash.status, 400);
      assert.deepEqual(clash.body, { message: { key: ['(API_URL) has already been taken'] } });
      const del = await t.request('DELETE', `${base()}/API_URL?filter[environment_scope]=production`, { token: maintainer.token });
      assert.equal(del.status, 204);
      const left = await t.get(base(), maintainer.token);
      assert.deepEqual(left.body.filter((v: any) => v.key === 'API_URL').map((v: any) => v.environment_scope), ['*', 'review/*']);
    });

    it('401 without a token, 404 for who cannot see the project, 403 below maintainer', async () => {
      assert.equal((await t.get(base(), null)).status, 401);
      const hidden = await t.get(base(), stranger.token);
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
      const low = await t.get(base(), dev.token);
      assert.equal(low.status, 403);
      assert.deepEqual(low.body, { message: '403 Forbidden' });
      const lowPost = await t.request('POST', base(), { token: dev.token, body: { key: 'X', value: 'y' } });
      assert.equal(lowPost.status, 403);
    });

    it('group variables: owners manage them, maintainers get 403, others 404', async () => {
      const gbase = `/api/v4/groups/${group.id}/variables`;
      const created = await t.request('POST', gbase, { token: owner.token, body: { key: 'GROUP_VAR', value: 'g-value', environment_scope: 'staging' } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(keysOf(created.body), KEYS);
      assert.equal(created.body.environment_scope, 'staging');
      assert.equal((await t.get(gbase, maintainer.token)).status, 403);
      const hidden = await t.get(gbase, stranger.token);
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { message: '404 Group Not Found' });
      assert.equal((await t.get(gbase, null)).status, 401);
      const byPath = await t.get(`/api/v4/groups/${encodeURIComponent(group.full_path)}/variables/GROUP_VAR`, owner.token);
      assert.equal(byPath.status, 200);
      assert.deepEqual(byPath.body, created.body);
      const missing = await t.get(`${gbase}/NOPE`, owner.token);
      assert.deepEqual(missing.body, { message: '404 GroupVariable Not Found' });
      assert.equal((await t.request('DELETE', `${gbase}/GROUP_VAR`, { token: owner.token })).status, 204);
    });

    it('instance variables: admins only, no environment scope, a value of at most 10000 characters', async () => {
      const ibase = '/api/v4/admin/ci/variables';
      assert.equal((await t.get(ibase, owner.token)).status, 403);
      assert.equal((await t.get(ibase, null)).status, 401);
      const created = await t.request('POST', ibase, { body: { key: 'INSTANCE_VAR', value: 'i-value', protected: true } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(keysOf(created.body), INSTANCE_KEYS);
      assert.deepEqual(created.body, { variable_type: 'env_var', key: 'INSTANCE_VAR', value: 'i-value', protected: true, masked: false, raw: false, description: null });
      const big = await t.request('POST', ibase, { body: { key: 'BIG', value: 'x'.repeat(10_001) } });
      assert.equal(big.status, 400);
      assert.deepEqual(big.body, { message: { value: ['The value of the provided variable exceeds the 10000 character limit'] } });
      const dup = await t.request('POST', ibase, { body: { key: 'INSTANCE_VAR', value: 'again' } });
      assert.deepEqual(dup.body, { message: { key: ['(INSTANCE_VAR) has already been taken'] } });
      const upd = await t.request('PUT', `${ibase}/INSTANCE_VAR`, { body: { protected: false } });
      assert.equal(upd.status, 200);
      assert.equal(upd.body.protected, false);
      assert.deepEqual((await t.get(`${ibase}/NOPE`)).body, { message: '404 InstanceVariable Not Found' });
      assert.equal((await t.request('DELETE', `${ibase}/INSTANCE_VAR`)).status, 204);
      assert.deepEqual((await t.get(ibase)).body, []);
    });
  });
}
