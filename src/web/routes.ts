// The web interface's routes: sign-in and sign-out, the assets, and every page at the URLs the API
// hands out (`/{project path}`, `/{project path}/-/…`, `/groups/{path}`, `/{username}`). A project
// path has any number of segments, so one catch-all route resolves it through the API and then
// finds the page for what follows `/-/`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Container } from '../domain/context.js';
import type { Actor } from '../domain/auth/actor.js';
import { authenticate } from '../domain/auth/service.js';
import { csrfTokenOf } from '../domain/tokens/sessions.js';
import { cookie, SESSION_COOKIE } from '../http/auth.js';
import { apiClient } from './api.js';
import { ASSET_PREFIX, asset } from './assets.js';
import { layout } from './layout.js';
import { html } from './html.js';
import { NOT_FOUND, PageNotFound, SENT, SignInRequired, sendJson, type PageContext, type PageOutcome, type ProjectPageContext, type Viewer } from './page.js';
import { accessOf, projectNav } from './project_nav.js';
import { projectPages, sitePages } from './pages/index.js';
import { groupRoute } from './pages/groups.js';
import { userPage } from './pages/users.js';
import { notFoundPage } from './pages/errors.js';
import { registerSignIn } from './pages/sign_in.js';
import { registerAdminMode } from './pages/admin_mode.js';

type SiteHandler = (ctx: PageContext) => Promise<PageOutcome>;

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#24243a"/>' +
  '<path d="M5 10h17c0 4 3 6 5 6v3h-7l2 6H10l2-6H9c-2 0-4-2-4-5z" fill="#f0b400"/></svg>';
type ProjectHandler = (ctx: ProjectPageContext) => Promise<PageOutcome>;

/**
 * Every page's Content-Security-Policy: scripts only from Anvil's own files (no inline script, no
 * event-handler attribute, no `javascript:` URL), no plugins, no framing, forms only to Anvil.
 * Images may come from anywhere (badges); inline style attributes stay (bars and graphs).
 */
export const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src * data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export function registerWeb(app: FastifyInstance, c: Container): void {
  // on every HTML answer (pages, sign-in, error pages) that has not set a stricter policy itself
  app.addHook('onSend', async (_req, reply, payload) => {
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/html') && !reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', PAGE_CSP);
    }
    return payload;
  });
  app.get(`${ASSET_PREFIX}/:name`, async (req, reply) => {
    const a = asset((req.params as { name: string }).name);
    if (!a) return reply.code(404).type('text/plain').send('Not Found');
    const fresh = (req.query as Record<string, string>).v === a.hash;
    return reply
      .header('content-type', a.type)
      .header('cache-control', fresh ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(a.body);
  });

  // The tab's icon: an anvil-ish mark, small enough to live here (browsers ask /favicon.ico on their own).
  for (const at of ['/favicon.ico', '/favicon.svg']) {
    app.get(at, async (_req, reply) => reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON));
  }

  registerSignIn(app, c);
  registerAdminMode(app, c);

  const site = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 2048 });
  for (const p of sitePages) site.on('GET', p.path, () => {}, { handler: p.handler });
  const project = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 2048 });
  for (const p of projectPages) project.on('GET', `/${p.path}`, () => {}, { handler: p.handler });

  app.get('/*', async (req, reply) => {
    const path = req.url.split('?')[0];
    // Under /api/ an unknown path is the API's JSON 404, never a page.
    if (path.startsWith('/api/') || path === '/api') return reply.callNotFound();
    const found = site.find('GET', path);
    // `/-/…` is the server's own (health, assets, internal routes): no page there is a project's.
    // Decided before the visitor is looked up, so such a 404 costs no API call.
    if (!found && path.startsWith('/-/')) return reply.callNotFound();
    const ctx = await pageContext(app, c, req, reply);
    try {
      if (found) {
        ctx.params = found.params as Record<string, string>;
        return await send(ctx, await (found.store as { handler: SiteHandler }).handler(ctx));
      }
      return await send(ctx, await byPath(ctx, path));
    } catch (e) {
      if (e instanceof PageNotFound || e instanceof SignInRequired) {
        // a script's request for JSON (`?format=json`) gets no page: sign in first (401), or nothing here (404)
        if (ctx.query.get('format') === 'json') {
          sendJson(reply, ctx.viewer ? 404 : 401, ctx.viewer ? NOT_FOUND : { error: 'You need to sign in or sign up before continuing.' });
          return reply;
        }
        if (!ctx.viewer) return reply.redirect(`/users/sign_in?redirect_to=${encodeURIComponent(req.url)}`, 302);
        return send(ctx, notFoundPage());
      }
      throw e;
    }
  });

  /** `/{path}` and `/{path}/-/{rest}`: a project page, else a group's page, else a user. */
  async function byPath(ctx: PageContext, path: string): Promise<PageOutcome> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      throw new PageNotFound();
    }
    const cut = decoded.indexOf('/-/');
    let projectPath = (cut < 0 ? decoded : decoded.slice(0, cut)).replace(/^\/+|\/+$/g, '');
    let rest = cut < 0 ? '' : decoded.slice(cut + 3);
    // The export's web_url: `/{project}/download_export`.
    if (cut < 0 && projectPath.endsWith('/download_export')) {
      projectPath = projectPath.slice(0, -'/download_export'.length);
      rest = 'download_export';
    }
    if (projectPath === '') throw new PageNotFound();
    const p = await ctx.api.get(`/projects/${encodeURIComponent(projectPath)}?license=false&statistics=false`);
    if (p.status === 200) {
      const found = project.find('GET', `/${rest.split('/').map(encodeURIComponent).join('/')}`);
      if (!found) throw new PageNotFound();
      const pctx: ProjectPageContext = {
        ...ctx,
        params: decodeParams(found.params as Record<string, string>),
        project: p.body,
        access: accessOf(p.body, !!ctx.viewer?.is_admin),
      };
      const out = await (found.store as { handler: ProjectHandler }).handler(pctx);
      if (out === SENT) return out;
      // An archived project says so on every page (the API refuses its writes).
      const body = p.body.archived ? html`<p class="flash archived-banner" role="status">This project is archived. It is read-only: no pushes, pipelines or changes.</p>${out.body}` : out.body;
      return { ...out, body, aside: projectNav(p.body, pctx.access, out.section) };
    }
    // Not a project: a group (its pages follow `/-/` too), else a user.
    const group = await ctx.api.get(`/groups/${encodeURIComponent(projectPath)}?with_projects=false`);
    if (group.status === 200) return groupRoute(ctx, group.body, rest);
    if (cut >= 0) throw new PageNotFound();
    if (!projectPath.includes('/')) {
      const users = await ctx.api.get(`/users?username=${encodeURIComponent(projectPath)}`);
      if (users.status === 200 && Array.isArray(users.body) && users.body.length === 1) return userPage(ctx, users.body[0]);
    }
    throw new PageNotFound();
  }

  async function send(ctx: PageContext, page: PageOutcome): Promise<FastifyReply | void> {
    // the handler sent its own answer: Fastify waits for it (an async handler's undefined would be sent again)
    if (page === SENT) return ctx.reply;
    return ctx.reply
      .code(page.status ?? 200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .send(layout({ title: page.title, body: page.body, viewer: ctx.viewer, csrf: ctx.csrf, aside: page.aside }));
  }
}

// find-my-way hands back the wildcard's raw text; pages want refs and paths as written.
function decodeParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}

async function pageContext(app: FastifyInstance, c: Container, req: FastifyRequest, reply: FastifyReply): Promise<PageContext> {
  const api = apiClient(app, req);
  const session = cookie(req, SESSION_COOKIE);
  let viewer: Viewer | null = null;
  if (session) {
    const me = await api.get('/user');
    if (me.status === 200) viewer = me.body;
  }
  const q = req.url.indexOf('?');
  let actor: Promise<Actor | null> | undefined;
  return {
    c,
    req,
    reply,
    api,
    viewer,
    // The session's actor as the API authenticates it (a session the API refuses is nobody).
    actor: () => (actor ??= viewer && session ? authenticate(c, { kind: 'session', value: session, csrfToken: null, safeMethod: true }).catch(() => null) : Promise.resolve(null)),
    csrf: viewer && session ? csrfTokenOf(c, session) : null,
    params: {},
    query: new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1)),
  };
}
