// The instance's application settings, grouped as the reference's admin pages group them. Each
// group is its own form that sends only its fields with PUT /application/settings; the API checks
// every value (ranges, formats, settings that need another) and its refusal shows beside the form.
import { html, type Html } from '../html.js';
import type { SitePage } from '../page.js';
import { adminNav, mustGet, requireAdmin } from './admin.js';

type Field =
  | { name: string; label: string; kind: 'bool' | 'int' | 'text' | 'list' }
  | { name: string; label: string; kind: 'choice'; options: [string | number, string][] }
  | { name: string; label: string; kind: 'checks'; options: [string, string][] };

interface Group {
  id: string;
  title: string;
  fields: Field[];
}

const VISIBILITIES: [string, string][] = [
  ['private', 'Private'],
  ['internal', 'Internal'],
  ['public', 'Public'],
];

const GROUPS: Group[] = [
  {
    id: 'sign-up',
    title: 'Sign-up restrictions',
    fields: [
      { name: 'signup_enabled', label: 'Sign-up enabled', kind: 'bool' },
      { name: 'require_admin_approval_after_user_signup', label: 'Require admin approval for new sign-ups', kind: 'bool' },
      { name: 'domain_allowlist', label: 'Allowed domains for sign-ups (comma-separated)', kind: 'list' },
      { name: 'domain_denylist_enabled', label: 'Deny sign-ups from listed domains', kind: 'bool' },
      { name: 'domain_denylist', label: 'Denied domains for sign-ups (comma-separated)', kind: 'list' },
      { name: 'password_number_required', label: 'Passwords must contain a number', kind: 'bool' },
      { name: 'password_symbol_required', label: 'Passwords must contain a symbol', kind: 'bool' },
      { name: 'password_uppercase_required', label: 'Passwords must contain an uppercase letter', kind: 'bool' },
      { name: 'password_lowercase_required', label: 'Passwords must contain a lowercase letter', kind: 'bool' },
      { name: 'after_sign_up_text', label: 'Text shown after sign-up', kind: 'text' },
    ],
  },
  {
    id: 'sign-in',
    title: 'Sign-in restrictions',
    fields: [
      { name: 'password_authentication_enabled_for_web', label: 'Allow password authentication for the web interface', kind: 'bool' },
      { name: 'password_authentication_enabled_for_git', label: 'Allow password authentication for Git over HTTP(S)', kind: 'bool' },
      { name: 'session_expire_delay', label: 'Session duration (minutes)', kind: 'int' },
      { name: 'home_page_url', label: 'Home page URL', kind: 'text' },
      { name: 'after_sign_out_path', label: 'After sign-out path', kind: 'text' },
      { name: 'sign_in_text', label: 'Sign-in text', kind: 'text' },
    ],
  },
  {
    id: 'visibility',
    title: 'Visibility and access controls',
    fields: [
      { name: 'default_project_visibility', label: 'Default project visibility', kind: 'choice', options: VISIBILITIES },
      { name: 'default_group_visibility', label: 'Default group visibility', kind: 'choice', options: VISIBILITIES },
      { name: 'default_snippet_visibility', label: 'Default snippet visibility', kind: 'choice', options: VISIBILITIES },
      { name: 'restricted_visibility_levels', label: 'Restricted visibility levels (only administrators may use them)', kind: 'checks', options: VISIBILITIES },
      {
        name: 'default_branch_protection',
        label: 'Default branch protection',
        kind: 'choice',
        options: [
          [0, 'Not protected'],
          [1, 'Protected against pushes: developers may not push'],
          [2, 'Fully protected'],
        ],
      },
      {
        name: 'default_project_creation',
        label: 'Default project creation protection',
        kind: 'choice',
        options: [
          [0, 'No one'],
          [1, 'Maintainers'],
          [2, 'Developers and maintainers'],
        ],
      },
      { name: 'default_projects_limit', label: 'Default projects limit per user', kind: 'int' },
      {
        name: 'enabled_git_access_protocol',
        label: 'Enabled Git access protocols',
        kind: 'choice',
        options: [
          ['nil', 'Both SSH and HTTP(S)'],
          ['ssh', 'Only SSH'],
          ['http', 'Only HTTP(S)'],
        ],
      },
      { name: 'max_personal_access_token_lifetime', label: 'Maximum personal access token lifetime (days)', kind: 'int' },
    ],
  },
  {
    id: 'ci',
    title: 'Continuous integration and deployment',
    fields: [
      { name: 'auto_devops_enabled', label: 'Default to Auto DevOps pipeline for all projects', kind: 'bool' },
      { name: 'default_ci_config_path', label: 'Default CI configuration file', kind: 'text' },
      { name: 'default_artifacts_expire_in', label: 'Default artifacts expiration', kind: 'text' },
      { name: 'max_artifacts_size', label: 'Maximum artifacts size (MB)', kind: 'int' },
      { name: 'keep_latest_artifact', label: 'Keep the latest artifacts for all jobs in the latest successful pipelines', kind: 'bool' },
      { name: 'protected_ci_variables', label: 'Protect CI/CD variables by default', kind: 'bool' },
      { name: 'pipeline_limit_per_project_user_sha', label: 'Maximum pipeline requests per minute per project, user and commit', kind: 'int' },
    ],
  },
  {
    id: 'outbound',
    title: 'Outbound requests',
    fields: [
      { name: 'allow_local_requests_from_web_hooks_and_services', label: 'Allow requests to the local network from webhooks and integrations', kind: 'bool' },
      { name: 'allow_local_requests_from_system_hooks', label: 'Allow requests to the local network from system hooks', kind: 'bool' },
      { name: 'outbound_local_requests_whitelist', label: 'Local IP addresses and domain names that hooks and integrations can access (comma-separated)', kind: 'list' },
      { name: 'dns_rebinding_protection_enabled', label: 'Enforce DNS-rebinding attack protection', kind: 'bool' },
    ],
  },
  {
    id: 'import-export',
    title: 'Import and export settings',
    fields: [
      { name: 'project_export_enabled', label: 'Project export enabled', kind: 'bool' },
      {
        name: 'import_sources',
        label: 'Import sources',
        kind: 'checks',
        options: [
          ['github', 'GitHub'],
          ['bitbucket', 'Bitbucket Cloud'],
          ['bitbucket_server', 'Bitbucket Server'],
          ['gitlab', 'Another instance (by URL)'],
          ['fogbugz', 'FogBugz'],
          ['git', 'Repository by URL'],
          ['gitlab_project', 'Project export file'],
          ['gitea', 'Gitea'],
          ['manifest', 'Manifest file'],
          ['phabricator', 'Phabricator'],
        ],
      },
      { name: 'max_export_size', label: 'Maximum export size (MB, 0 for unlimited)', kind: 'int' },
      { name: 'max_import_size', label: 'Maximum import size (MB, 0 for unlimited)', kind: 'int' },
    ],
  },
];

function field(f: Field, value: any, group: string): Html {
  const id = `setting-${f.name}`;
  switch (f.kind) {
    case 'bool':
      return html`<label class="check"><input type="checkbox" name="${f.name}" id="${id}"${value ? html` checked` : ''}> ${f.label}</label>`;
    case 'int':
      return html`<label><span>${f.label}</span><input type="number" step="1" name="${f.name}" id="${id}" data-type="number" value="${value ?? ''}"></label>`;
    case 'text':
      return html`<label><span>${f.label}</span><input type="text" name="${f.name}" id="${id}" value="${value ?? ''}" data-send-empty></label>`;
    case 'list':
      // Sent as a one-item list that the API splits at commas (an empty field is then an empty list).
      return html`<label><span>${f.label}</span><input type="text" name="${f.name}[]" id="${id}" value="${Array.isArray(value) ? value.join(', ') : ''}"></label>`;
    case 'choice': {
      const numeric = typeof f.options[0][0] === 'number';
      // The API answers null for "both protocols"; the form sends the reference's 'nil' for it.
      const current = value === null && f.name === 'enabled_git_access_protocol' ? 'nil' : value;
      return html`<label><span>${f.label}</span><select name="${f.name}" id="${id}"${numeric ? html` data-type="number"` : ''}>
  ${f.options.map(([v, l]) => html`<option value="${v}"${v === current ? html` selected` : ''}>${l}</option>`)}
</select></label>`;
    }
    case 'checks': {
      const on = new Set(Array.isArray(value) ? value : []);
      return html`<fieldset><legend>${f.label}</legend>
  ${f.options.map(([v, l]) => html`<label class="check"><input type="checkbox" name="${f.name}[]" value="${v}" id="${group}-${f.name}-${v}"${on.has(v) ? html` checked` : ''}> ${l}</label>`)}
</fieldset>`;
    }
  }
}

export const adminSettingsPages: SitePage[] = [
  {
    path: '/admin/application_settings',
    async handler(ctx) {
      requireAdmin(ctx);
      const settings = (await mustGet(ctx, '/application/settings')).body;
      return {
        title: 'Settings · Admin area',
        aside: adminNav('settings'),
        body: html`<h1>Settings</h1>
<nav aria-label="Setting groups" class="toc"><ul>${GROUPS.map((g) => html`<li><a href="#${g.id}">${g.title}</a></li>`)}</ul></nav>
${GROUPS.map(
  (g) => html`<section class="panel" id="${g.id}" aria-labelledby="${g.id}-title">
  <h2 id="${g.id}-title">${g.title}</h2>
  <form class="stack" data-api="/application/settings" data-method="PUT" data-then="show">
    ${g.fields.map((f) => field(f, settings[f.name], g.id))}
    <button type="submit" class="primary">Save changes</button>
    <p data-result hidden role="status" class="saved">Settings saved.</p>
  </form>
</section>`,
)}`,
      };
    },
  },
];

