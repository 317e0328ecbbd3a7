// buildApp(container) → a Fastify instance with every route; it never listens (main.ts does).
import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Container } from './container.js';
import { cleanupUploads, parseQuery, registerBodyParsers } from './http/content.js';
import { INTERNAL, UNKNOWN_ROUTE, toHttpError } from './http/errors.js';
import { registerRoute, routeUrl, sendJson, type ApiRoute } from './http/route.js';
import { allRoutes } from './api/index.js';

const MAX_URL_LENGTH = 8192;
const SECRET_QUERY = /([?&](?:private_token|access_token|job_token)=)[^&]*/gi;

export const redactUrl = (url: string): string => url.replace(SECRET_QUERY, '$1[REDACTED]');

export async function buildApp(c: Container, opts: { routes?: ApiRoute<any>[] } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: c.log as FastifyBaseLogger,
    // one log line per request, written in onResponse below
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,128}$/.test(given) ? given : crypto.randomUUID();
    },
    routerOptions: { querystringParser: parseQuery, ignoreTrailingSlash: true, maxParamLength: 2048 },
    bodyLimit: 10 * 1024 * 1024,
    return503OnClosing: false,
  });

  await registerBodyParsers(app, { bodyLimit: 10 * 1024 * 1024, fileSizeLimit: 1024 * 1024 * 1024 });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (req.url.length > MAX_URL_LENGTH) {
      return sendJson(reply, 414, JSON.stringify({ message: '414 Request-URI Too Large' }));
    }
  });

  // Whatever produced the body, JSON goes out as exactly `application/json`.
  app.addHook('onSend', async (_req, reply, payload) => {
    const ct = reply.getHeader('content-type');
    if (typeof ct === 'string' && ct.startsWith('application/json') && ct !== 'application/json') {
      reply.header('content-type', 'application/json');
    }
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    cleanupUploads(req);
    req.log.info(
      { reqId: req.id, method: req.method, url: redactUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request',
    );
  });

  app.setErrorHandler((err, req, reply) => {
    const mapped = toHttpError(err, String(req.headers['content-type'] ?? ''));
    if (!mapped) {
      req.log.error({ err, reqId: req.id }, 'unhandled error');
      return sendJson(reply, INTERNAL.status, JSON.stringify(INTERNAL.body));
    }
    if (typeof mapped.body === 'string') {
      return reply.code(mapped.status).header('content-type', 'text/plain').send(mapped.body);
    }
    return sendJson(reply, mapped.status, JSON.stringify(mapped.body));
  });

  const routes = opts.routes ?? allRoutes;
  // A second router that only answers "does this path exist for another method?" (405 vs 404).
  const known = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 2048 });
  for (const r of routes) {
    registerRoute(app, c, r);
    known.on(r.method, routeUrl(r), () => {});
  }

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const other = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).some((m) => m !== req.method && known.find(m, path));
    if (other) return sendJson(reply, 405, JSON.stringify({ error: '405 Not Allowed' }));
    return sendJson(reply, UNKNOWN_ROUTE.status, JSON.stringify(UNKNOWN_ROUTE.body));
  });

  return app;
}
