// Topics with ids: projects create them, anyone lists and reads them, administrators edit,
// merge and delete them; GET /projects?topic_id= filters by them; python-gitlab and go-gitlab read them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { PNG, multipart } from '../helpers/project_resources.js';

const TOPIC_KEYS = ['avatar_url', 'description', 'id', 'name', 'title', 'total_projects_count'];
const keysOf = (o: object) => Object.keys(o).sort();

for (const dialect of DIALECTS) {
  describe(`topics (${dialect})`, () => {
    let t: TestApp;
    let owner: { id: number; username: string; token: string };
    let user: { id: number; username: string; token: string };
    const pid: Record<string, number> = {};
    before(async () => {
      t = await buildTestApp(dialect);
      owner = await t.createUser();
      user = await t.createUser();
      pid.pub = (await makeProject(t, owner.token, { name: 'pub', visibility: 'public', topics: ['Ruby', 'web'] })).id;
      pid.pub2 = (await makeProject(t, owner.token, { name: 'pub2', visibility: 'public', topics: ['ruby'] })).id;
      pid.priv = (await makeProject(t, owner.token, { name: 'priv', visibility: 'private', topics: ['web', 'secret-stuff'] })).id;
    });
    after(async () => t.close());

    const topicNamed = async (name: string) => {
      const r = await t.get(`/api/v4/topics?search=${encodeURIComponent(name)}`, null);
      return r.body.find((x: any) => x.name.toLowerCase() === name.toLowerCase());
    };
    const projectIds = async (query: string, token: string | null) =>
      (await t.get(`/api/v4/projects${query}`, token)).body.map((p: any) => p.id).sort((a: number, b: number) => a - b);

    it('projects create their topics once, case-insensitively; anyone lists them, most used by non-private projects first', async () => {
      const r = await t.get('/api/v4/topics', null);
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-total'], '3');
      for (const x of r.body) assert.deepEqual(keysOf(x), TOPIC_KEYS);
      assert.deepEqual(r.body.map((x: any) => [x.name, x.title, x.description, x.total_projects_count, x.avatar_url]), [
        ['Ruby', 'Ruby', null, 2, null],
        ['web', 'web', null, 2, null],
        ['secret-stuff', 'secret-stuff', null, 1, null],
      ]);
      // the second project said `ruby` and got the existing topic's name, as the reference names it
      assert.deepEqual((await t.get(`/api/v4/projects/${pid.pub2}`, owner.token)).body.topics, ['Ruby']);
      const one = await t.get(`/api/v4/topics/${r.body[0].id}`, null);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, r.body[0]);
      assert.deepEqual((await t.get('/api/v4/topics?search=UB', null)).body.map((x: any) => x.name), ['Ruby']);
      assert.deepEqual((await t.get('/api/v4/topics?per_page=1&page=2', null)).body.map((x: any) => x.name), ['web']);
    });

    it('GET /projects?topic_id= lists the projects of that topic the caller may see', async () => {
      const web = await topicNamed('web');
      assert.deepEqual(await projectIds(`?topic_id=${web.id}`, owner.token), [pid.pub, pid.priv].sort((a, b) => a - b));
      assert.deepEqual(await projectIds(`?topic_id=${web.id}`, user.token), [pid.pub]);
      assert.deepEqual(await projectIds(`?topic_id=${web.id}`, null), [pid.pub]);
      assert.deepEqual(await projectIds('?topic_id=424242', owner.token), []);
      assert.equal((await t.get('/api/v4/projects?topic_id=abc', owner.token)).status, 400);
    });

    it('an administrator creates, edits (the name reaches the projects), merges and deletes topics', async () => {
      const created = await t.request('POST', '/api/v4/topics', { body: { name: 'devops', title: 'DevOps', description: 'Ship it' } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(keysOf(created.body), TOPIC_KEYS);
      assert.deepEqual([created.body.name, created.body.title, created.body.description, created.body.total_projects_count], ['devops', 'DevOps', 'Ship it', 0]);
      assert.deepEqual((await t.get('/api/v4/topics?without_projects=true', null)).body.map((x: any) => x.name), ['devops']);

      const ruby = await topicNamed('ruby');
      const renamed = await t.request('PUT', `/api/v4/topics/${ruby.id}`, { body: { name: 'ruby-lang', description: 'A language' } });
      assert.equal(renamed.status, 200, renamed.text);
      assert.deepEqual([renamed.body.name, renamed.body.title, renamed.body.description, renamed.body.total_projects_count], ['ruby-lang', 'Ruby', 'A language', 2]);
      assert.deepEqual((await t.get(`/api/v4/projects/${pid.pub}`, owner.token)).body.topics, ['ruby-lang', 'web']);
      assert.deepEqual(await projectIds('?topic=RUBY-LANG', owner.token), [pid.pub, pid.pub2].sort((a, b) => a - b));

      // merge `web` into `ruby-lang`: pub has both and keeps one; priv moves over
      const web = await topicNamed('web');
      const merged = await t.request('POST', '/api/v4/topics/merge', { body: { source_topic_id: web.id, target_topic_id: ruby.id } });
      assert.equal(merged.status, 201, merged.text);
      assert.deepEqual([merged.body.id, merged.body.name, merged.body.total_projects_count], [ruby.id, 'ruby-lang', 3]);
      assert.equal((await t.get(`/api/v4/topics/${web.id}`, null)).status, 404);
      assert.deepEqual((await t.get(`/api/v4/projects/${pid.pub}`, owner.token)).body.topics, ['ruby-lang']);
      assert.deepEqual((await t.get(`/api/v4/projects/${pid.priv}`, owner.token)).body.topics, ['ruby-lang', 'secret-stuff']);
      const same = await t.request('POST', '/api/v4/topics/merge', { body: { source_topic_id: ruby.id, target_topic_id: ruby.id } });
      assert.equal(same.status, 400);
      assert.deepEqual(same.body, { message: 'The source topic and the target topic are identical.' });

      const gone = await t.request('DELETE', `/api/v4/topics/${ruby.id}`, {});
      assert.equal(gone.status, 204);
      assert.deepEqual((await t.get(`/api/v4/projects/${pid.pub2}`, owner.token)).body.topics, []);
      assert.deepEqual((await t.get(`/api/v4/projects/${pid.priv}`, owner.token)).body.topics, ['secret-stuff']);
      // a project naming a deleted topic again creates it anew
      const again = await t.request('PUT', `/api/v4/projects/${pid.pub2}`, { token: owner.token, body: { topics: 'Ruby-Lang' } });
      assert.equal(again.status, 200, again.text);
      const fresh = await topicNamed('ruby-lang');
      assert.notEqual(fresh.id, ruby.id);
      assert.equal(fresh.name, 'Ruby-Lang');
    });

    it('an avatar is stored, served to anyone, and removed with a blank value', async () => {
      const x = (await t.request('POST', '/api/v4/topics', { body: { name: 'pictured', title: 'Pictured' } })).body;
      const m = multipart([], [{ name: 'avatar', filename: 'logo.png', content: PNG }]);
      const r = await t.request('PUT', `/api/v4/topics/${x.id}`, { payload: m.payload, headers: m.headers });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.avatar_url, `${t.c.config.externalUrl}/uploads/-/system/projects/topic/avatar/${x.id}/logo.png`);
      const img = await t.app.inject({ method: 'GET', url: new URL(r.body.avatar_url).pathname });
      assert.equal(img.statusCode, 200);
      assert.equal(img.headers['content-type'], 'image/png');
      assert.ok(img.rawPayload.equals(PNG));
      const bad = multipart([], [{ name: 'avatar', filename: 'logo.exe', content: PNG }]);
      const refused = await t.request('PUT', `/api/v4/topics/${x.id}`, { payload: bad.payload, headers: bad.headers });
      assert.equal(refused.status, 400);
      assert.match(JSON.stringify(refused.body.message.avatar), /file format is not supported/);
      const cleared = await t.request('PUT', `/api/v4/topics/${x.id}`, { body: { avatar: '' } });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.avatar_url, null);
      assert.equal((await t.app.inject({ method: 'GET', url: new URL(r.body.avatar_url).pathname })).statusCode, 404);
    });

    it('bad input, unknown ids, plain users and missing tokens', async () => {
      const x = (await t.request('POST', '/api/v4/topics', { body: { name: 'taken', title: 'Taken' } })).body;
      const cases: [string, string, unknown, string | null, number, unknown][] = [
        ['POST', '/api/v4/topics', { title: 'No name' }, t.rootToken, 400, { message: '400 (Bad request) "name" not given' }],
        ['POST', '/api/v4/topics', { name: 'no-title' }, t.rootToken, 400, { message: '400 (Bad request) "title" not given' }],
        ['POST', '/api/v4/topics', { name: 'TAKEN', title: 'x' }, t.rootToken, 400, { message: { name: ['has already been taken'] } }],
        ['POST', '/api/v4/topics', { name: ' ', title: ' ' }, t.rootToken, 400, { message: { name: ["can't be blank"], title: ["can't be blank"] } }],
        ['POST', '/api/v4/topics', { name: 'n'.repeat(256), title: 'x' }, t.rootToken, 400, { message: { name: ['is too long (maximum is 255 characters)'] } }],
        ['PUT', `/api/v4/topics/${x.id}`, { description: 'd'.repeat(1025) }, t.rootToken, 400, { message: { description: ['is too long (maximum is 1024 characters)'] } }],
        ['PUT', '/api/v4/topics/424242', { title: 'x' }, t.rootToken, 404, { message: '404 Not found' }],
        ['GET', '/api/v4/topics/424242', undefined, null, 404, { message: '404 Not found' }],
        ['GET', '/api/v4/topics/abc', undefined, null, 400, { error: 'id is invalid' }],
        ['DELETE', '/api/v4/topics/424242', undefined, t.rootToken, 404, { message: '404 Not found' }],
        ['POST', '/api/v4/topics/merge', { source_topic_id: x.id, target_topic_id: 424242 }, t.rootToken, 404, { message: '404 Not found' }],
        ['POST', '/api/v4/topics', { name: 'mine', title: 'Mine' }, user.token, 403, { message: '403 Forbidden' }],
        ['PUT', `/api/v4/topics/${x.id}`, { title: 'x' }, user.token, 403, { message: '403 Forbidden' }],
        ['DELETE', `/api/v4/topics/${x.id}`, undefined, user.token, 403, { message: '403 Forbidden' }],
        ['POST', '/api/v4/topics/merge', { source_topic_id: x.id, target_topic_id: x.id }, user.token, 403, { message: '403 Forbidden' }],
        ['POST', '/api/v4/topics', { name: 'anon', title: 'Anon' }, null, 401, { message: '401 Unauthorized' }],
        ['DELETE', `/api/v4/topics/${x.id}`, undefined, null, 401, { message: '401 Unauthorized' }],
      ];
      for (const [method, url, body, token, status, expected] of cases) {
        const r = await t.request(method as any, url, { token, body });
        assert.equal(r.status, status, `${method} ${url} ${JSON.stringify(body)?.slice(0, 80)}: ${r.text}`);
        assert.deepEqual(r.body, expected, `${method} ${url}`);
      }
      // nothing was written by the refused calls
      assert.equal((await t.get(`/api/v4/topics/${x.id}`, null)).body.title, 'Taken');
      assert.equal(await topicNamed('mine'), undefined);
      // a conditional delete of a topic changed since then is refused
      const stale = await t.request('DELETE', `/api/v4/topics/${x.id}`, { headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
      assert.equal(stale.status, 412);
      assert.equal((await t.get(`/api/v4/topics/${x.id}`, null)).status, 200);
    });
  });
}
