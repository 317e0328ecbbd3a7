// Signing in with username (or e-mail) and password, and signing out. The form posts here (not to
// the API): this is where a session is made. A cross-site form cannot sign a browser in (the
// Origin must be this site) nor out (the session's CSRF token is needed).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../../domain/context.js';
import { getSettings } from '../../domain/settings/service.js';
import { csrfTokenMatches, signIn, signOut } from '../../domain/tokens/sessions.js';
import { clearedSessionCookie, cookie, SESSION_COOKIE, sessionCookie } from '../../http/auth.js';
import { html } from '../html.js';
import { layout } from '../layout.js';
import { SENT, type SitePage } from '../page.js';

/** Only a path on this site: never `//host` or a full URL (no open redirect). */
export function safeRedirect(to: unknown): string {
  return typeof to === 'string' && /^\/(?![/\\])/.test(to) ? to : '/';
}

function sameOrigin(req: FastifyRequest): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return false;
  const origin = req.headers.origin;
  if (!origin || origin === 'null') return origin !== 'null';
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function form(opts: { enabled: boolean; redirectTo: string; login?: string; error?: string }): string {
  const body = html`<div class="sign-in">
  <h1>Sign in to Anvil</h1>
  ${opts.error ? html`<p class="flash" role="alert">${opts.error}</p>` : ''}
  ${
    opts.enabled
      ? html`<form method="post" action="/users/sign_in" class="stack panel">
    <input type="hidden" name="redirect_to" value="${opts.redirectTo}">
    <label><span>Username or primary email</span><input type="text" name="user[login]" autocomplete="username" required autofocus value="${opts.login ?? ''}"></label>
    <label><span>Password</span><input type="password" name="user[password]" autocomplete="current-password" required></label>
    <button type="submit" class="primary">Sign in</button>
  </form>`
      : html`<p class="panel">Password sign-in is turned off on this instance.</p>`
  }
</div>`;
  return layout({ title: 'Sign in', body, viewer: null, csrf: null });
}

const sendHtml = (reply: FastifyReply, status: number, page: string) =>
  reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(page);

export function registerSignIn(app: FastifyInstance, c: Container): void {
  app.post('/users/sign_in', async (req, reply) => {
    const b = (req.body ?? {}) as { user?: { login?: unknown; password?: unknown }; redirect_to?: unknown };
    const redirectTo = safeRedirect(b.redirect_to);
    const enabled = (await getSettings(c)).password_authentication_enabled_for_web;
    if (!sameOrigin(req)) return sendHtml(reply, 422, form({ enabled, redirectTo, error: 'Can\u2019t verify where this sign-in came from. Please try again.' }));
    const login = typeof b.user?.login === 'string' ? b.user.login : '';
    const password = typeof b.user?.password === 'string' ? b.user.password : '';
    const session = enabled && login && password ? await signIn(c, login, password) : null;
    if (!session) return sendHtml(reply, 401, form({ enabled, redirectTo, login, error: 'Invalid login or password.' }));
    return reply.header('set-cookie', sessionCookie(c, session)).redirect(redirectTo, 302);
  });

  app.post('/users/sign_out', async (req, reply) => {
    const session = cookie(req, SESSION_COOKIE);
    const token = (req.body as { authenticity_token?: unknown } | undefined)?.authenticity_token;
    if (session) {
      if (!csrfTokenMatches(c, session, typeof token === 'string' ? token : null)) return reply.code(422).type('text/plain').send('Invalid authenticity token');
      await signOut(c, session);
    }
    return reply.header('set-cookie', clearedSessionCookie(c)).redirect('/users/sign_in', 302);
  });
}

export const signInPages: SitePage[] = [
  {
    path: '/users/sign_in',
    async handler(ctx) {
      const redirectTo = safeRedirect(ctx.query.get('redirect_to'));
      if (ctx.viewer) {
        ctx.reply.redirect(redirectTo, 302);
        return SENT;
      }
      const enabled = (await getSettings(ctx.c)).password_authentication_enabled_for_web;
      sendHtml(ctx.reply, 200, form({ enabled, redirectTo }));
      return SENT;
    },
  },
];
