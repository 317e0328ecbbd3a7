// A hook's delivery log as the reference shows it: status, trigger, time, the request and response.
import { html, type Html } from '../html.js';
import { when } from './common.js';

/** A delivery's HTTP status as the reference shows it (a number, or the error text). */
const deliveryStatus = (s: string): Html => {
  const ok = /^2\d\d$/.test(s);
  return html`<span class="status status-${ok ? 'success' : 'failed'}"><span class="status-dot" aria-hidden="true"></span>${s}</span>`;
};

/** A hook's deliveries (the API's hook log entries); `eventsPath` is the API path of the log, for resend. */
export function deliveryLog(logs: any[], eventsPath: string): Html {
  if (logs.length === 0) return html`<p class="muted">No deliveries yet.</p>`;
  return html`<table class="deliveries">
  <caption class="visually-hidden">Deliveries of this hook, newest first</caption>
  <thead><tr><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Elapsed time</th><th scope="col">Request time</th><th scope="col">Details</th></tr></thead>
  <tbody>
  ${logs.map(
    (l) => html`<tr>
    <td>${deliveryStatus(l.response_status)}</td>
    <td>${l.trigger}</td>
    <td>${l.execution_duration.toFixed(2)} sec</td>
    <td>${when(l.created_at)}</td>
    <td>
      <details><summary>Request and response</summary>
        <h3>Request headers</h3><pre>${Object.entries(l.request_headers).map(([k, v]) => `${k}: ${v}\n`)}</pre>
        <h3>Request body</h3><pre>${JSON.stringify(l.request_data, null, 2)}</pre>
        <h3>Response headers</h3><pre>${Object.entries(l.response_headers).map(([k, v]) => `${k}: ${v}\n`)}</pre>
        <h3>Response body</h3><pre>${l.response_body}</pre>
      </details>
      <span data-action-scope><button type="button" data-api="${eventsPath}/${l.id}/resend" data-method="POST" data-then="reload">Resend request</button></span>
    </td>
  </tr>`,
  )}
  </tbody>
</table>`;
}
