// The test-mode endpoints (/-/test/…): mounted only in test mode, for administrators (root's
// token), listed in the OpenAPI document under their own tag.
import { Type as T } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { route, type ApiRoute } from '../http/route.js';
import type { Container } from '../domain/context.js';
import { badRequest, forbidden, notFound } from '../domain/errors.js';
import { durationSeconds } from '../shared/duration.js';
import { advanceClock, nowDate, setClock, testClockEnabled } from '../shared/clock.js';
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
const Clock = T.Object({ now: T.String(), movable: T.Boolean() });
const clockNow = () => ({ now: nowDate().toISOString(), movable: testClockEnabled() });

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
    summary: 'Advance the clock by a duration (`25h`) or set it to an instant (needs the test clock)',
    params: T.Object({ advance: T.Optional(T.String()), set: T.Optional(T.String()) }),
    paramRules: { atLeastOneOf: [['advance', 'set']], mutuallyExclusive: [['advance', 'set']] },
    response: Clock,
    handler: async ({ input }) => {
      if (!testClockEnabled()) throw forbidden('the clock moves only with the test clock (ANVIL_TEST_CLOCK=1 or --clock)');
      if (input.advance !== undefined) {
        const seconds = durationSeconds(input.advance);
        if (seconds === null) throw badRequest('advance is invalid');
        advanceClock(seconds * 1000);
      } else {
        const at = Date.parse(input.set!);
        if (!/^\d{4}-\d\d-\d\d/.test(input.set!) || Number.isNaN(at)) throw badRequest('set is invalid');
        setClock(at);
      }
      return clockNow();
    },
  }),
];

/** Test mode's part of the app: requests pass its gate, so a restore runs while none is in flight. */
export function registerTestMode(app: FastifyInstance, c: Container): void {
  const gate = testModeOf(c).gate;
  const left = new WeakSet<object>();
  const leave = (req: object) => {
    if (left.has(req)) return;
    left.add(req);
    gate.leave();
  };
  // The test endpoints themselves are outside it: a reset does not wait for itself.
  const gated = (url: string) => !url.startsWith('/-/test/');
  app.addHook('onRequest', (req, _reply, done) => {
    if (!gated(req.url)) return done();
    const wait = gate.enter();
    if (wait) wait.then(() => done(), done);
    else done();
  });
  app.addHook('onResponse', (req, _reply, done) => {
    if (gated(req.url)) leave(req);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    if (gated(req.url)) leave(req);
    done();
  });
}
