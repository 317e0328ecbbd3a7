// Probes for load balancers and orchestrators, in the reference's shapes; no authentication.
//   /-/health     200 plain text: the process answers HTTP (touches nothing else)
//   /-/liveness   200 {"status":"ok"}: the event loop is not stuck
//   /-/readiness  200 or 503 {"status":"ok"|"failed", "<name>_check":[{"status":…, "message"?}]}
import type { FastifyInstance } from 'fastify';
import type { Container } from '../domain/context.js';
import { readiness } from '../domain/health/service.js';
import { sendJson } from './route.js';

export const HEALTH_TEXT = 'Anvil OK';
const LIVENESS_BODY = JSON.stringify({ status: 'ok' });

export function registerHealth(app: FastifyInstance, c: Container): void {
  app.get('/-/health', async (_req, reply) => reply.code(200).header('content-type', 'text/plain').send(HEALTH_TEXT));

  app.get('/-/liveness', async (_req, reply) => sendJson(reply, 200, LIVENESS_BODY));

  // The reference checks its dependencies only with `?all=1`; Anvil's two checks are cheap, so always.
  app.get('/-/readiness', async (_req, reply) => {
    const r = await readiness(c);
    return sendJson(reply, r.ok ? 200 : 503, JSON.stringify({ status: r.ok ? 'ok' : 'failed', ...r.checks }));
  });
}
