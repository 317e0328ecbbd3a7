// The test-mode endpoints (/-/test/…): mounted only in test mode, for administrators (root's
// token), listed in the OpenAPI document under their own tag.
import { Type as T } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { credentialOf } from '../http/auth.js';
import { authenticate } from '../domain/auth/service.js';
import { redactUrl } from '../http/redact.js';
import { JOURNAL_KEEP, keptBody, maskHeaders } from './journal.js';
import { presentRule, type FaultRules } from './faults.js';
import { route, type ApiRoute } from '../http/route.js';
import type { Container } from '../domain/context.js';
import { badRequest, forbidden, notFound } from '../domain/errors.js';
import { durationSeconds } from '../shared/duration.js';
import { advanceClock, clockFrozen, freezeClock, nowDate, realTime, setClock, testClockEnabled, unfreezeClock } from '../shared/clock.js';
import { SEEDED, testModeOf } from './mode.js';
import { applySeed, checkSeed, SeedError } from './seed.js';

const TAG = 'testing';
const SNAPSHOT_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** A long poll waits at most this long. */
const MAX_WAIT_SECONDS = 60;

const Delivery = T.Object({
  id: T.Integer(),
  created_at: T.String(),
  method: T.String(),
  url: T.String(),
  headers: T.Record(T.String(), T.String()),
  body: T.Union([T.String(), T.Null()]),
  response: T.Union([T.Object({ status: T.Integer(), headers: T.Record(T.String(), T.String()), body: T.String() }), T.Null()]),
  error: T.Union([T.String(), T.Null()]),
  origin: T.Union([T.Record(T.String(), T.Unknown()), T.Null()]),
});
const Clock = T.Object({ now: T.String(), movable: T.Boolean(), frozen: T.Boolean() });
const clockNow = () => ({ now: nowDate().toISOString(), movable: testClockEnabled(), frozen: clockFrozen() });

/**
 * What POST /-/test/clock does with its body: every error is a 400 (or 403) with `message`, one
 * shape, so its parameters are checked here rather than by the route's parameter rules.
 */
function moveClock(body: Record<string, unknown>): void {
  const given = Object.keys(body).filter((k) => body[k] !== undefined);
  const moves = given.filter((k) => k !== 'freeze');
  if (!given.length) throw badRequest('one of advance, set, freeze, real is needed');
  if (moves.length > 1) throw badRequest(`${moves.join(', ')} are mutually exclusive`);
  if (body.real !== undefined && (body.real !== true || given.length > 1)) throw badRequest('real must be true, and alone');
  if (body.freeze !== undefined && typeof body.freeze !== 'boolean') throw badRequest('freeze must be true or false');
  if (!testClockEnabled()) throw forbidden('the clock moves only with the test clock (ANVIL_TEST_CLOCK=1 or --clock)');
  let to: (() => void) | null = null;
  if (body.advance !== undefined) {
    const seconds = typeof body.advance === 'string' ? durationSeconds(body.advance) : null;
    if (seconds === null) throw badRequest('advance is invalid (a duration such as 90s, 25h, 2d)');
    to = () => advanceClock(seconds * 1000);
  } else if (body.set !== undefined) {
    const at = typeof body.set === 'string' && /^\d{4}-\d\d-\d\d/.test(body.set) ? Date.parse(body.set) : NaN;
    if (Number.isNaN(at)) throw badRequest('set is invalid (an ISO 8601 time such as 2030-01-01T00:00:00Z)');
    to = () => setClock(at);
  }
  if (body.real) return realTime();
  // Frozen first, then moved: `{set, freeze: true}` stands exactly at `set`.
  if (body.freeze === true) freezeClock();
  to?.();
  if (body.freeze === false) unfreezeClock();
}

const Body = { body: T.Union([T.String(), T.Null()]), body_truncated: T.Boolean() };
const JournalEntry = T.Object({
  id: T.Integer(),
  created_at: T.String(),
  method: T.String(),
  url: T.String(),
  path: T.String(),
  status: T.Union([T.Integer(), T.Null()]),
  user: T.Union([T.String(), T.Null()]),
  duration_ms: T.Number(),
  fault_id: T.Union([T.Integer(), T.Null()]),
  request: T.Object({ headers: T.Record(T.String(), T.String()), ...Body }),
  response: T.Object({ headers: T.Record(T.String(), T.String()), ...Body }),
});
const JournalFilter = T.Object({
  method: T.Optional(T.String()),
  path: T.Optional(T.String()),
  user: T.Optional(T.String()),
  status: T.Optional(T.String({ pattern: '^([1-5][0-9][0-9]|[1-5]xx|none)$' })),
  since: T.Optional(T.Integer({ minimum: 0 })),
});
const Delay = T.Union([T.Integer(), T.Object({ min: T.Integer(), max: T.Integer() }), T.Null()]);
const ruleSchema = (where: 'path' | 'url') =>
  T.Object({
    id: T.Integer(),
    method: T.Union([T.String(), T.Null()]),
    [where]: T.Union([T.String(), T.Null()]),
    ...(where === 'path' ? { user: T.Union([T.String(), T.Null()]) } : {}),
    status: T.Union([T.Integer(), T.Null()]),
    headers: T.Record(T.String(), T.String()),
    body: T.Union([T.String(), T.Null()]),
    drop: T.Boolean(),
    reset: T.Boolean(),
    delay: Delay,
    times: T.Union([T.Integer(), T.Null()]),
    hits: T.Integer(),
  });
/** A rule's fields, each checked by FaultRules.add (one error shape: 400 with `message`). */
const ruleParams = (where: 'path' | 'url') =>
  T.Object(Object.fromEntries(['method', where, ...(where === 'path' ? ['user'] : []), 'status', 'headers', 'body', 'drop', 'reset', 'delay', 'times'].map((k) => [k, T.Optional(T.Unknown())])));

/** POST, GET, DELETE of one set of fault rules, and DELETE of one rule. */
function faultRoutes(base: string, where: 'path' | 'url', rulesOf: (c: Container) => FaultRules, what: string): ApiRoute<any>[] {
  const Rule = ruleSchema(where);
  return [
    route({
      method: 'POST', path: base, outsideApi: true, admin: true, tag: TAG,
      summary: `Add a fault or latency rule for ${what}`,
      params: ruleParams(where), response: Rule,
      handler: async ({ c, input }) => presentRule(rulesOf(c).add(input as Record<string, unknown>), where),
    }),
    route({
      method: 'GET', path: base, outsideApi: true, admin: true, tag: TAG,
      summary: `The fault and latency rules for ${what}, with how often each applied`,
      response: T.Array(Rule),
      handler: async ({ c }) => rulesOf(c).list().map((r) => presentRule(r, where)),
    }),
    route({
      method: 'DELETE', path: base, outsideApi: true, admin: true, tag: TAG,
      summary: `Remove every fault and latency rule for ${what}`, status: 204,
      handler: async ({ c }) => void rulesOf(c).clear(),
    }),
    route({
      method: 'DELETE', path: `${base}/:id`, outsideApi: true, admin: true, tag: TAG,
      summary: `Remove one fault or latency rule for ${what}`, status: 204,
      params: T.Object({ id: T.Integer() }),
      handler: async ({ c, input }) => {
        if (!rulesOf(c).remove(input.id)) throw notFound('Fault rule');
      },
    }),
  ];
}

export const testingRoutes: ApiRoute<any>[] = [
  route({
    method: 'POST',
    path: '/-/test/reset',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: 'Back to the state right after start-up and seeding (database, repositories, blobs, ids)',
    status: 204,
    handler: async ({ c }) => testModeOf(c).restore(SEEDED),
  }),
  route({
    method: 'POST',
    path: '/-/test/snapshots',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: 'Save the whole state under a name',
    params: T.Object({ name: T.String() }),
    response: T.Object({ name: T.String() }),
    handler: async ({ c, input }) => {
      if (!SNAPSHOT_NAME.test(input.name) || input.name === SEEDED) throw badRequest('name is invalid');
      await testModeOf(c).snapshot(input.name);
      return { name: input.name };
    },
  }),
  route({
    method: 'POST',
    path: '/-/test/snapshots/:name/restore',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: 'Put back the state saved under a name',
    params: T.Object({ name: T.String() }),
    status: 204,
    handler: async ({ c, input }) => {
      if (!testModeOf(c).has(input.name)) throw notFound('Snapshot');
      await testModeOf(c).restore(input.name);
    },
  }),
  route({
    method: 'POST',
    path: '/-/test/seed',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: 'Apply a seed document (what `anvil seed FILE` sends); a reset then comes back to its result',
    params: T.Object({ seed: T.Record(T.String(), T.Unknown()) }),
    status: 204,
    handler: async ({ c, input, request }) => {
      const auth: Record<string, string> = {};
      for (const h of ['private-token', 'authorization']) if (typeof request.headers[h] === 'string') auth[h] = request.headers[h] as string;
      try {
        const seed = checkSeed(input.seed);
        await testModeOf(c).seed(() => applySeed(request.server, c, auth, seed));
      } catch (err) {
        if (err instanceof SeedError) throw badRequest(err.message);
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    path: '/-/test/deliveries',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: 'What went out (hooks, export uploads, remote imports), after `since`; `wait` seconds for the next',
    params: T.Object({ since: T.Optional(T.Integer({ minimum: 0 })), wait: T.Optional(T.Number({ minimum: 0 })) }),
    response: T.Array(Delivery),
    handler: async ({ c, input }) =>
      testModeOf(c).deliveries.after(input.since ?? 0, Math.min(input.wait ?? 0, MAX_WAIT_SECONDS) * 1000),
  }),
  route({
    method: 'GET',
    path: '/-/test/clock',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: "Anvil's time",
    response: Clock,
    handler: async () => clockNow(),
  }),
  route({
    method: 'POST',
    path: '/-/test/clock',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary:
      'Move the clock (needs the test clock): `advance` by a duration (`25h`), `set` to an instant, `freeze: true|false` (with or without a move), or `real: true` (back to the system time, running)',
    params: T.Object({ advance: T.Optional(T.Unknown()), set: T.Optional(T.Unknown()), freeze: T.Optional(T.Unknown()), real: T.Optional(T.Unknown()) }),
    response: Clock,
    handler: async ({ input }) => {
      moveClock(input as Record<string, unknown>);
      return clockNow();
    },
  }),
  route({
    method: 'GET',
    path: '/-/test/requests',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: `The requests made to Anvil (the newest ${JOURNAL_KEEP}), oldest first: by method, path pattern, user, status (404, 4xx, none), after an id`,
    params: JournalFilter,
    response: T.Array(JournalEntry),
    handler: async ({ c, input }) => testModeOf(c).journal.find(input),
  }),
  route({
    method: 'GET',
    path: '/-/test/requests/count',
    outsideApi: true,
    admin: true,
    tag: TAG,
    summary: 'How many requests a filter of GET /-/test/requests selects',
    params: JournalFilter,
    response: T.Object({ count: T.Integer() }),
    handler: async ({ c, input }) => ({ count: testModeOf(c).journal.find(input).length }),
  }),
  ...faultRoutes('/-/test/faults', 'path', (c) => testModeOf(c).faults, 'requests to Anvil'),
  ...faultRoutes('/-/test/inbox/faults', 'url', (c) => testModeOf(c).deliveries.inboxFaults, "the delivery inbox's answers"),
];

/** The user a request's credential names (its headers and query; sudo aside), or null: for the journal and faults. */
async function userOf(c: Container, req: FastifyRequest): Promise<string | null> {
  const cred = credentialOf(req, (req.query ?? {}) as Record<string, unknown>);
  if (!cred) return null;
  try {
    return (await authenticate(c, cred))?.user.username ?? null;
  } catch {
    return null; // a credential that is not valid: anonymous, as far as the journal goes
  }
}

/**
 * Test mode's part of the app: each request passes the gate (a restore runs while none is in
 * flight), then the fault rules, and is written to the journal once answered. Registered before
 * compression: the journal keeps the body as the handler gave it.
 */
export function registerTestMode(app: FastifyInstance, c: Container): void {
  const mode = testModeOf(c);
  const entered = new WeakSet<object>();
  const users = new WeakMap<object, string | null>();
  const faulted = new WeakMap<object, number>();
  const leave = (req: object) => {
    if (!entered.has(req)) return;
    entered.delete(req);
    mode.gate.leave();
  };
  // The test endpoints themselves are outside it: a reset does not wait for itself, nor is it journaled.
  const gated = (req: FastifyRequest) => !req.originalUrl.startsWith('/-/test/');
  const pathOf = (req: FastifyRequest) => req.originalUrl.split('?')[0]!;
  const record = (req: FastifyRequest, status: number | null, elapsedMs: number, response: { headers: Record<string, unknown>; payload: unknown }) => {
    const path = pathOf(req);
    const contentType = (h: Record<string, unknown>) => String(h['content-type'] ?? '');
    mode.journal.record({
      method: req.method, url: redactUrl(req.originalUrl), path, status, user: users.get(req) ?? null,
      duration_ms: Math.round(elapsedMs * 100) / 100, fault_id: faulted.get(req) ?? null,
      request: { headers: maskHeaders(req.headers), ...keptBody(req.body, path, contentType(req.headers)) },
      response: { headers: maskHeaders(response.headers), ...keptBody(response.payload, path, contentType(response.headers)) },
    });
  };

  /** Whether the request goes on to its handler (a fault may have answered it, or cut it off). */
  const admit = async (req: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const wait = mode.gate.enter();
    entered.add(req);
    if (wait) await wait;
    users.set(req, await userOf(c, req));
    const fault = mode.faults.size ? mode.faults.take(req.method, pathOf(req), users.get(req)!) : null;
    if (!fault) return true;
    faulted.set(req, fault.rule.id);
    if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    const a = fault.action;
    if (a.kind === 'pass') return true;
    if (a.kind === 'answer') {
      reply.code(a.status).headers(a.headers);
      if (a.body && !reply.hasHeader('content-type')) reply.header('content-type', /^\s*[[{]/.test(a.body) ? 'application/json' : 'text/plain');
      reply.send(a.body);
      return false;
    }
    // No answer: the connection is closed (drop) or reset (a TCP RST), as a broken proxy would.
    record(req, null, reply.elapsedTime, { headers: {}, payload: null });
    leave(req);
    if (a.kind === 'reset') req.raw.socket.resetAndDestroy();
    else req.raw.socket.destroy();
    return false;
  };
  app.addHook('onRequest', (req, reply, done) => {
    if (!gated(req)) return done();
    admit(req, reply).then((go) => go && done(), done);
  });
  // Journaled as the answer goes out, not once it went: a client that reads the journal as soon as it has its answer finds it there.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (gated(req) && entered.has(req)) record(req, reply.statusCode, reply.elapsedTime, { headers: reply.getHeaders(), payload });
    done(null, payload);
  });
  app.addHook('onResponse', (req, _reply, done) => {
    if (gated(req)) leave(req);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    leave(req);
    done();
  });
}
