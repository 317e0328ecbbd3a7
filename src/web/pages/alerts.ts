// Alerts: the alert integrations' settings (maintainers: create, showing the URL and the key once,
// reset the key, activate, delete), the test alert form (developers and above), the alert list
// with its status filter and an alert's details, where its status is changed.
import { encodePath, html, type Html } from '../html.js';
import { pagerOf } from '../api.js';
import { DEVELOPER, MAINTAINER } from '../project_nav.js';
import { PageNotFound, SignInRequired, type ProjectPage, type ProjectPageContext } from '../page.js';
import { when } from '../views/common.js';
import { pagerLinks } from '../views/lists.js';
import { settingsTabs } from '../views/settings_nav.js';
import { requireMaintainer } from './project_settings.js';

const STATUSES = ['triggered', 'acknowledged', 'resolved', 'ignored'] as const;
const label = (s: string): string => s[0].toUpperCase() + s.slice(1);

const SAMPLE_PAYLOAD = JSON.stringify(
  { title: 'Test alert', description: 'Sent from the alert settings', severity: 'high', service: 'web', monitoring_tool: 'manual test' },
  null,
  2,
);

function requireDeveloper(ctx: ProjectPageContext): void {
  if (!ctx.viewer) throw new SignInRequired();
  if (ctx.access < DEVELOPER) throw new PageNotFound();
}

const alertsBase = (p: any): string => `/${encodePath(p.path_with_namespace)}/-/alert_management`;

/** The key and URL of an integration, shown once after creation or a key reset, with copy buttons. */
function keyResult(prefix: string): Html {
  return html`<div data-result hidden class="key-result">
  <p><strong>Copy the key now: it will not be shown again.</strong></p>
  <label><span>Webhook URL</span><input type="text" readonly id="${prefix}-url" data-field="url"></label>
  <button type="button" data-copy="${prefix}-url">Copy URL</button>
  <label><span>Authorization key</span><input type="text" readonly id="${prefix}-key" data-field="token" class="mono"></label>
  <button type="button" data-copy="${prefix}-key">Copy key</button>
  <p><a href="">Done</a></p>
</div>`;
}

/**
 * The test alert: the JSON payload goes through one integration as if sent to its URL. A
 * maintainer picks the integration from the list; a developer (who cannot list them) gives its ID.
 */
export function testAlertForm(p: any, integrations: any[] | null): Html {
  return html`<form class="stack" data-api="/projects/${p.id}/alert_integrations/{integration_id}/test_alert" data-method="POST" data-body-field="payload" data-then="redirect:${alertsBase(p)}" aria-labelledby="test-alert-title">
  ${
    integrations
      ? html`<label><span>Integration</span><select name="integration_id" required>${integrations.map(
          (i) => html`<option value="${i.id}">${i.name} (ID ${i.id})${i.active ? '' : ' — inactive'}</option>`,
        )}</select></label>`
      : html`<label><span>Integration ID</span><input type="number" name="integration_id" min="1" required></label>
  <p class="muted">A maintainer finds the ID in Settings &rarr; Alert integrations.</p>`
  }
  <label><span>Alert payload (JSON)</span><textarea name="payload" data-type="json" class="mono" rows="8" required>${SAMPLE_PAYLOAD}</textarea></label>
  <button type="submit" class="primary">Send test alert</button>
</form>`;
}

function integrationRow(p: any, i: any): Html {
  const api = `/projects/${p.id}/alert_integrations/${i.id}`;
  return html`<li class="panel" data-action-scope>
  <p><strong>${i.name}</strong> <span class="muted">ID ${i.id} &middot; HTTP endpoint &middot; created ${when(i.created_at)}</span>
    <span class="state ${i.active ? 'ok' : 'warn'}">${i.active ? 'Active' : 'Inactive'}</span></p>
  <label><span>Webhook URL of ${i.name}</span><input type="text" readonly id="integration-${i.id}-url" value="${i.url}"></label>
  <button type="button" data-copy="integration-${i.id}-url">Copy URL<span class="visually-hidden"> of ${i.name}</span></button>
  <div class="toolbar">
    <button type="button" data-api="${api}" data-method="PUT" data-body="${JSON.stringify({ active: !i.active })}">${i.active ? 'Deactivate' : 'Activate'}<span class="visually-hidden"> ${i.name}</span></button>
    <button type="button" data-api="${api}/reset_key" data-method="POST" data-then="show" data-confirm="Reset the key of ${i.name}? The old key stops working.">Reset key<span class="visually-hidden"> of ${i.name}</span></button>
    <button type="button" class="danger" data-api="${api}" data-method="DELETE" data-confirm="Delete the integration ${i.name}? Its alerts stay.">Delete<span class="visually-hidden"> ${i.name}</span></button>
  </div>
  ${keyResult(`integration-${i.id}-reset`)}
</li>`;
}

async function alertOf(ctx: ProjectPageContext): Promise<any> {
  const iid = Number(ctx.params.iid);
  if (!Number.isInteger(iid) || iid <= 0) throw new PageNotFound();
  const a = await ctx.api.get(`/projects/${ctx.project.id}/alert_management_alerts/${iid}`);
  if (a.status !== 200) throw new PageNotFound();
  return a.body;
}

const severity = (s: string): Html => html`<span class="severity severity-${s}">${label(s)}</span>`;

export const alertPages: ProjectPage[] = [
  {
    path: 'settings/operations',
    async handler(ctx) {
      requireMaintainer(ctx);
      const p = ctx.project;
      const a = await ctx.api.get(`/projects/${p.id}/alert_integrations`);
      if (a.status !== 200) throw new PageNotFound();
      const integrations: any[] = a.body;
      return {
        title: `Alert integrations · ${p.name_with_namespace}`,
        section: 'settings',
        body: html`<h1>Alert integrations</h1>
${settingsTabs(p, 'alerts')}
<p>A monitoring tool sends alerts as JSON to an integration's URL with its key; they appear under <a href="${alertsBase(p)}">Alerts</a>.</p>
<section class="panel" aria-labelledby="new-integration-title">
  <h2 id="new-integration-title">Add new integration</h2>
  <form class="stack" data-api="/projects/${p.id}/alert_integrations" data-method="POST" data-then="show">
    <label><span>Integration type</span><select name="type" disabled><option>HTTP endpoint</option></select></label>
    <label><span>Name integration</span><input type="text" name="name" required></label>
    <label><input type="checkbox" name="active" checked> Active</label>
    <button type="submit" class="primary">Save integration</button>
    ${keyResult('new-integration')}
  </form>
</section>
<h2>Current integrations <span class="count">${integrations.length}</span></h2>
${integrations.length === 0 ? html`<p class="muted">No integrations have been added yet.</p>` : html`<ul class="integration-list">${integrations.map((i) => integrationRow(p, i))}</ul>`}
${
  integrations.length > 0
    ? html`<section class="panel" aria-labelledby="test-alert-title"><h2 id="test-alert-title">Send a test alert</h2>${testAlertForm(p, integrations)}</section>`
    : ''
}`,
      };
    },
  },
  {
    path: 'alert_management',
    async handler(ctx) {
      requireDeveloper(ctx);
      const p = ctx.project;
      const status = ctx.query.get('status');
      const current = STATUSES.find((s) => s === status) ?? null;
      const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
      const q = new URLSearchParams({ per_page: '20', page: String(page) });
      if (current) q.set('status', current);
      const search = ctx.query.get('search')?.trim();
      if (search) q.set('search', search);
      const a = await ctx.api.get(`/projects/${p.id}/alert_management_alerts?${q}`);
      if (a.status !== 200) throw new PageNotFound();
      const alerts: any[] = a.body;
      const base = alertsBase(p);
      const tab = (s: string | null, text: string) =>
        html`<li><a href="${s ? `${base}?status=${s}` : base}"${s === current ? html` aria-current="page"` : ''}>${text}</a></li>`;
      const integrations = ctx.access >= MAINTAINER ? await ctx.api.get(`/projects/${p.id}/alert_integrations`) : null;
      return {
        title: `Alerts · ${p.name_with_namespace}`,
        section: 'alerts',
        body: html`<h1>Alerts</h1>
<nav class="tabs" aria-label="Alert status"><ul>${tab(null, 'All alerts')}${STATUSES.map((s) => tab(s, label(s)))}</ul></nav>
<form method="get" action="${base}" class="toolbar" role="search">
  ${current ? html`<input type="hidden" name="status" value="${current}">` : ''}
  <label><span class="visually-hidden">Search alerts</span><input type="text" name="search" value="${search ?? ''}" placeholder="Search or filter results&hellip;"></label>
  <button type="submit">Search</button>
</form>
${
  alerts.length === 0
    ? html`<p class="muted">No alerts to show.</p>`
    : html`<table class="alerts">
  <caption class="visually-hidden">Alerts${current ? ` (${current})` : ''}, newest first</caption>
  <thead><tr><th scope="col">Severity</th><th scope="col">Start time</th><th scope="col">Alert</th><th scope="col">Events</th><th scope="col">Status</th></tr></thead>
  <tbody>${alerts.map(
    (al) => html`<tr>
    <td>${severity(al.severity)}</td>
    <td>${when(al.started_at)}</td>
    <td><a href="${base}/${al.iid}/details">${al.title}</a><br><span class="muted">#${al.iid}${al.service ? ` · ${al.service}` : ''}</span></td>
    <td>${al.event_count}</td>
    <td>${label(al.status)}</td>
  </tr>`,
  )}</tbody>
</table>
${pagerLinks(pagerOf(a), (n) => `${base}?${new URLSearchParams({ ...(current ? { status: current } : {}), ...(search ? { search } : {}), page: String(n) })}`)}`
}
<section class="panel" aria-labelledby="test-alert-title">
  <h2 id="test-alert-title">Send a test alert</h2>
  ${testAlertForm(p, integrations?.status === 200 ? integrations.body : null)}
</section>`,
      };
    },
  },
  {
    path: 'alert_management/:iid/details',
    async handler(ctx) {
      requireDeveloper(ctx);
      const p = ctx.project;
      const al = await alertOf(ctx);
      const details = Object.keys(al.details ?? {}).length > 0 ? JSON.stringify(al.details, null, 2) : null;
      return {
        title: `${al.title} · Alerts · ${p.name_with_namespace}`,
        section: 'alerts',
        body: html`<p class="breadcrumbs"><a href="${alertsBase(p)}">Alerts</a> / #${al.iid}</p>
<h1>${al.title}</h1>
<p>${severity(al.severity)} &middot; Started ${when(al.started_at)}${al.monitoring_tool ? html` by ${al.monitoring_tool}` : ''}</p>
<form class="toolbar" data-api="/projects/${p.id}/alert_management_alerts/${al.iid}" data-method="PUT">
  <label><span>Status</span> <select name="status">${STATUSES.map((s) => html`<option value="${s}"${s === al.status ? html` selected` : ''}>${label(s)}</option>`)}</select></label>
  <button type="submit">Update status</button>
</form>
<dl class="facts">
  <dt>Status</dt><dd data-alert-status>${label(al.status)}</dd>
  <dt>Description</dt><dd>${al.description ?? '—'}</dd>
  <dt>Service</dt><dd>${al.service ?? '—'}</dd>
  <dt>Environment</dt><dd>${al.environment_name ?? '—'}</dd>
  <dt>Hosts</dt><dd>${al.hosts.length ? al.hosts.join(', ') : '—'}</dd>
  <dt>Events</dt><dd>${al.event_count}</dd>
  <dt>Ended</dt><dd>${when(al.ended_at)}</dd>
  <dt>Fingerprint</dt><dd class="mono wrap">${al.fingerprint}</dd>
</dl>
${details ? html`<h2>Alert details</h2><pre class="code-block" tabindex="0">${details}</pre>` : ''}`,
      };
    },
  },
];
