// The page shell: header, skip link, landmarks, the project navigation, the assets.
import { html, type Html } from './html.js';
import type { Viewer } from './page.js';
import { assetUrl } from './assets.js';

export interface Shell {
  title: string;
  body: Html;
  viewer: Viewer | null;
  csrf: string | null;
  /** The navigation beside the content (a project's), if any. */
  aside?: Html;
}

export function layout(s: Shell): string {
  return (
    '<!doctype html>' +
    html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${s.title} &middot; Anvil</title>
${s.csrf ? html`<meta name="csrf-token" content="${s.csrf}">` : ''}
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${assetUrl('app.css')}">
<script type="module" src="${assetUrl('app.js')}"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="top">
  <a class="brand" href="/">Anvil</a>
  <nav aria-label="Site">
    <ul>
      ${s.viewer ? html`<li><a href="/dashboard/projects">Projects</a></li><li><a href="/dashboard/groups">Groups</a></li><li><a href="/projects/new">New project</a></li><li><a href="/groups/new">New group</a></li>` : ''}
      <li><a href="/explore/projects">Explore</a></li>
      ${s.viewer?.is_admin ? html`<li><a href="/admin">Admin</a></li>` : ''}
    </ul>
  </nav>
  <div class="account">
    ${
      s.viewer
        ? html`<a href="${s.viewer.web_url}">${s.viewer.username}</a>
    <a href="/-/profile/personal_access_tokens">Access tokens</a>
    <form method="post" action="/users/sign_out" class="inline"><input type="hidden" name="authenticity_token" value="${s.csrf}"><button type="submit" class="link">Sign out</button></form>`
        : html`<a href="/users/sign_in">Sign in</a>`
    }
  </div>
</header>
<div class="frame${s.aside ? ' with-aside' : ''}">
  ${s.aside ?? ''}
  <main id="main" tabindex="-1">${s.body}</main>
</div>
</body>
</html>`.text
  );
}
