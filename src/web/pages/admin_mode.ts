// Admin mode for the web session (the `admin_mode` setting): an administrator enters it by giving
// their password again, for six hours, and may leave it. Until then the admin pages answer as to
// anyone else, since the API treats the session as a normal user's.
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../domain/context.js';
import { csrfTokenMatches, enterAdminMode, leaveAdminMode } from '../../domain/tokens/sessions.js';
import { cookie, SESSION_COOKIE } from '../../http/auth.js';
import { html } from '../html.js';
import { SignInRequired, type PageContext, type SitePage } from '../page.js';

function formBody(ctx: Pick<PageContext, 'csrf'>, error: string | null) {
  return html`<h1>Enter admin mode</h1>
${error ? html`<p class="flash" role="alert">${error}</p>` : ''}
<form method="post" action="/admin/session" class="stack panel">
  <input type="hidden" name="authenticity_token" value="${ctx.csrf ?? ''}">
  <label><span>Password</span><input type="password" name="password" autocomplete="current-password" required autofocus></label>
  <button type="submit" class="primary">Enter admin mode</button>
</form>`;
}

const posted = (body: unknown, name: string): string | null => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : null;
};

export function registerAdminMode(app: FastifyInstance, c: Container): void {
  app.post('/admin/session', async (req, reply) => {
    const session = cookie(req, SESSION_COOKIE);
    if (!session) return reply.redirect('/users/sign_in?redirect_to=%2Fadmin%2Fsession%2Fnew', 302);
    if (!csrfTokenMatches(c, session, posted(req.body, 'authenticity_token'))) return reply.code(422).type('text/plain').send('Invalid authenticity token');
    if (await enterAdminMode(c, session, posted(req.body, 'password') ?? '')) return reply.redirect('/admin', 302);
    return reply.redirect('/admin/session/new?failed=1', 302);
  });

  app.post('/admin/session/destroy', async (req, reply) => {
    const session = cookie(req, SESSION_COOKIE);
    if (session) {
      if (!csrfTokenMatches(c, session, posted(req.body, 'authenticity_token'))) return reply.code(422).type('text/plain').send('Invalid authenticity token');
      await leaveAdminMode(c, session);
    }
    return reply.redirect('/', 302);
  });
}

export const adminModePages: SitePage[] = [
  {
    path: '/admin/session/new',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      const error = ctx.query.get('failed') ? 'Invalid password, or not an administrator.' : null;
      return { title: 'Enter admin mode', body: formBody(ctx, error) };
    },
  },
];
