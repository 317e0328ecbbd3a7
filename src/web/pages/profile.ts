// The signed-in user's personal access tokens: the active ones, a form that creates one and shows
// it once (the API never shows it again), and revoking.
import { ADMIN_ONLY_SCOPES, PAT_SCOPES } from '../../domain/tokens/scopes.js';
import { html } from '../html.js';
import { SignInRequired, type SitePage } from '../page.js';
import { when } from '../views/common.js';

/** What each scope allows, in the reference's words. */
const SCOPE_HELP: Record<string, string> = {
  api: 'Complete read and write access to the API, including all groups and projects.',
  read_api: 'Read access to the API, including all groups and projects.',
  read_user: 'Read-only access to your profile through the /user endpoint.',
  read_repository: 'Read-only access to repositories on private projects (Git over HTTP).',
  write_repository: 'Read and write access to repositories on private projects (Git over HTTP).',
  sudo: 'Perform API actions as any user in the system (administrators only).',
  admin_mode: 'Perform API actions as an administrator, when Admin Mode is enabled (administrators only).',
};

export const profilePages: SitePage[] = [
  {
    path: '/-/profile/personal_access_tokens',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      const a = await ctx.api.get(`/personal_access_tokens?user_id=${ctx.viewer.id}&state=active&per_page=100`);
      const tokens = a.status === 200 ? (a.body as any[]) : [];
      // The API refuses administrators' scopes to others; the form does not offer them.
      const scopes = PAT_SCOPES.filter((s) => ctx.viewer!.is_admin || !ADMIN_ONLY_SCOPES.includes(s));
      return {
        title: 'Personal access tokens',
        body: html`<h1>Personal access tokens</h1>
<p class="muted">A personal access token authenticates to the API (header <code>PRIVATE-TOKEN</code>) and to Git over HTTP.</p>
<section class="panel" aria-labelledby="new-token">
  <h2 id="new-token">Add a personal access token</h2>
  <form class="stack" data-api="/user/personal_access_tokens" data-method="POST" data-then="show">
    <label><span>Token name</span><input type="text" name="name" required autocomplete="off"></label>
    <label><span>Expiration date (optional)</span><input type="date" name="expires_at"></label>
    <fieldset><legend>Select scopes</legend>
      ${scopes.map(
        (s) => html`<label class="check"><input type="checkbox" name="scopes[]" value="${s}" aria-describedby="scope-${s}-help"> ${s}</label>
      <p class="help muted" id="scope-${s}-help">${SCOPE_HELP[s] ?? ''}</p>`,
      )}
    </fieldset>
    <button type="submit" class="primary">Create personal access token</button>
    <div data-result hidden class="panel new-token" role="status">
      <h3>Your new personal access token</h3>
      <p>Make sure you save it &mdash; you won't be able to access it again.</p>
      <label><span>New personal access token</span><input type="text" id="created-token" data-field="token" readonly class="mono"></label>
      <button type="button" data-copy="created-token">Copy token</button>
    </div>
  </form>
</section>
<h2>Active personal access tokens (${tokens.length})</h2>
${
  tokens.length === 0
    ? html`<p class="muted">This user has no active personal access tokens.</p>`
    : html`<table>
  <caption class="visually-hidden">Active personal access tokens</caption>
  <thead><tr><th scope="col">Token name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>
  ${tokens.map(
    (t) => html`<tr>
    <td>${t.name}</td>
    <td>${t.scopes.join(', ')}</td>
    <td>${when(t.created_at)}</td>
    <td>${t.last_used_at ? when(t.last_used_at) : html`<span class="muted">Never</span>`}</td>
    <td>${t.expires_at ?? html`<span class="muted">Never</span>`}</td>
    <td data-action-scope><button type="button" class="danger" data-api="/personal_access_tokens/${t.id}" data-method="DELETE" data-confirm="Revoke the token ${t.name}? Anything using it will stop working." aria-label="Revoke ${t.name}">Revoke</button></td>
  </tr>`,
  )}
  </tbody>
</table>`
}`,
      };
    },
  },
];
