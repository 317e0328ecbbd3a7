// Finds the credential a request carries, in the reference's order, and the sudo identifier.
import type { FastifyRequest } from 'fastify';
import type { Credential } from '../domain/auth/service.js';
import type { Container } from '../domain/context.js';

export const SESSION_COOKIE = '_service_session';

/** The Set-Cookie of a web session (sign-in, sign-up): HttpOnly, SameSite=Lax, Secure behind https. */
export function sessionCookie(c: Container, session: { value: string; expiresAt: string }): string {
  const secure = c.config.externalUrl.startsWith('https:') ? '; Secure' : '';
  const expires = new Date(session.expiresAt).toUTCString();
  return `${SESSION_COOKIE}=${encodeURIComponent(session.value)}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${secure}`;
}

/** Clears the session cookie (sign-out). */
export function clearedSessionCookie(c: Container): string {
  const secure = c.config.externalUrl.startsWith('https:') ? '; Secure' : '';
  return `${SESSION_COOKIE}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secure}`;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function cookie(req: FastifyRequest, name: string): string | undefined {
  const raw = header(req, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The endpoints that take a CI job token (the reference's `job_token_allowed` routes that Anvil
 * has). Anywhere else a job token is a wrong credential: 401.
 */
const JOB_TOKEN_ROUTES = new Set([
  '/api/v4/job',
  '/api/v4/job/allowed_agents',
  // Releases (release tools run in jobs).
  '/api/v4/projects/:id/releases',
  '/api/v4/projects/:id/releases/:tag_name',
  '/api/v4/projects/:id/releases/:tag_name/assets/links',
  '/api/v4/projects/:id/releases/:tag_name/assets/links/:link_id',
]);

const takesJobToken = (req: FastifyRequest): boolean => JOB_TOKEN_ROUTES.has(req.apiRouteUrl ?? '');

export function credentialOf(req: FastifyRequest, input: Record<string, unknown>): Credential | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1]?.trim();
  const jobTokens = takesJobToken(req);
  // PRIVATE-TOKEN (header or parameter) names a personal, project, group or impersonation token
  // only; an OAuth token counts in `Authorization: Bearer` or `access_token`, as the reference reads them.
  const personal = str(input.private_token) ?? str(header(req, 'private-token'));
  if (personal) return { kind: 'token', value: personal, personalOnly: true };
  const token = str(input.access_token);
  if (token) return { kind: 'token', value: token };
  const jobToken = str(header(req, 'job-token')) ?? str(input.job_token);
  if (jobToken) return { kind: 'job_token', value: jobToken, accepted: jobTokens };
  // Bearer carries personal, OAuth and (where taken) job tokens alike.
  if (bearer) return { kind: 'token', value: bearer, jobToken: jobTokens };
  const session = cookie(req, SESSION_COOKIE);
  if (session) {
    const safeMethod = req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS';
    return { kind: 'session', value: session, csrfToken: str(header(req, 'x-csrf-token')) ?? null, safeMethod };
  }
  return null;
}

export function sudoIdentifierOf(req: FastifyRequest, input: Record<string, unknown>): string | null {
  const v = input.sudo ?? header(req, 'sudo');
  return v === undefined || v === null || v === '' ? null : String(v);
}

/**
 * The key of an alert integration (spec, Authentication 2): `Authorization: Bearer <key>`, or HTTP
 * Basic whose password is the key (the user name is not looked at; clients send it empty).
 */
export function alertKeyOf(req: FastifyRequest): string | null {
  const auth = header(req, 'authorization') ?? '';
  const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
  if (bearer) return bearer;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth)?.[1];
  if (!basic) return null;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1) || null;
}
