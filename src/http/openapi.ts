// The OpenAPI 3.0 document at /api/v4/openapi.json, generated from the route registry: every route's
// TypeBox schemas are already JSON Schema, so this only rewrites what OpenAPI 3.0 spells differently
// (nullable, const, type lists) and drops TypeBox's symbol keys and our own private keywords.
import type { FastifyInstance } from 'fastify';
import type { TObject, TSchema } from '@sinclair/typebox';
import { REFERENCE_API_LEVEL, ANVIL_REVISION } from '../version.js';
import { PAGE_PARAMS } from './pagination.js';
import { routeUrl, sendJson, type ApiRoute } from './route.js';

export const OPENAPI_PATH = '/api/v4/openapi.json';

type Json = Record<string, any>;

// Keywords whose value is a map of name → schema, a list of schemas, or one schema.
const SCHEMA_MAPS = new Set(['properties']);
const SCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf']);
const SCHEMA_ONE = new Set(['items', 'not', 'additionalProperties']);
// Keywords OpenAPI 3.0's Schema Object knows and that need no rewriting.
const PLAIN = new Set([
  'title', 'multipleOf', 'maximum', 'minimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems',
  'uniqueItems', 'maxProperties', 'minProperties', 'required', 'enum', 'description', 'format', 'default',
  'readOnly', 'writeOnly', 'example', 'deprecated', 'nullable',
]);

const isNullSchema = (s: unknown): boolean => !!s && typeof s === 'object' && (s as Json).type === 'null';

/** A JSON Schema (TypeBox) → an OpenAPI 3.0 Schema Object. Symbol keys are dropped by Object.keys. */
export function toOpenApiSchema(schema: TSchema | Json): Json {
  const s = schema as Json;
  if (Array.isArray(s.anyOf)) return unionSchema(s.anyOf);
  const out: Json = {};
  for (const key of Object.keys(s)) {
    const v = s[key];
    if (key === 'type') {
      if (Array.isArray(v)) {
        const types = v.filter((t: string) => t !== 'null');
        if (types.length === 1) out.type = types[0];
        else out.anyOf = types.map((t: string) => ({ type: t }));
        if (types.length !== v.length) out.nullable = true;
      } else if (v === 'null') {
        out.nullable = true;
        out.enum = [null];
      } else out.type = v;
    } else if (SCHEMA_MAPS.has(key)) {
      out[key] = Object.fromEntries(Object.entries(v as Json).map(([k, sub]) => [k, toOpenApiSchema(sub)]));
    } else if (SCHEMA_LISTS.has(key)) {
      out[key] = (v as Json[]).map(toOpenApiSchema);
    } else if (SCHEMA_ONE.has(key)) {
      out[key] = typeof v === 'boolean' ? v : toOpenApiSchema(v);
    } else if (key === 'patternProperties') {
      // T.Record: OpenAPI 3.0 has no patternProperties; any key is the closest it can say.
      const first = Object.values(v as Json)[0];
      if (first) out.additionalProperties = toOpenApiSchema(first);
    } else if (key === 'const') {
      out.enum = [v];
    } else if (key === 'examples' && Array.isArray(v)) {
      if (v.length) out.example = v[0];
    } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof v === 'number') {
      out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = v;
      out[key] = true;
    } else if (PLAIN.has(key)) {
      out[key] = v;
    } else if (key === 'commaSeparated') {
      out['x-comma-separated'] = v; // arrays that also accept `a,b,c`
    } else if (key === 'allowBlank') {
      out['x-allow-blank'] = v; // Grape's allow_blank: false (empty or only spaces is refused)
    }
    // anything else ($id, $schema, TypeBox internals, unknown keywords) is not OpenAPI 3.0: dropped
  }
  if (out.type === undefined && typeof s.const !== 'undefined' && s.const !== null) out.type = typeof s.const;
  return out;
}

function unionSchema(variants: Json[]): Json {
  const nullable = variants.some(isNullSchema);
  const rest = variants.filter((v) => !isNullSchema(v)).map(toOpenApiSchema);
  let out: Json;
  const consts = rest.every((v) => Array.isArray(v.enum) && v.enum.length === 1 && v.type === rest[0].type);
  if (rest.length > 0 && consts) out = { type: rest[0].type, enum: rest.map((v) => v.enum[0]) };
  else if (rest.length === 1) out = { ...rest[0] };
  else out = { anyOf: rest };
  if (nullable) out.nullable = true;
  return out;
}

/** `/api/v4/users/:id/keys/:key_id` → path `/api/v4/users/{id}/keys/{key_id}` and its parameter names. */
export function openApiPath(url: string): { path: string; names: string[] } {
  const names: string[] = [];
  const escaped = url.replace(/::/g, '\u0000'); // find-my-way's literal colon
  const path = escaped
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) => {
      names.push(name);
      return `{${name}}`;
    })
    .replace(/\u0000/g, ':');
  return { path, names };
}

const PAGE_HEADERS: Json = {
  'x-page': { description: 'The current page', schema: { type: 'integer' } },
  'x-per-page': { description: 'Items per page', schema: { type: 'integer' } },
  'x-next-page': { description: 'The next page, empty on the last one', schema: { type: 'string' } },
  'x-prev-page': { description: 'The previous page, empty on the first one', schema: { type: 'string' } },
  'x-total': { description: 'Total items; absent above 10,000', schema: { type: 'integer' } },
  'x-total-pages': { description: 'Total pages; absent above 10,000 items', schema: { type: 'integer' } },
  link: { description: 'RFC 8288 links: prev, next, first, last', schema: { type: 'string' } },
};

const ERROR_BODY: Json = {
  type: 'object',
  properties: { message: {}, error: { type: 'string' } },
  description: 'The reference forge puts the reason in `message` (string or field → messages) or in `error`.',
};

const errorResponse = (description: string): Json => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

const SECURITY = [{ private_token_header: [] }, { bearer: [] }, { private_token_query: [] }];

function operation(r: ApiRoute<any>, names: string[]): Json {
  const own = (r.params as TObject | undefined)?.properties ?? {};
  const props: Record<string, TSchema> = r.paginated ? { ...PAGE_PARAMS, ...own } : { ...own };
  const required = new Set<string>([...((r.params as TObject | undefined)?.required ?? [])]);

  const parameters: Json[] = names.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: props[name] ? toOpenApiSchema(props[name]) : { type: 'string' },
  }));
  const rest = Object.entries(props).filter(([k]) => !names.includes(k));
  const op: Json = {
    // A trailing wildcard is a word of its own, so `/latest` and `/latest/*` get different ids.
    operationId: `${r.method.toLowerCase()}${openApiPath(routeUrl(r)).path.replace(/\*/g, 'any').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: r.summary,
    tags: [r.tag],
  };

  if (r.method === 'GET' || r.method === 'DELETE') {
    for (const [name, s] of rest) parameters.push({ name, in: 'query', required: required.has(name), schema: toOpenApiSchema(s) });
  } else if (rest.length) {
    const body: Json = { type: 'object', properties: Object.fromEntries(rest.map(([k, s]) => [k, toOpenApiSchema(s)])) };
    const req = rest.map(([k]) => k).filter((k) => required.has(k));
    if (req.length) body.required = req;
    op.requestBody = {
      required: req.length > 0,
      content: { 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body }, 'multipart/form-data': { schema: body } },
    };
  }
  if (parameters.length) op.parameters = parameters;
  // Rules over several parameters (Grape's), which OpenAPI 3.0 cannot say in a schema.
  if (r.paramRules?.atLeastOneOf) op['x-at-least-one-of'] = r.paramRules.atLeastOneOf;
  if (r.paramRules?.mutuallyExclusive) op['x-mutually-exclusive'] = r.paramRules.mutuallyExclusive;

  const status = r.status ?? (r.method === 'POST' ? 201 : 200);
  const ok: Json = { description: status === 204 || !r.response ? 'Success, no body' : 'Success' };
  if (r.response && status !== 204) {
    const item = toOpenApiSchema(r.response);
    ok.content = { 'application/json': { schema: r.paginated ? { type: 'array', items: item } : item } };
  }
  if (r.paginated) ok.headers = PAGE_HEADERS;
  const responses: Json = { [String(status)]: ok };
  if (Object.keys(props).length) responses['400'] = errorResponse('Missing or invalid parameter');
  if (r.auth !== 'optional') responses['401'] = errorResponse('No valid token');
  responses['403'] = errorResponse('Not allowed, or the token lacks the scope');
  if (names.length) responses['404'] = errorResponse('Unknown, or not visible to the caller');
  op.responses = responses;
  op.security = r.auth === 'optional' ? [...SECURITY, {}] : SECURITY;
  return op;
}

export function openApiDocument(routes: ApiRoute<any>[], externalUrl: string): Json {
  const paths: Json = {};
  for (const r of routes) {
    const { path, names } = openApiPath(routeUrl(r));
    (paths[path] ??= {})[r.method.toLowerCase()] = operation(r, names);
  }
  const tags = [...new Set(routes.map((r) => r.tag))].sort().map((name) => ({ name }));
  return {
    openapi: '3.0.3',
    info: {
      title: 'Anvil REST API v4',
      version: REFERENCE_API_LEVEL,
      description: `The v4 REST API at reference level ${REFERENCE_API_LEVEL}, served by ${ANVIL_REVISION}.`,
    },
    servers: [{ url: externalUrl }],
    tags,
    paths,
    components: {
      schemas: { Error: ERROR_BODY },
      securitySchemes: {
        private_token_header: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN' },
        private_token_query: { type: 'apiKey', in: 'query', name: 'private_token' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}

/** Serves the document; built on first request (keeps start-up fast), then the same bytes every time. */
export function registerOpenApi(app: FastifyInstance, routes: ApiRoute<any>[], externalUrl: string): void {
  let json: string | null = null;
  app.get(OPENAPI_PATH, async (_req, reply) => sendJson(reply, 200, (json ??= JSON.stringify(openApiDocument(routes, externalUrl)))));
}
