// The tabs above a project's settings pages. Each settings page passes its own `section` as
// current; the pages themselves live in their areas' modules.
import { encodePath, html, type Html } from '../html.js';

const TABS: { section: string; label: string; path: string }[] = [
  { section: 'general', label: 'General', path: 'settings/general' },
  { section: 'members', label: 'Members', path: 'project_members' },
  { section: 'repository', label: 'Repository', path: 'settings/repository' },
  { section: 'webhooks', label: 'Webhooks', path: 'hooks' },
  { section: 'ci_cd', label: 'CI/CD', path: 'settings/ci_cd' },
  { section: 'alerts', label: 'Alert integrations', path: 'settings/operations' },
  { section: 'runners', label: 'Runners', path: 'settings/ci_cd/runners' },
];

export function settingsTabs(project: any, current: string): Html {
  const base = `/${encodePath(project.path_with_namespace)}/-/`;
  return html`<nav class="tabs" aria-label="Settings">
  <ul>${TABS.map((t) => html`<li><a href="${base}${t.path}"${t.section === current ? html` aria-current="page"` : ''}>${t.label}</a></li>`)}</ul>
</nav>`;
}
