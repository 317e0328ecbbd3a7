// A hook's delivery log as the reference shows it, for project webhooks and system hooks alike:
// "Recent events" (status, trigger, URL, time, a link to the details) and one delivery's request
// and response with a resend button.
import { html, type Html } from '../html.js';
import type { ApiClient } from '../api.js';
import { when } from './common.js';

const statusClass = (s: string): string => (/^2\d\d$/.test(s) ? 'ok' : 'bad');

/** The deliveries (the API's hook log entries, newest first); `detailHref` links one's details. */
export function deliveryTable(events: any[], detailHref: (e: any) => string, caption: string): Html {
  if (events.length === 0) return html`<p class="muted">No deliveries yet.</p>`;
  return html`<table class="hook-events">
    <caption class="visually-hidden">${caption}</caption>
    <thead><tr><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">URL</th><th scope="col">Elapsed time</th><th scope="col">Request time</th><th scope="col"><span class="visually-hidden">Details</span></th></tr></thead>
    <tbody>${events.map(
      (e) => html`<tr>
      <td><span class="http-status ${statusClass(e.response_status)}" data-response-status>${e.response_status}</span></td>
      <td>${e.trigger.replace(/_/g, ' ')}</td>
      <td class="mono wrap">${e.url}</td>
      <td>${e.execution_duration.toFixed(2)} sec</td>
      <td>${when(e.created_at)}</td>
      <td><a href="${detailHref(e)}">View details<span class="visually-hidden"> of delivery ${e.id}</span></a></td>
    </tr>`,
    )}</tbody>
  </table>`;
}

/**
 * One delivery of the log at `eventsPath` (an API path). The API lists a hook's deliveries (newest
 * first) but has no single-delivery read: look through the recent pages for this one.
 */
export async function findDelivery(api: ApiClient, eventsPath: string, logId: number): Promise<any | null> {
  for (let page = 1; page <= 5; page++) {
    const a = await api.get(`${eventsPath}?per_page=100&page=${page}`);
    if (a.status !== 200 || a.body.length === 0) return null;
    const entry = a.body.find((e: any) => e.id === logId);
    if (entry) return entry;
  }
  return null;
}

/** A delivery's request and response; resend calls `${eventsPath}/{id}/resend`, then goes to `after`. */
export function deliveryDetail(entry: any, eventsPath: string, after: string): Html {
  const headers = (h: Record<string, string>): string =>
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
  return html`<div data-action-scope class="toolbar">
  <button type="button" data-api="${eventsPath}/${entry.id}/resend" data-method="POST" data-then="redirect:${after}">Resend request</button>
</div>
<dl class="facts">
  <dt>Response status</dt><dd><span class="http-status ${statusClass(entry.response_status)}">${entry.response_status}</span></dd>
  <dt>Trigger</dt><dd>${entry.trigger.replace(/_/g, ' ')}</dd>
  <dt>URL</dt><dd class="mono wrap">${entry.url}</dd>
  <dt>Elapsed time</dt><dd>${entry.execution_duration.toFixed(2)} sec</dd>
  <dt>Request time</dt><dd>${when(entry.created_at)}</dd>
</dl>
<h2>Request headers</h2>
<pre class="code-block" tabindex="0">${headers(entry.request_headers)}</pre>
<h2>Request body</h2>
<pre class="code-block" tabindex="0">${JSON.stringify(entry.request_data, null, 2)}</pre>
<h2>Response headers</h2>
<pre class="code-block" tabindex="0">${headers(entry.response_headers)}</pre>
<h2>Response body</h2>
<pre class="code-block" tabindex="0">${entry.response_body || '(empty)'}</pre>`;
}
