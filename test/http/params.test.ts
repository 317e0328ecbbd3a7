// Parameters arrive by query, JSON, form and multipart alike; these tests drive a test-only echo route.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type as T } from '@sinclair/typebox';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { route } from '../../src/http/route.js';
import { OneOf, CommaList, NotBlank } from '../../src/api/schemas.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { UploadedFile } from '../../src/http/content.js';
import fs from 'node:fs';

const echo = route({
  method: 'POST',
  path: '/test/echo/:id',
  tag: 'test',
  summary: 'echo',
  params: T.Object({
    id: T.Union([T.Integer(), T.String()]),
    name: T.String(),
    count: T.Optional(T.Integer()),
    flag: T.Optional(T.Boolean()),
    visibility: T.Optional(OneOf(['private', 'internal', 'public'])),
    tags: T.Optional(T.Array(T.String())),
    scopes: T.Optional(CommaList(T.String())),
    attrs: T.Optional(T.Record(T.String(), T.String())),
    variables: T.Optional(T.Array(T.Object({ key: T.String(), value: T.String() }))),
    file: T.Optional(T.Any()),
  }),
  response: T.Any(),
  status: 200,
  handler: async ({ input }) => {
    const out: Record<string, unknown> = { ...input };
    if (input.file instanceof UploadedFile) {
      out.file = { filename: input.file.filename, size: input.file.size, content: fs.readFileSync(input.file.path, 'utf8') };
    }
    return out;
  },
});

// The parameter rules declared on a route, checked in Grape's order.
const rules = route({
  method: 'POST',
  path: '/test/rules',
  tag: 'test',
  summary: 'parameter rules',
  params: T.Object({
    branch: NotBlank(T.String()),
    count: T.Optional(T.Integer()),
    name: T.Optional(T.String()),
    path: T.Optional(T.String()),
    start_branch: T.Optional(T.String()),
    start_sha: T.Optional(T.String()),
  }),
  paramRules: { atLeastOneOf: [['name', 'path']], mutuallyExclusive: [['start_branch', 'start_sha']] },
  response: T.Any(),
  status: 200,
  handler: async ({ input, actor }) => ({ ...input, user: actor.user.username }),
});

const boom = route({
  method: 'GET',
  path: '/test/boom',
  tag: 'test',
  summary: 'throws an unexpected error',
  handler: async () => {
    throw new Error('secret internals: /etc/passwd at line 42');
  },
});

function multipart(fields: [string, string][], files: { name: string; filename: string; content: string }[] = []) {
  const boundary = '----anvil-test-boundary';
  let body = '';
  for (const [k, v] of fields) body += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  for (const f of files) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${f.content}\r\n`;
  }
  body += `--${boundary}--\r\n`;
  return { payload: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

for (const dialect of DIALECTS) {
  describe(`parameters (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect, {}, { extraRoutes: [echo, boom, rules] });
    });
    after(async () => t.close());

    it('reads the query string, with name[]=v arrays, name[k]=v hashes and name[0][k]=v arrays of hashes', async () => {
      const r = await t.request(
        'POST',
        '/api/v4/test/echo/7?name=a&count=3&flag=true&tags[]=x&tags[]=y&attrs[color]=red&variables[0][key]=K&variables[0][value]=V&variables[1][key]=L&variables[1][value]=W',
      );
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        id: 7, name: 'a', count: 3, flag: true, tags: ['x', 'y'], attrs: { color: 'red' },
        variables: [{ key: 'K', value: 'V' }, { key: 'L', value: 'W' }],
      });
    });

    it('reads a JSON body and merges it with the query string', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/group%2Fproject?count=2', { body: { name: 'b', flag: false, tags: ['z'] } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { id: 'group/project', name: 'b', count: 2, flag: false, tags: ['z'] });
    });

    it('reads form-urlencoded bodies with brackets', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1', {
        payload: 'name=c&tags%5B%5D=p&tags%5B%5D=q&variables%5B0%5D%5Bkey%5D=A&variables%5B0%5D%5Bvalue%5D=B',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { id: 1, name: 'c', tags: ['p', 'q'], variables: [{ key: 'A', value: 'B' }] });
    });

    it('reads multipart fields and files; python-gitlab style True/False and empty file parts', async () => {
      const m = multipart([['name', 'd'], ['flag', 'True'], ['tags[]', 'one']], [{ name: 'file', filename: 'a.txt', content: 'hello' }]);
      const r = await t.request('POST', '/api/v4/test/echo/1', m);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { id: 1, name: 'd', flag: true, tags: ['one'], file: { filename: 'a.txt', size: 5, content: 'hello' } });
      const empty = multipart([['name', 'e'], ['flag', 'False']], [{ name: 'file', filename: '', content: '' }]);
      const r2 = await t.request('POST', '/api/v4/test/echo/1', empty);
      assert.deepEqual(r2.body, { id: 1, name: 'e', flag: false });
    });

    it('a DELETE-style empty JSON body `{}` and an empty JSON body are both fine', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1?name=x', { body: {} });
      assert.equal(r.status, 200);
      const r2 = await t.request('POST', '/api/v4/test/echo/1?name=x', { payload: '', headers: { 'content-type': 'application/json' } });
      assert.equal(r2.status, 200);
    });

    it('comma-separated lists split; a single value becomes a one-item array', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1?name=x&scopes=api,read_user&tags=solo');
      assert.deepEqual(r.body.scopes, ['api', 'read_user']);
      assert.deepEqual(r.body.tags, ['solo']);
    });

    it('missing attribute → 400 "x" not given', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { message: '400 (Bad request) "name" not given' });
    });

    it('wrong types → 400 "x is invalid"; a value outside the set → "does not have a valid value"', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1?name=x&count=abc&flag=maybe');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: 'count is invalid, flag is invalid' });
      const v = await t.request('POST', '/api/v4/test/echo/1?name=x&visibility=secret');
      assert.deepEqual(v.body, { error: 'visibility does not have a valid value' });
    });

    it('allow_blank, at_least_one_of and mutually_exclusive: in Grape\'s words and order, together', async () => {
      const ask = (body: object) => t.request('POST', '/api/v4/test/rules', { body });
      let r = await ask({ branch: 'b', name: 'n' });
      assert.deepEqual([r.status, r.body], [200, { branch: 'b', name: 'n', user: 'root' }]);
      r = await ask({ branch: '  ', path: 'p' });
      assert.deepEqual([r.status, r.body], [400, { error: 'branch is empty' }]);
      r = await ask({ branch: 'b' });
      assert.deepEqual([r.status, r.body], [400, { error: 'name, path are missing, at least one parameter must be provided' }]);
      r = await ask({ branch: 'b', name: 'n', start_branch: 'x', start_sha: 'y' });
      assert.deepEqual([r.status, r.body], [400, { error: 'start_branch, start_sha are mutually exclusive' }]);
      r = await ask({ branch: '', count: 'many', start_branch: 'x', start_sha: 'y' });
      assert.deepEqual(r.body, {
        error: 'branch is empty, count is invalid, name, path are missing, at least one parameter must be provided, start_branch, start_sha are mutually exclusive',
      });
      r = await ask({ name: 'n' });
      assert.deepEqual([r.status, r.body], [400, { message: '400 (Bad request) "branch" not given' }]);
    });

    it('the OpenAPI document shows the rules', () => {
      const op = openApiDocument([rules], 'http://x').paths['/api/v4/test/rules'].post;
      assert.equal(op.requestBody.content['application/json'].schema.properties.branch['x-allow-blank'], false);
      assert.deepEqual(op['x-at-least-one-of'], [['name', 'path']]);
      assert.deepEqual(op['x-mutually-exclusive'], [['start_branch', 'start_sha']]);
    });

    it('an integer beyond what a number holds exactly is invalid, not rounded', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1?name=x&count=99999999999999999999');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: 'count is invalid' });
    });

    it('page and per_page outside 32 bits → 400 "page is invalid" on every list; small and negative values are clamped', async () => {
      const u = await t.createUser();
      const p = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'pages' } });
      assert.equal(p.status, 201, p.text);
      const projects = await t.get('/api/v4/projects?page=99999999999999999999');
      assert.deepEqual([projects.status, projects.body], [400, { error: 'page is invalid' }]);
      for (const url of ['/api/v4/namespaces', `/api/v4/projects/${p.body.id}/members/all`, '/api/v4/users', '/api/v4/groups']) {
        const r = await t.get(`${url}?page=99999999999999999999`);
        assert.equal(r.status, 400, url);
        assert.deepEqual(r.body, { error: 'page is invalid' }, url);
        const q = await t.get(`${url}?page=2147483648&per_page=2147483648`);
        assert.deepEqual(q.body, { error: 'page is invalid, per_page is invalid' }, url);
        const last = await t.get(`${url}?page=2147483647&per_page=100`);
        assert.equal(last.status, 200, url);
        assert.deepEqual(last.body, [], url);
        const neg = await t.get(`${url}?page=-5&per_page=-5`);
        assert.equal(neg.status, 200, url);
        assert.equal(neg.headers['x-page'], '1', url);
      }
    });

    it('a NUL byte anywhere in the parameters → 400 before any handler, database or git call', async () => {
      const u = await t.createUser();
      const p = await t.request('POST', '/api/v4/projects', { token: u.token, body: { name: 'nul', initialize_with_readme: true } });
      assert.equal(p.status, 201, p.text);
      const id = p.body.id;
      const bad = { message: '400 Bad request' };
      for (const url of [
        `/api/v4/projects/${id}/repository/files/README.md?ref=%00`,
        `/api/v4/projects/${id}/repository/tree?ref=main%00`,
        `/api/v4/projects/${id}/repository/tree?path=%00`,
        `/api/v4/projects/${id}/repository/commits?ref_name=%00`,
        `/api/v4/projects/${id}/repository/commits/%00`,
        `/api/v4/projects/a%00b`,
        `/api/v4/users?username=a%00b`,
      ]) {
        const r = await t.get(url, u.token);
        assert.equal(r.status, 400, url);
        assert.deepEqual(r.body, bad, url);
      }
      const put = await t.request('PUT', `/api/v4/projects/${id}`, { token: u.token, body: { description: 'a\u0000b' } });
      assert.equal(put.status, 400);
      assert.deepEqual(put.body, bad);
    });

    it('an id beyond the database integer range is a 404 (no such record), not a 500', async () => {
      for (const url of ['/api/v4/projects/2147483648', '/api/v4/groups/9223372036854775808', '/api/v4/users/2147483648', '/api/v4/projects/1/jobs/2147483648']) {
        const r = await t.get(url);
        assert.equal(r.status, 404, url);
        assert.match(r.body.message, /^404 /, url);
      }
    });

    it('text/plain bodies are refused with 415', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1?name=x', { payload: 'hi', headers: { 'content-type': 'text/plain' } });
      assert.equal(r.status, 415);
      assert.deepEqual(r.body, { error: "The provided content-type 'text/plain' is not supported." });
    });

    it('malformed JSON is a 400, not a 500', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1?name=x', { payload: '{oops', headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 400);
    });

    it('an unexpected error is a bare 500 that shows no internals', async () => {
      const r = await t.get('/api/v4/test/boom');
      assert.equal(r.status, 500);
      assert.deepEqual(r.body, { message: '500 Internal Server Error' });
      assert.ok(!r.text.includes('secret internals'));
    });

    it('auth comes before parameter validation (401 for a bad request without a token)', async () => {
      const r = await t.request('POST', '/api/v4/test/echo/1', { token: null });
      assert.equal(r.status, 401);
    });
  });
}
