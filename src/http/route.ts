// The one way an API route is declared and run. A route names its path, who may call it,
// its parameters and its response schema; this file does auth, sudo, scopes, parameter
// parsing, pagination and exact serialization the same way for every route.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type as T, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import FindMyWay from 'find-my-way';
import type { Container } from '../domain/context.js';
import { isAdmin, type Actor } from '../domain/auth/actor.js';
import { authenticate, requireScope, sudo } from '../domain/auth/service.js';
import { badRequest, forbidden, unauthorized } from '../domain/errors.js';
import { UNKNOWN_ROUTE } from './errors.js';
import type { PageRequest, PageResult } from '../shared/page.js';
import { credentialOf, sudoIdentifierOf } from './auth.js';
import { readMultipart } from './content.js';
import { PAGE_PARAMS, pageHeaders, pageRequest, type KeysetSupport, type PageInput } from './pagination.js';
import { parseParams, type ParamRules } from './params.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const API_PREFIX = '/api/v4';

/** Scopes that let a token read or write through the API by default. */
export const READ_SCOPES = ['api', 'read_api'] as const;
export const WRITE_SCOPES = ['api'] as const;

/** `required` (the default) lets only authenticated callers in; `optional` lets anonymous ones in too. */
export type RouteAuth = 'required' | 'optional';
/** The caller a handler sees: always present on a route that requires authentication. */
type ActorOf<A extends RouteAuth> = A extends 'optional' ? Actor | null : Actor;

export interface RouteContext<P, A extends Actor | null = Actor | null> {
  c: Container;
  input: P;
  actor: A;
  /** The page asked for; meaningful on paginated routes. */
  page: PageRequest;
  request: FastifyRequest;
  /** The `If-Unmodified-Since` header, when present and valid (conditional deletes). */
  ifUnmodifiedSince: Date | null;
  reply: { status(code: number): void; header(name: string, value: string): void };
}

export interface ApiRoute<P extends TObject = TObject, A extends RouteAuth = RouteAuth> {
  method: Method;
  /** Relative to /api/v4, Fastify style: `/users/:id`; absolute when `outsideApi` is set. */
  path: string;
  /** Mounts the route at `path` itself rather than under /api/v4 (e.g. `/oauth/token`). */
  outsideApi?: boolean;
  summary: string;
  tag: string;
  /** `optional` lets anonymous callers in (public data); default `required`. */
  auth?: A;
  /**
   * Administrators only: checked right after authentication and before parameters, as the
   * reference's `authenticated_as_admin!` before-filter does (403 comes before a 400).
   */
  admin?: boolean;
  /** The handler reads the credential itself (OAuth endpoints answer in Doorkeeper's words); implies no sudo. */
  ownCredentials?: boolean;
  /** Token scopes that satisfy this route; default READ_SCOPES for GET, WRITE_SCOPES otherwise. */
  scopes?: readonly string[];
  params?: P;
  /** Rules over several parameters (Grape's at_least_one_of, mutually_exclusive), checked after each parameter's own. */
  paramRules?: ParamRules;
  /** Schema of the success body; for a paginated route, of one item. Omit for an empty body. */
  response?: TSchema;
  /** Success status; default 200, 201 for POST. */
  status?: number;
  paginated?: boolean;
  /** Present when the list supports `pagination=keyset` for the given parameters. */
  keyset?: KeysetSupport;
  handler(ctx: RouteContext<Static<P>, ActorOf<A>>): Promise<unknown>;
}

/** A handler's answer that is a file, not JSON (uploads, avatars): streamed with its type and length. */
export class FileBody {
  constructor(
    readonly stream: Readable,
    readonly contentType: string,
    /** null: unknown in advance (a log still being written); sent chunked. */
    readonly size: number | null,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** Declares a route with its parameter types inferred from its schema and its caller's from `auth`. */
export const route = <P extends TObject, A extends RouteAuth = 'required'>(r: ApiRoute<P, A>): ApiRoute<P, A> => r;

const EMPTY = T.Object({});

export const routeUrl = (r: ApiRoute<any>): string => (r.outsideApi ? r.path : API_PREFIX + r.path);

function fullSchema(r: ApiRoute<any>): TObject {
  const own = r.params ?? EMPTY;
  return r.paginated ? T.Object({ ...PAGE_PARAMS, ...own.properties }) : own;
}

/** Sends a JSON string with exactly `Content-Type: application/json` (no charset: clients compare it literally). */
export function sendJson(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(json);
}

function httpDate(v: string | string[] | undefined): Date | null {
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** True when a string anywhere in the parameters holds a NUL byte (uploaded files are Buffers: exempt). */
function hasNulByte(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\0');
  if (Array.isArray(v)) return v.some(hasNulByte);
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) return Object.entries(v).some(([k, x]) => k.includes('\0') || hasNulByte(x));
  return false;
}

async function rawInput(req: FastifyRequest): Promise<Record<string, unknown>> {
  const body = req.isMultipart() ? await readMultipart(req) : (req.body as Record<string, unknown> | undefined);
  const raw = { ...(req.query as object), ...(body && typeof body === 'object' ? body : {}), ...(req.params as object) };
  // No valid request holds a NUL byte (the reference answers 400 before routing): refused here,
  // it never reaches the database or git.
  if (hasNulByte(raw)) throw badRequest();
  return raw;
}

/** Compiled on first use, not at start-up: most routes are never called by a given process. */
function lazily(compile: () => (body: unknown) => string): (body: unknown) => string {
  let compiled: ((body: unknown) => string) | null = null;
  return (body) => (compiled ??= compile())(body);
}

/**
 * The JSON writer of a response schema. For a union of objects (a user as an admin or as anyone
 * else sees it), fast-json-stringify would pick the branch by validating the whole body with ajv,
 * formats included, on every response; our presenters build exactly one branch's fields, so the
 * branch is the first whose required fields are all present (unions list the fullest form first).
 */
function serializerOf(schema: TSchema): (body: unknown) => string {
  const variants = (schema.anyOf as TSchema[] | undefined)?.filter((v) => v.type === 'object');
  if (!variants || variants.length !== schema.anyOf.length) return lazily(() => fastJson(schema as any));
  const branches = variants.map((v) => ({ required: (v.required ?? []) as string[], write: lazily(() => fastJson(v as any)) }));
  return (body) => {
    const fits = branches.find((b) => b.required.every((k) => (body as Record<string, unknown>)[k] !== undefined));
    if (!fits) throw new Error('response fits none of its schema\'s forms');
    return fits.write(body);
  };
}

/** The JSON writer of a whole response: one item, or a page of items. */
function responseSerializer(r: ApiRoute<any>): ((body: unknown) => string) | null {
  if (!r.response) return null;
  if (!r.paginated) return serializerOf(r.response);
  if (!r.response.anyOf) return lazily(() => fastJson(T.Array(r.response!) as any));
  const item = serializerOf(r.response);
  return (items) => `[${(items as unknown[]).map(item).join(',')}]`;
}

/** Runs one route: authentication, sudo, scopes, parameters, the handler, then the exact JSON. */
function routeHandler(c: Container, r: ApiRoute<any>): (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const schema = fullSchema(r);
  const status = r.status ?? (r.method === 'POST' ? 201 : 200);
  const serialize = responseSerializer(r);
  const scopes = r.scopes ?? (r.method === 'GET' ? READ_SCOPES : WRITE_SCOPES);

  return async (req, reply) => {
    const raw = await rawInput(req);

    const cred = r.ownCredentials ? null : credentialOf(req, raw);
    let actor = cred ? await authenticate(c, cred) : null;
    const sudoId = r.ownCredentials ? null : sudoIdentifierOf(req, raw);
    if (sudoId !== null) actor = await sudo(c, actor, sudoId);
    if (!actor && r.auth !== 'optional') throw unauthorized();
    if (actor) requireScope(actor, scopes);
    if (r.admin && !isAdmin(actor)) throw forbidden();

    const input = parseParams<Record<string, unknown>>(schema, raw, r.paramRules);
    const page = pageRequest(input as PageInput, r.paginated ? (r.keyset ?? null) : null);

    let code = status;
    const extraHeaders: Record<string, string> = {};
    const result = await r.handler({
      c,
      input,
      actor, // present unless the route is `auth: 'optional'` (checked above)
      page,
      request: req,
      ifUnmodifiedSince: httpDate(req.headers['if-unmodified-since']),
      reply: { status: (n) => (code = n), header: (k, v) => (extraHeaders[k] = v) },
    });
    reply.headers(extraHeaders);

    if (r.paginated) {
      const pageResult = result as PageResult<unknown>;
      const [pathOnly, query = ''] = req.url.split('?');
      reply.headers(pageHeaders(page, pageResult as PageResult<{ id?: unknown }>, c.config.externalUrl + pathOnly, new URLSearchParams(query)));
      return sendJson(reply, code, serialize!(pageResult.items));
    }
    if (result instanceof FileBody) {
      const length: Record<string, string> = result.size === null ? {} : { 'content-length': String(result.size) };
      return reply.code(code).headers({ ...result.headers, 'content-type': result.contentType, ...length }).send(result.stream);
    }
    if (code === 204 || !serialize || result === undefined) return reply.code(code).send();
    return sendJson(reply, code, serialize(result));
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The path template of the API route this request was dispatched to (`/api/v4/projects/:id`), else null. */
    apiRouteUrl: string | null;
  }
  interface FastifyContextConfig {
    /** The route dispatches to the API's own router (mountRoutes). */
    api?: boolean;
  }
}

/** The path template of the route that answered (`/api/v4/projects/:id`, `/-/health`); undefined when none did. */
export const routeTemplateOf = (req: FastifyRequest): string | undefined =>
  req.routeOptions.config?.api ? (req.apiRouteUrl ?? undefined) : req.routeOptions.url;

const API_METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** 405 when the path exists for another method, else 404: the reference's answers to an unknown route. */
export type UnknownRoute = (req: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * Mounts the API: one Fastify route for `/api/v4/*` (and one per path outside it), dispatched by
 * one router of ours. Registering each route with Fastify (its bookkeeping, a HEAD twin per GET)
 * was a third of start-up. The same router tells a 405 from a 404 (`unknownRoute`).
 */
export function mountRoutes(app: FastifyInstance, c: Container, routes: ApiRoute<any>[], extraGetPaths: string[] = []): UnknownRoute {
  type Found = { url: string; run: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> };
  const router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 2048 });
  for (const r of routes) router.on(r.method, routeUrl(r), () => {}, { url: routeUrl(r), run: routeHandler(c, r) } satisfies Found);
  // Paths Fastify answers itself (the OpenAPI document): another method there is a 405 too.
  for (const p of extraGetPaths) router.on('GET', p, () => {}, null);

  const unknownRoute: UnknownRoute = (req, reply) => {
    const path = req.url;
    const other = API_METHODS.some((m) => m !== req.method && router.find(m, path));
    if (other) return sendJson(reply, 405, JSON.stringify({ error: '405 Not Allowed' }));
    return sendJson(reply, UNKNOWN_ROUTE.status, JSON.stringify(UNKNOWN_ROUTE.body));
  };

  app.decorateRequest('apiRouteUrl', null);
  const dispatch = (req: FastifyRequest, reply: FastifyReply) => {
    const found = router.find(req.method === 'HEAD' ? 'GET' : (req.method as Method), req.url);
    const store = found?.store as Found | null | undefined;
    if (!store) return unknownRoute(req, reply);
    req.params = found!.params;
    req.apiRouteUrl = store.url;
    return store.run(req, reply);
  };
  // HEAD is exposed by Fastify for the GET. A route outside /api/v4 is mounted on its own method
  // only: another method there reaches the not-found handler, which answers `unknownRoute` too.
  app.route({ method: API_METHODS, url: `${API_PREFIX}/*`, handler: dispatch, config: { api: true } });
  for (const r of routes.filter((r) => r.outsideApi)) app.route({ method: r.method, url: r.path, handler: dispatch, config: { api: true } });
  return unknownRoute;
}
