// git's smart HTTP protocol at `{external_url}/{full_path}.git/…` (clone, fetch, push). A project
// path has any number of namespace segments, so rewriteGitUrl maps those URLs onto three fixed
// internal routes before routing. Bodies stream both ways: the request (inflated when gzipped)
// into git's stdin, git's stdout into the reply; no pack is ever held in memory.
import zlib from 'node:zlib';
import { pipeline, type Readable, type Writable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { gitAccess, gitActor, type BasicCredentials } from '../domain/repository/git_access.js';
import {
  advertise,
  advertisementType,
  isGitService,
  receivePack,
  resultType,
  serviceHeader,
  speaksV2,
  uploadPack,
} from '../domain/repository/push.js';
import type { GitService } from '../git/smart_http.js';

const PREFIX = '/-/git-http';
const GIT_URL = /^\/(.+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/** `/<namespace…>/<project>.git/<what>?q` → `/-/git-http/<what>/<encoded path>?q`; other URLs unchanged. */
export function rewriteGitUrl(url: string): string {
  const q = url.indexOf('?');
  const pathPart = q < 0 ? url : url.slice(0, q);
  const m = GIT_URL.exec(pathPart);
  if (!m || pathPart.startsWith('/api/') || pathPart.startsWith(`${PREFIX}/`)) return url;
  let repo: string;
  try {
    repo = decodeURIComponent(m[1]);
  } catch {
    return url;
  }
  return `${PREFIX}/${m[2]}/${encodeURIComponent(repo)}${q < 0 ? '' : url.slice(q)}`;
}

const REALM = 'Basic realm="Anvil"';
const ACCESS_DENIED =
  "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped.\n";

function basicCredentials(req: FastifyRequest): BasicCredentials | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(String(req.headers.authorization ?? ''));
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Errors as git shows them: a text body (printed as `remote: …`), and for 401 a Basic challenge. */
function sendGitError(reply: FastifyReply, e: unknown): FastifyReply {
  if (!(e instanceof DomainError)) throw e;
  const d = e.detail;
  const text = (status: number, body: string) => reply.code(status).header('content-type', 'text/plain; charset=utf-8').send(body.endsWith('\n') ? body : `${body}\n`);
  switch (d.kind) {
    case 'unauthorized':
      reply.header('www-authenticate', REALM);
      return text(401, ACCESS_DENIED);
    case 'forbidden':
      return text(403, d.reason ?? 'Access denied');
    case 'push_refused':
      return text(403, d.message);
    case 'exact':
      return text(d.status, typeof d.body === 'string' ? d.body : String((d.body as { message?: unknown })?.message ?? ''));
    case 'not_found':
      return text(404, 'Not Found');
    default:
      throw e;
  }
}

/** The request body as git sent it, inflated when gzipped. */
function requestBody(req: FastifyRequest): Readable {
  const enc = String(req.headers['content-encoding'] ?? '').toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip') {
    const gunzip = zlib.createGunzip();
    pipeline(req.raw, gunzip, () => {});
    return gunzip;
  }
  return req.raw;
}

/** Request → git stdin; a failed or aborted request stops git. */
function feed(req: FastifyRequest, stdin: Writable, kill: () => void): void {
  pipeline(requestBody(req), stdin, (err) => {
    if (err) kill();
  });
  req.raw.on('close', () => {
    if (!req.raw.complete) kill();
  });
}

export function registerGitHttp(app: FastifyInstance, c: Container): void {
  void app.register(async (scope) => {
    // git's bodies are streams: no parser reads them; handlers pipe req.raw themselves.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));

    const target = async (req: FastifyRequest<{ Params: { repo: string } }>, service: GitService) =>
      gitAccess(c, await gitActor(c, basicCredentials(req)), req.params.repo, service);

    scope.get<{ Params: { repo: string }; Querystring: { service?: unknown } }>(`${PREFIX}/info/refs/:repo`, async (req, reply) => {
      const service = req.query.service;
      if (!isGitService(service)) {
        // dumb HTTP is not offered
        return reply.code(403).header('content-type', 'text/plain; charset=utf-8').send('Dumb HTTP is not supported; use a current git client.\n');
      }
      try {
        const t = await target(req, service);
        const protocol = header(req, 'git-protocol');
        const child = advertise(c, t, service, protocol);
        child.stdin.end();
        child.stderr.resume();
        reply.header('content-type', advertisementType(service)).header('cache-control', 'no-cache');
        if (speaksV2(service, protocol)) return reply.send(child.stdout);
        child.stdout.unshift(Buffer.from(serviceHeader(service)));
        return reply.send(child.stdout);
      } catch (e) {
        return sendGitError(reply, e);
      }
    });

    scope.post<{ Params: { repo: string } }>(`${PREFIX}/git-upload-pack/:repo`, async (req, reply) => {
      try {
        const t = await target(req, 'git-upload-pack');
        const child = uploadPack(t, header(req, 'git-protocol'));
        child.stderr.resume();
        feed(req, child.stdin, () => child.kill());
        return reply.header('content-type', resultType('git-upload-pack')).header('cache-control', 'no-cache').send(child.stdout);
      } catch (e) {
        return sendGitError(reply, e);
      }
    });

    scope.post<{ Params: { repo: string } }>(`${PREFIX}/git-receive-pack/:repo`, async (req, reply) => {
      try {
        const actor = await gitActor(c, basicCredentials(req));
        const t = await gitAccess(c, actor, req.params.repo, 'git-receive-pack');
        const run = await receivePack(c, actor!, t, header(req, 'git-protocol'));
        feed(req, run.stdin, run.kill);
        return reply.header('content-type', resultType('git-receive-pack')).header('cache-control', 'no-cache').send(run.stdout);
      } catch (e) {
        return sendGitError(reply, e);
      }
    });
  });
}
