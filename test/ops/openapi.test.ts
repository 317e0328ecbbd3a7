import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { opsTestRoutes } from '../helpers/ops.js';
import { allRoutes } from '../../src/api/index.js';
import { openApiPath } from '../../src/http/openapi.js';
import { routeUrl } from '../../src/http/route.js';

/** Every schema-ish object in the document, to look for what OpenAPI 3.0 does not allow. */
function walk(v: unknown, visit: (o: Record<string, unknown>, path: string) => void, path = '$'): void {
  if (Array.isArray(v)) v.forEach((x, i) => walk(x, visit, `${path}[${i}]`));
  else if (v && typeof v === 'object') {
    visit(v as Record<string, unknown>, path);
    for (const [k, x] of Object.entries(v)) walk(x, visit, `${path}.${k}`);
  }
}

/** The OpenAPI schema says what the TypeBox schema says: same unions, fields, required lists, nullability. */
function sameShape(oas: any, ts: any, at: string): void {
  const isNull = (x: any) => x.type === 'null';
  const nullable = Array.isArray(ts.type) ? ts.type.includes('null') : (ts.anyOf ?? []).some(isNull);
  assert.equal(oas.nullable === true, nullable, `${at} nullable`);
  const variants = (ts.anyOf ?? []).filter((x: any) => !isNull(x));
  if (variants.length > 1 && !variants.every((v: any) => 'const' in v)) {
    assert.equal(oas.anyOf.length, variants.length, `${at} variants`);
    variants.forEach((v: any, i: number) => sameShape(oas.anyOf[i], v, `${at}|${i}`));
    return;
  }
  const one = variants.length === 1 ? variants[0] : ts;
  const type = Array.isArray(one.type) ? one.type.find((t: string) => t !== 'null') : one.type;
  assert.equal(oas.type, type, `${at} type`);
  if (type === 'object' && one.properties) {
    assert.deepEqual(Object.keys(oas.properties), Object.keys(one.properties), `${at} fields`);
    assert.deepEqual(oas.required, one.required, `${at} required`);
    for (const k of Object.keys(one.properties)) sameShape(oas.properties[k], one.properties[k], `${at}.${k}`);
  }
  if (type === 'array') sameShape(oas.items, one.items, `${at}[]`);
}

for (const dialect of DIALECTS) {
  describe(`OpenAPI document (${dialect})`, () => {
    let t: TestApp;
    let doc: any;
    before(async () => {
      t = await buildTestApp(dialect, {}, { extraRoutes: opsTestRoutes });
      const r = await t.get('/api/v4/openapi.json', null);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      doc = JSON.parse(r.text);
    });
    after(async () => t.close());

    it('is an OpenAPI 3.0 document served without a token', () => {
      assert.equal(doc.openapi, '3.0.3');
      assert.equal(doc.info.title, 'Anvil REST API v4');
      assert.equal(doc.info.version, '15.1.0');
      assert.deepEqual(doc.servers, [{ url: 'http://anvil.test' }]);
      assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['bearer', 'private_token_header', 'private_token_query']);
    });

    it('lists every route of the registry, so routes other areas add appear by themselves', () => {
      for (const r of [...allRoutes, ...opsTestRoutes]) {
        const p = openApiPath(routeUrl(r)).path;
        assert.ok(doc.paths[p]?.[r.method.toLowerCase()], `${r.method} ${p} missing`);
      }
      const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId));
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    });

    it('GET /user and GET /version carry their exact response schemas', () => {
      const user = doc.paths['/api/v4/user'].get;
      assert.equal(user.tags[0], 'users');
      assert.deepEqual(user.security, [{ private_token_header: [] }, { bearer: [] }, { private_token_query: [] }]);
      // The users area owns the exact fields; the document must carry the same ones, in OpenAPI 3.0 terms.
      const declared = allRoutes.find((r) => r.method === 'GET' && r.path === '/user')!.response;
      sameShape(user.responses['200'].content['application/json'].schema, declared, '/user');
      assert.match(JSON.stringify(user.responses['200']), /"avatar_url":\{"type":"string","nullable":true\}/);
      assert.ok(user.responses['401']);
      const version = doc.paths['/api/v4/version'].get;
      assert.equal(version.summary, 'API level and Anvil revision');
      assert.deepEqual(version.responses['200'].content['application/json'].schema, {
        type: 'object',
        properties: { version: { type: 'string' }, revision: { type: 'string' } },
        required: ['version', 'revision'],
      });
    });

    it('has no TypeBox leftovers: no symbols, no type lists, no const, no null types', () => {
      const text = JSON.stringify(doc);
      for (const bad of ['[Kind]', 'Symbol(', 'TypeBox', 'commaSeparated', '"$id"']) assert.ok(!text.includes(bad), bad);
      walk(doc, (o, path) => {
        if ('type' in o && typeof o.type !== 'object') {
          assert.notEqual(o.type, 'null', path);
        }
        if (path.endsWith('.schema') || path.includes('.properties.')) {
          assert.ok(!Array.isArray(o.type), `${path} has a type list`);
          assert.ok(!('const' in o), `${path} has const`);
        }
      });
    });

    it('converts path parameters and marks them required', () => {
      const one = doc.paths['/api/v4/ops-test/{id}/items/{item_id}'];
      assert.ok(one, 'path with {id} and {item_id}');
      assert.ok(!Object.keys(doc.paths).some((p) => p.includes(':')), 'no :param left');
      assert.deepEqual(one.get.parameters, [
        { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'item_id', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'with_note', in: 'query', required: false, schema: { type: 'boolean' } },
      ]);
      // a union of literals is an enum; Nullable is nullable
      const item = one.get.responses['200'].content['application/json'].schema;
      assert.deepEqual(item.properties.kind, { type: 'string', enum: ['a', 'b'] });
      assert.deepEqual(item.properties.note, { type: 'string', nullable: true });
      // DELETE with 204: no body
      assert.deepEqual(Object.keys(one.delete.responses).sort(), ['204', '400', '401', '403', '404']);
      assert.equal(one.delete.responses['204'].content, undefined);
    });

    it('a write takes its parameters as a request body, with the required ones listed', () => {
      const post = doc.paths['/api/v4/ops-test/{id}/items'].post;
      assert.deepEqual(post.parameters, [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }]);
      assert.equal(post.requestBody.required, true);
      const body = post.requestBody.content['application/json'].schema;
      assert.deepEqual(body, { type: 'object', properties: { name: { type: 'string' }, note: { type: 'string' } }, required: ['name'] });
      assert.deepEqual(Object.keys(post.requestBody.content).sort(), ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
      assert.ok(post.responses['201'].content['application/json'].schema.properties.id);
    });

    it('a paginated list is an array of the item schema, with the page parameters and headers', () => {
      const list = doc.paths['/api/v4/ops-test/{id}/items'].get;
      const schema = list.responses['200'].content['application/json'].schema;
      assert.equal(schema.type, 'array');
      assert.deepEqual(Object.keys(schema.items.properties).sort(), ['id', 'kind', 'name', 'note']);
      assert.deepEqual(Object.keys(list.responses['200'].headers).sort(), ['link', 'x-next-page', 'x-page', 'x-per-page', 'x-prev-page', 'x-total', 'x-total-pages']);
      const names = list.parameters.map((p: any) => `${p.in}:${p.name}`);
      for (const n of ['path:id', 'query:page', 'query:per_page', 'query:order_by', 'query:labels']) assert.ok(names.includes(n), n);
      const orderBy = list.parameters.find((p: any) => p.name === 'order_by');
      assert.deepEqual(orderBy.schema, { type: 'string', enum: ['id', 'name'] });
      const labels = list.parameters.find((p: any) => p.name === 'labels');
      assert.deepEqual(labels.schema, { type: 'array', items: { type: 'string' }, 'x-comma-separated': true });
      // optional auth: anonymous allowed
      assert.deepEqual(list.security.at(-1), {});
      assert.equal(list.responses['401'], undefined);
    });

    it('every path template parameter is declared once as a path parameter', () => {
      for (const [p, ops] of Object.entries<any>(doc.paths)) {
        const names = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        for (const op of Object.values<any>(ops)) {
          const declared = (op.parameters ?? []).filter((x: any) => x.in === 'path').map((x: any) => x.name);
          assert.deepEqual(declared, names, p);
        }
      }
    });

    it('is the same bytes on every request', async () => {
      const again = await t.get('/api/v4/openapi.json', null);
      assert.deepEqual(JSON.parse(again.text), doc);
    });
  });
}
