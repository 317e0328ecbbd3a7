// Generated bad input, bounded and seeded: every operation of /api/v4/openapi.json gets bad values
// for each of its parameters (one at a time, the others valid), as an admin and as a normal user.
// No answer may be a 5xx, and every error body is JSON in the reference's form
// ({"message": …} or {"error": …}).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';

const SEED = 20261125;

/** mulberry32: a small seeded generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// Raw (already URL-encoded) values for the path and the query string.
const BAD_RAW = [
  '99999999999999999999', '9223372036854775808', '2147483648', '-1', '0', '1.5', '1e400', 'abc', '%00', 'a%00b', 'main%00',
  'x'.repeat(4000), '..%2F..%2Fetc%2Fpasswd', '../', '%F0%9F%92%A9', '%C3%A9t%C3%A9', '%FF%FE', '-rf', '--upload-pack%3Dtouch', '%5B%5D', 'true', '%20',
];
// Values for a JSON body.
const BAD_JSON: unknown[] = [
  1e20, 9223372036854775808, -1, 0, 1.5, 'a\u0000b', '\u0000', 'x'.repeat(4000), '../../etc/passwd', '\ud83d\udca9', '-rf', {}, [], [1, 'a'], true, null, '99999999999999999999',
];
const LIST_PARAMS = ['page', 'per_page'];
// Refs and paths reach git: each gets every value git would refuse or read as an option.
const GIT_PARAMS = ['ref', 'ref_name', 'sha', 'branch', 'file_path', 'path', 'from', 'to', 'tag_name'];
const GIT_BAD = ['main%00', '-rf', '--upload-pack%3Dtouch', '..%2F..%2Fetc', 'a..b', 'HEAD%40%7B0%7D', '%7Emain', 'a%20b', 'x'.repeat(4000)];

interface Op {
  method: string;
  path: string;
  params: { name: string; in: string }[];
  body: string[];
}

function operations(doc: any): Op[] {
  const ops: Op[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (p.endsWith('/openapi.json')) continue;
      const schema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({ method: method.toUpperCase(), path: p, params: op.parameters ?? [], body: Object.keys(schema?.properties ?? {}) });
    }
  }
  return ops;
}

function errorFormOk(status: number, headers: Record<string, unknown>, text: string): string | null {
  if (status < 400 || text === '') return null;
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) return `non-JSON error body: ${text.slice(0, 100)}`;
  const body = JSON.parse(text);
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('message' in body || 'error' in body)) return `error body not in the reference's form: ${text.slice(0, 200)}`;
  return null;
}

for (const dialect of DIALECTS) {
  describe(`generated bad input (${dialect})`, () => {
    let t: TestApp;
    let valid: Record<string, string>;
    let user: { id: number; username: string; token: string };
    before(async () => {
      t = await buildTestApp(dialect, {}, process.env.FUZZ_LOG ? { log: (await import('pino')).default({ level: 'error' }) } : {});
      user = await t.createUser();
      const p = await makeProject(t, user.token, { name: 'fuzz', initialize_with_readme: true, visibility: 'public' });
      const g = await t.request('POST', '/api/v4/groups', { token: t.rootToken, body: { name: 'fuzzgroup', path: 'fuzzgroup', visibility: 'public' } });
      assert.equal(g.status, 201, g.text);
      valid = { project: String(p.id), group: String(g.body.id), user: String(user.id) };
    });
    after(async () => t.close());

    /** A valid value for a path parameter, by where it sits. */
    const validPath = (path: string, name: string): string => {
      if (name === 'id') return path.startsWith('/api/v4/groups') ? valid.group : path.startsWith('/api/v4/users') ? valid.user : valid.project;
      if (name === 'user_id') return valid.user;
      if (['branch', 'ref', 'sha', 'name'].includes(name)) return 'main';
      if (name === 'file_path') return 'README.md';
      return '1';
    };

    it('no 5xx and every error body in the reference form, for every operation and parameter', async () => {
      const doc = (await t.get('/api/v4/openapi.json')).body;
      const random = rng(SEED);
      const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
      const failures: string[] = [];
      let sent = 0;
      const send = async (op: Op, who: string | null, pathValues: Record<string, string>, query: string, body: Record<string, unknown> | undefined) => {
        const url = op.path.replace(/\{([^}]+)\}/g, (_, n) => pathValues[n] ?? encodeURIComponent(validPath(op.path, n))) + (query ? `?${query}` : '');
        sent++;
        const r = await t.request(op.method, url, { token: who, ...(body ? { body } : {}) });
        const bad = r.status >= 500 ? `${r.status} ${r.text.slice(0, 200)}` : errorFormOk(r.status, r.headers, r.text);
        if (bad) failures.push(`${op.method} ${url.slice(0, 200)}${body ? ` ${JSON.stringify(body).slice(0, 120)}` : ''} → ${bad}`);
      };
      const ops = operations(doc);
      // Destructive operations on the shared fixtures last, so the others still find them.
      ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
      for (const op of ops) {
        for (const who of [t.rootToken, user.token]) {
          for (const param of op.params) {
            const values = LIST_PARAMS.includes(param.name)
              ? ['99999999999999999999', '-5', pick(BAD_RAW)]
              : GIT_PARAMS.includes(param.name)
                ? [...GIT_BAD, pick(BAD_RAW)]
                : [pick(BAD_RAW)];
            for (const v of values) {
              if (param.in === 'path') await send(op, who, { [param.name]: v }, '', undefined);
              else if (param.in === 'query') await send(op, who, {}, `${encodeURIComponent(param.name)}=${v}`, undefined);
            }
          }
          for (const prop of op.body) await send(op, who, {}, '', { [prop]: pick(BAD_JSON) });
        }
      }
      assert.ok(sent > 1000, `sent ${sent}`);
      assert.deepEqual(failures, []);
    });
  });
}
