// What a page handler gets and gives. Handlers read through `api` (the public REST API as the
// visitor) and return a title and a body; the layout, errors and the 404 page are done once, in routes.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../domain/context.js';
import type { Actor } from '../domain/auth/actor.js';
import type { ApiClient } from './api.js';
import type { Html } from './html.js';
import { toHttpError } from '../http/errors.js';

/** The signed-in visitor, as GET /api/v4/user answers for them. */
export interface Viewer {
  id: number;
  username: string;
  name: string;
  is_admin?: boolean;
  avatar_url: string | null;
  web_url: string;
}

export interface PageContext {
  c: Container;
  req: FastifyRequest;
  reply: FastifyReply;
  api: ApiClient;
  viewer: Viewer | null;
  /**
   * The visitor as the domain knows them, for the few reads the API would make one call per row
   * (the pipelines list's rows); everything else reads through `api`.
   */
  actor(): Promise<Actor | null>;
  /** The session's CSRF token, for forms and the browser's API writes; null when signed out. */
  csrf: string | null;
  /** The request's path params (find-my-way names) and query. */
  params: Record<string, string>;
  query: URLSearchParams;
}

/** A project page: the project as GET /api/v4/projects/:id answers it for the visitor. */
export interface ProjectPageContext extends PageContext {
  project: any;
  /** The visitor's access level on the project (0 when none; 50 for an administrator). */
  access: number;
}

export interface Rendered {
  title: string;
  body: Html;
  /** The project navigation entry to mark as current (see project_nav.ts). */
  section?: string;
  status?: number;
  /** Navigation beside the content; set for project pages by routes.ts. */
  aside?: Html;
}

/** The handler already sent its own answer (a redirect, a raw file). */
export const SENT = Symbol('sent');

export type PageOutcome = Rendered | typeof SENT;

/** A page outside any project: `path` is a find-my-way pattern (`/users/sign_in`, `/groups/*`). */
export interface SitePage {
  path: string;
  handler(ctx: PageContext): Promise<PageOutcome>;
}

/** A page under a project: `path` is what follows `/{project}/-/` ('' for the overview). */
export interface ProjectPage {
  path: string;
  handler(ctx: ProjectPageContext): Promise<PageOutcome>;
}

/** The body of a JSON answer's 404 (a script's request: `?format=json`). */
export const NOT_FOUND = { message: '404 Not Found' };

/** A JSON answer to a script's request, instead of a page. */
export function sendJson(reply: FastifyReply, status: number, body: unknown): typeof SENT {
  reply.code(status).header('content-type', 'application/json').header('cache-control', 'private, no-store').send(JSON.stringify(body));
  return SENT;
}

/** Thrown by a handler: the reference's 404 page (or, for a visitor not signed in, the sign-in page). */
export class PageNotFound extends Error {
  constructor() {
    super('page not found');
  }
}

/** Thrown by a handler: the visitor must sign in first. */
export class SignInRequired extends Error {
  constructor() {
    super('sign in required');
  }
}

/** A domain read made as the visitor, or null where the API would answer 403 or 404 (what the visitor may not see); other errors go on. */
export async function unlessHidden<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (e) {
    const status = toHttpError(e)?.status;
    if (status === 403 || status === 404) return null;
    throw e;
  }
}
