// System hooks: the list with test and delete, a form to add one, and each hook's edit page with
// its delivery log (GET /hooks/:id/events) and resend — as the reference's /admin/hooks pages.
import { html, type Html } from '../html.js';
import { pagerOf } from '../api.js';
import { PageNotFound, type SitePage } from '../page.js';
import { when } from '../views/common.js';
import { deliveryDetail, deliveryTable, findDelivery } from '../views/hook_deliveries.js';
import { pagerLinks } from '../views/lists.js';
import { adminNav, mustGet, requireAdmin } from './admin.js';

/** The event switches a system hook has (system events such as user_create are always sent). */
const EVENTS: [string, string][] = [
  ['repository_update_events', 'Repository update events'],
  ['push_events', 'Push events'],
  ['tag_push_events', 'Tag push events'],
  ['merge_requests_events', 'Merge request events'],
];

function hookFields(hook: any | null): Html {
  const on = (name: string, dflt: boolean) => ((hook ? hook[name] : dflt) ? html` checked` : '');
  return html`<label><span>URL</span><input type="url" name="url" required value="${hook?.url ?? ''}" placeholder="https://example.com/hook"></label>
<label><span>Secret token</span><input type="password" name="token" autocomplete="off" placeholder="${hook ? 'Unchanged unless filled in' : ''}"></label>
<fieldset><legend>Trigger</legend>
  <p class="muted">System hooks receive system events (projects, groups, users, members) whatever is chosen here.</p>
  ${EVENTS.map(([name, label]) => html`<label class="check"><input type="checkbox" name="${name}"${on(name, name === 'repository_update_events')}> ${label}</label>`)}
</fieldset>
<fieldset><legend>SSL verification</legend>
  <label class="check"><input type="checkbox" name="enable_ssl_verification"${on('enable_ssl_verification', true)}> Enable SSL verification</label>
</fieldset>`;
}

const eventsOf = (hook: any): string =>
  EVENTS.filter(([n]) => hook[n])
    .map(([, l]) => l)
    .join(', ') || 'System events only';

export const adminHookPages: SitePage[] = [
  {
    path: '/admin/hooks',
    async handler(ctx) {
      requireAdmin(ctx);
      const hooks = (await mustGet(ctx, '/hooks?per_page=100')).body as any[];
      return {
        title: 'System hooks · Admin area',
        aside: adminNav('hooks'),
        body: html`<h1>System hooks</h1>
<p class="muted">System hooks send a POST request to a URL when something happens on this instance: a project, group or user is created, renamed or removed, a member is added, code is pushed.</p>
<section class="panel" aria-labelledby="add-hook">
  <h2 id="add-hook">Add new system hook</h2>
  <form class="stack" data-api="/hooks" data-method="POST" data-then="reload">
    ${hookFields(null)}
    <button type="submit" class="primary">Add system hook</button>
  </form>
</section>
<h2>System hooks (${hooks.length})</h2>
${
  hooks.length === 0
    ? html`<p class="muted">No system hooks yet.</p>`
    : html`<table>
  <caption class="visually-hidden">System hooks</caption>
  <thead><tr><th scope="col">URL</th><th scope="col">Triggers</th><th scope="col">SSL verification</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>
  ${hooks.map(
    (h) => html`<tr>
    <td class="mono">${h.url}</td>
    <td>${eventsOf(h)}</td>
    <td>${h.enable_ssl_verification ? 'enabled' : 'disabled'}</td>
    <td>${when(h.created_at)}</td>
    <td class="actions" data-action-scope>
      <a class="button" href="/admin/hooks/${h.id}/edit" aria-label="Edit hook ${h.url}">Edit</a>
      <button type="button" data-api="/hooks/${h.id}" data-method="POST" data-then="redirect:/admin/hooks/${h.id}/edit" aria-label="Test hook ${h.url}">Test</button>
      <button type="button" class="danger" data-api="/hooks/${h.id}" data-method="DELETE" data-confirm="Delete the system hook ${h.url}?" aria-label="Delete hook ${h.url}">Delete</button>
    </td>
  </tr>`,
  )}
  </tbody>
</table>`
}`,
      };
    },
  },
  {
    path: '/admin/hooks/:id/edit',
    async handler(ctx) {
      requireAdmin(ctx);
      const id = Number.parseInt(ctx.params.id, 10);
      const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
      const hook = (await mustGet(ctx, `/hooks/${id}`)).body;
      const logs = await mustGet(ctx, `/hooks/${id}/events?per_page=20&page=${page}`);
      return {
        title: 'Edit system hook · Admin area',
        aside: adminNav('hooks'),
        body: html`<p class="breadcrumbs"><a href="/admin/hooks">System hooks</a></p>
<h1>System hook</h1>
<section class="panel" aria-labelledby="edit-hook">
  <h2 id="edit-hook">Edit</h2>
  <form class="stack" data-api="/hooks/${hook.id}" data-method="PUT" data-then="show">
    ${hookFields(hook)}
    <button type="submit" class="primary">Save changes</button>
    <p data-result hidden role="status" class="saved">Hook saved.</p>
  </form>
  <div class="toolbar" data-action-scope>
    <button type="button" data-api="/hooks/${hook.id}" data-method="POST" data-then="reload">Test hook</button>
    <button type="button" class="danger" data-api="/hooks/${hook.id}" data-method="DELETE" data-confirm="Delete this system hook?" data-then="redirect:/admin/hooks">Delete</button>
  </div>
</section>
<h2>Recent events</h2>
${deliveryTable(logs.body as any[], (e) => `/admin/hooks/${hook.id}/hook_logs/${e.id}`, 'Deliveries of this system hook, newest first')}
${pagerLinks(pagerOf(logs), (n) => `/admin/hooks/${hook.id}/edit?page=${n}`)}`,
      };
    },
  },
  {
    path: '/admin/hooks/:id/hook_logs/:log_id',
    async handler(ctx) {
      requireAdmin(ctx);
      const id = Number.parseInt(ctx.params.id, 10);
      const hook = (await mustGet(ctx, `/hooks/${id}`)).body;
      const events = `/hooks/${hook.id}/events`;
      const entry = await findDelivery(ctx.api, events, Number(ctx.params.log_id));
      if (!entry) throw new PageNotFound();
      return {
        title: 'System hook delivery · Admin area',
        aside: adminNav('hooks'),
        body: html`<p class="breadcrumbs"><a href="/admin/hooks">System hooks</a> / <a href="/admin/hooks/${hook.id}/edit">Edit</a> / Delivery ${entry.id}</p>
<h1>Request details</h1>
${deliveryDetail(entry, events, `/admin/hooks/${hook.id}/edit`)}`,
      };
    },
  },
];
