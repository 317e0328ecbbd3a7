// A project's webhooks (maintainers): the list and the add form, a hook's edit page with its test
// triggers and its delivery log ("Recent events"), and one delivery's request and response.
import { encodePath, html, type Html } from '../html.js';
import { pagerOf } from '../api.js';
import { PageNotFound, type ProjectPage, type ProjectPageContext } from '../page.js';
import { when } from '../views/common.js';
import { deliveryDetail, deliveryTable, findDelivery } from '../views/hook_deliveries.js';
import { pagerLinks } from '../views/lists.js';
import { settingsTabs } from '../views/settings_nav.js';
import { requireMaintainer } from './project_settings.js';

/** The hook's event switches (the API's fields), as the reference labels them. */
const EVENTS: [string, string][] = [
  ['push_events', 'Push events'],
  ['tag_push_events', 'Tag push events'],
  ['merge_requests_events', 'Merge request events'],
  ['repository_update_events', 'Repository update events'],
  ['issues_events', 'Issues events'],
  ['confidential_issues_events', 'Confidential issues events'],
  ['note_events', 'Comments'],
  ['confidential_note_events', 'Confidential comments'],
  ['pipeline_events', 'Pipeline events'],
  ['wiki_page_events', 'Wiki page events'],
  ['deployment_events', 'Deployment events'],
  ['job_events', 'Job events'],
  ['releases_events', 'Releases events'],
];

/** What POST …/hooks/:hook_id/test/:trigger accepts, as the reference's "Test" menu names it. */
const TEST_TRIGGERS: [string, string][] = [
  ['push_events', 'Push events'],
  ['tag_push_events', 'Tag push events'],
  ['merge_requests_events', 'Merge request events'],
  ['issues_events', 'Issues events'],
  ['note_events', 'Comments'],
  ['job_events', 'Job events'],
  ['pipeline_events', 'Pipeline events'],
  ['wiki_page_events', 'Wiki page events'],
  ['releases_events', 'Releases events'],
];

const hooksBase = (p: any): string => `/${encodePath(p.path_with_namespace)}/-/hooks`;

function hookForm(p: any, hook: any | null): Html {
  const api = hook ? `/projects/${p.id}/hooks/${hook.id}` : `/projects/${p.id}/hooks`;
  const on = (k: string): boolean => (hook ? hook[k] === true : k === 'push_events');
  return html`<form class="stack" data-api="${api}" data-method="${hook ? 'PUT' : 'POST'}">
  <label><span>URL</span><input type="url" name="url" required value="${hook?.url ?? ''}" placeholder="https://example.com/hook"></label>
  <label><span>Secret token</span><input type="password" name="token" autocomplete="new-password"${hook ? html` placeholder="Unchanged unless you type a new one"` : ''}></label>
  <p class="muted">Sent with every request in the X-Service-Token header; stored encrypted and never shown again.</p>
  <fieldset>
    <legend>Trigger</legend>
    ${EVENTS.map(([k, label]) =>
      k === 'push_events'
        ? html`<label><input type="checkbox" name="push_events"${on(k) ? html` checked` : ''}> ${label}</label>
    <label class="indent"><span>Branch filter for push events (wildcards allowed; empty for all branches)</span><input type="text" name="push_events_branch_filter" data-send-empty value="${hook?.push_events_branch_filter ?? ''}"></label>`
        : html`<label><input type="checkbox" name="${k}"${on(k) ? html` checked` : ''}> ${label}</label>`,
    )}
  </fieldset>
  <fieldset>
    <legend>SSL verification</legend>
    <label><input type="checkbox" name="enable_ssl_verification"${!hook || hook.enable_ssl_verification ? html` checked` : ''}> Enable SSL verification</label>
  </fieldset>
  <button type="submit" class="primary">${hook ? 'Save changes' : 'Add webhook'}</button>
</form>`;
}

function hookState(h: any): Html {
  if (h.alert_status === 'disabled') return html`<span class="state bad">Disabled after failing</span>`;
  if (h.alert_status === 'temporarily_disabled') return html`<span class="state warn">Temporarily disabled until ${when(h.disabled_until)}</span>`;
  return html``;
}

function testButtons(p: any, hook: any, then: string): Html {
  return html`<div class="toolbar" data-action-scope role="group" aria-label="Test hook ${hook.url}">
  <span>Test:</span>
  ${TEST_TRIGGERS.map(
    ([t, label]) =>
      html`<button type="button" data-api="/projects/${p.id}/hooks/${hook.id}/test/${t}" data-method="POST" data-then="${then}">${label}<span class="visually-hidden"> to ${hook.url}</span></button>`,
  )}
  <p data-result hidden class="ok-message">Hook executed successfully.</p>
</div>`;
}

async function hookOf(ctx: ProjectPageContext): Promise<any> {
  const id = Number(ctx.params.id);
  if (!Number.isInteger(id) || id <= 0) throw new PageNotFound();
  const a = await ctx.api.get(`/projects/${ctx.project.id}/hooks/${id}`);
  if (a.status !== 200) throw new PageNotFound();
  return a.body;
}

export const hookPages: ProjectPage[] = [
  {
    path: 'hooks',
    async handler(ctx) {
      requireMaintainer(ctx);
      const p = ctx.project;
      const a = await ctx.api.get(`/projects/${p.id}/hooks?per_page=100`);
      if (a.status !== 200) throw new PageNotFound();
      const hooks: any[] = a.body;
      return {
        title: `Webhooks · ${p.name_with_namespace}`,
        section: 'settings',
        body: html`<h1>Webhooks</h1>
${settingsTabs(p, 'webhooks')}
<p>Webhooks send a POST with the event's JSON to a URL when something happens in the project.</p>
<section class="panel" aria-labelledby="add-hook-title">
  <h2 id="add-hook-title">Add new webhook</h2>
  ${hookForm(p, null)}
</section>
<h2>Project hooks <span class="count">${hooks.length}</span></h2>
${
  hooks.length === 0
    ? html`<p class="muted">No webhooks enabled. Select trigger options above.</p>`
    : html`<ul class="hook-list">${hooks.map(
        (h) => html`<li class="panel">
    <p><strong class="mono wrap">${h.url}</strong> ${hookState(h)}</p>
    <p class="muted">${EVENTS.filter(([k]) => h[k]).map(([, l]) => l).join(' · ') || 'No events'} &middot; SSL verification: ${h.enable_ssl_verification ? 'enabled' : 'disabled'}</p>
    ${testButtons(p, h, 'show')}
    <div class="toolbar" data-action-scope>
      <a class="button" href="${hooksBase(p)}/${h.id}/edit">Edit<span class="visually-hidden"> ${h.url}</span></a>
      <button type="button" class="danger" data-api="/projects/${p.id}/hooks/${h.id}" data-method="DELETE" data-confirm="Delete the webhook to ${h.url}?">Delete<span class="visually-hidden"> ${h.url}</span></button>
    </div>
  </li>`,
      )}</ul>`
}`,
      };
    },
  },
  {
    path: 'hooks/:id/edit',
    async handler(ctx) {
      requireMaintainer(ctx);
      const p = ctx.project;
      const hook = await hookOf(ctx);
      const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
      const ev = await ctx.api.get(`/projects/${p.id}/hooks/${hook.id}/events?per_page=20&page=${page}`);
      const events: any[] = ev.status === 200 ? ev.body : [];
      const edit = `${hooksBase(p)}/${hook.id}/edit`;
      return {
        title: `Edit webhook · ${p.name_with_namespace}`,
        section: 'settings',
        body: html`<p class="breadcrumbs"><a href="${hooksBase(p)}">Webhooks</a> / Edit</p>
<h1>Edit webhook</h1>
${settingsTabs(p, 'webhooks')}
<p>${hookState(hook)}</p>
<section class="panel" aria-labelledby="edit-hook-title">
  <h2 id="edit-hook-title">Webhook settings</h2>
  ${hookForm(p, hook)}
</section>
<section class="panel" aria-labelledby="test-hook-title">
  <h2 id="test-hook-title">Test</h2>
  <p class="muted">Sends a sample event of the chosen kind now; it appears below.</p>
  ${testButtons(p, hook, 'reload')}
</section>
<section aria-labelledby="events-title">
  <h2 id="events-title">Recent events</h2>
  ${deliveryTable(events, (e) => `${hooksBase(p)}/${hook.id}/hook_logs/${e.id}`, 'Deliveries of this webhook, newest first')}
  ${pagerLinks(pagerOf(ev), (n) => `${edit}?page=${n}`)}
</section>
<section class="panel danger-zone" aria-labelledby="delete-hook-title">
  <h2 id="delete-hook-title">Delete webhook</h2>
  <div data-action-scope><button type="button" class="danger" data-api="/projects/${p.id}/hooks/${hook.id}" data-method="DELETE" data-then="redirect:${hooksBase(p)}" data-confirm="Delete this webhook?">Delete webhook</button></div>
</section>`,
      };
    },
  },
  {
    path: 'hooks/:id/hook_logs/:log_id',
    async handler(ctx) {
      requireMaintainer(ctx);
      const p = ctx.project;
      const hook = await hookOf(ctx);
      const logId = Number(ctx.params.log_id);
      const events = `/projects/${p.id}/hooks/${hook.id}/events`;
      const entry = await findDelivery(ctx.api, events, logId);
      if (!entry) throw new PageNotFound();
      return {
        title: `Webhook delivery · ${p.name_with_namespace}`,
        section: 'settings',
        body: html`<p class="breadcrumbs"><a href="${hooksBase(p)}">Webhooks</a> / <a href="${hooksBase(p)}/${hook.id}/edit">Edit</a> / Delivery ${entry.id}</p>
<h1>Request details</h1>
${deliveryDetail(entry, events, `${hooksBase(p)}/${hook.id}/edit`)}`,
      };
    },
  },
];
