// buildApp(container) → a Fastify instance with every route; it never listens (main.ts does).
import crypto from 'node:crypto';
import compress, { type FastifyCompressOptions } from '@fastify/compress';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Container } from './domain/context.js';
import { cleanupUploads, parseQuery, registerBodyParsers } from './http/content.js';
import { INTERNAL, toHttpError } from './http/errors.js';
import { mountRoutes, sendJson, type ApiRoute } from './http/route.js';
import { registerHealth } from './http/health.js';
import { registerMetrics } from './http/metrics.js';
import { OPENAPI_PATH, registerOpenApi } from './http/openapi.js';
import { allRoutes } from './api/index.js';
import { registerGitHttp, rewriteGitUrl } from './http/git_http.js';
import { registerRunnerTrace } from './api/runners/protocol.js';
import { rewriteProjectUrl } from './http/project_urls.js';
import { registerWeb } from './web/routes.js';
import { MAX_HEAD_BYTES, MAX_URL_LENGTH, URI_TOO_LONG_BODY, clientErrorHandler } from './http/client_error.js';
import { registerTestMode, testingRoutes } from './testing/routes.js';
import { redactUrl } from './http/redact.js';

/**
 * The logger Fastify gives each request: a pino child bound to the request id, made only when
 * something logs through it (an error). Making a child for every request cost about 2 % of a
 * cached GET; the one line most requests write comes from the root logger with the id (onResponse).
 */
class RequestLog {
  #child: FastifyBaseLogger | null = null;
  constructor(
    private readonly root: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
  ) {}
  private get log(): FastifyBaseLogger {
    return (this.#child ??= this.root.child(this.bindings));
  }
  get level() {
    return this.root.level;
  }
  fatal: LogFn = (...a) => this.log.fatal(...(a as [string]));
  error: LogFn = (...a) => this.log.error(...(a as [string]));
  warn: LogFn = (...a) => this.log.warn(...(a as [string]));
  info: LogFn = (...a) => this.log.info(...(a as [string]));
  debug: LogFn = (...a) => this.log.debug(...(a as [string]));
  trace: LogFn = (...a) => this.log.trace(...(a as [string]));
  silent: LogFn = () => {};
  child = (bindings: Record<string, unknown>, opts?: object) => this.log.child(bindings, opts);
}
type LogFn = (...args: unknown[]) => void;

/**
 * Answers compressed as the client asks (br, gzip): pages, JSON, text, scripts and styles of 1 KB
 * or more. Not git's smart HTTP, archives, artifacts or images (their own types, already packed or
 * not worth it), nor event streams. Request bodies are left as sent: git inflates its own.
 */
const COMPRESSION: FastifyCompressOptions = {
  encodings: ['br', 'gzip'],
  threshold: 1024,
  customTypes: /^(?:text\/(?!event-stream)|application\/(?:json|javascript|xml)|image\/svg\+xml)/,
  globalDecompression: false,
};

export async function buildApp(c: Container, opts: { routes?: ApiRoute<any>[] } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: c.log as FastifyBaseLogger,
    // one log line per request, written in onResponse below
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (root, bindings) => new RequestLog(root, bindings) as unknown as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,128}$/.test(given) ? given : crypto.randomUUID();
    },
    routerOptions: { querystringParser: parseQuery, ignoreTrailingSlash: true, maxParamLength: 2048 },
    bodyLimit: 10 * 1024 * 1024,
    return503OnClosing: false,
    http: { maxHeaderSize: MAX_HEAD_BYTES },
    clientErrorHandler,
    // git over HTTP, badge images, alert notifications: `/<namespace…>/<project>…` onto fixed
    // internal routes (src/http/git_http.ts, src/http/project_urls.ts)
    rewriteUrl: (req) => rewriteProjectUrl(rewriteGitUrl(req.url ?? '/')),
  });

  await registerBodyParsers(app, { bodyLimit: 10 * 1024 * 1024, fileSizeLimit: 1024 * 1024 * 1024 });
  // Test mode's gate, faults and journal (before compression: the journal keeps bodies as given).
  if (c.config.testMode) registerTestMode(app, c);
  await app.register(compress, COMPRESSION);

  // onRequest, onSend and onResponse run on every request: callback style, as an async hook costs promises per call.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    if (req.url.length > MAX_URL_LENGTH) {
      sendJson(reply, 414, URI_TOO_LONG_BODY);
      return;
    }
    done();
  });

  // Whatever produced the body, JSON goes out as exactly `application/json`. Callback style like
  // the others: the body is written as this returns, so a handler sets its headers before send().
  app.addHook('onSend', (_req, reply, payload, done) => {
    const ct = reply.getHeader('content-type');
    if (typeof ct === 'string' && ct.startsWith('application/json') && ct !== 'application/json') {
      reply.header('content-type', 'application/json');
    }
    done(null, payload);
  });

  app.addHook('onResponse', (req, reply, done) => {
    cleanupUploads(req);
    c.log.info(
      { reqId: req.id, method: req.method, url: redactUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request',
    );
    done();
  });

  app.setErrorHandler((err, req, reply) => {
    const mapped = toHttpError(err, String(req.headers['content-type'] ?? ''));
    if (!mapped) {
      req.log.error({ err }, 'unhandled error');
      return sendJson(reply, INTERNAL.status, JSON.stringify(INTERNAL.body));
    }
    if (mapped.headers) reply.headers(mapped.headers);
    if (typeof mapped.body === 'string') {
      return reply.code(mapped.status).header('content-type', 'text/plain').send(mapped.body);
    }
    return sendJson(reply, mapped.status, JSON.stringify(mapped.body));
  });

  registerMetrics(app);
  registerHealth(app, c);
  registerGitHttp(app, c);
  registerRunnerTrace(app, c);

  // Test mode's endpoints exist only in test mode.
  const routes = [...(opts.routes ?? allRoutes), ...(c.config.testMode ? testingRoutes : [])];
  registerOpenApi(app, routes, c.config.externalUrl);
  const unknownRoute = mountRoutes(app, c, routes, [OPENAPI_PATH]);
  // The web interface: pages at the URLs the API hands out (after the API, whose paths win).
  registerWeb(app, c);
  app.setNotFoundHandler(unknownRoute);

  return app;
}
