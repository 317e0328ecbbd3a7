// The reference's error pages, in the layout.
import { html } from '../html.js';
import type { Rendered } from '../page.js';

export function notFoundPage(): Rendered {
  return {
    title: 'Not Found',
    status: 404,
    body: html`<div class="error-page">
  <p class="code">404</p>
  <h1>Page Not Found</h1>
  <p>Make sure the address is correct and the page hasn't moved.</p>
  <p>Please contact your administrator if you think this is a mistake.</p>
  <p><a href="/">Go to the dashboard</a></p>
</div>`,
  };
}
