// A project's navigation: each entry names the section a page marks as current, and the least
// access that shows it (what the API would allow; the API still decides every read and write).
import { encodePath, html, type Html } from './html.js';

/** Access levels as the API reports them. */
export const GUEST = 10;
export const REPORTER = 20;
export const DEVELOPER = 30;
export const MAINTAINER = 40;
export const OWNER = 50;

interface NavEntry {
  section: string;
  label: string;
  /** After `/{project}/-/` ('' is the overview). */
  href: (project: any) => string;
  minAccess: number;
}

const ENTRIES: NavEntry[] = [
  { section: 'overview', label: 'Overview', href: () => '', minAccess: 0 },
  { section: 'activity', label: 'Activity', href: () => 'activity', minAccess: 0 },
  { section: 'files', label: 'Files', href: (p) => (p.default_branch ? `tree/${encodePath(p.default_branch)}` : 'tree'), minAccess: 0 },
  { section: 'commits', label: 'Commits', href: (p) => (p.default_branch ? `commits/${encodePath(p.default_branch)}` : 'commits'), minAccess: 0 },
  { section: 'branches', label: 'Branches', href: () => 'branches', minAccess: 0 },
  { section: 'pipelines', label: 'Pipelines', href: () => 'pipelines', minAccess: 0 },
  { section: 'members', label: 'Members', href: () => 'project_members', minAccess: 0 },
  { section: 'alerts', label: 'Alerts', href: () => 'alert_management', minAccess: DEVELOPER },
  { section: 'settings', label: 'Settings', href: () => 'settings/general', minAccess: MAINTAINER },
];

export function projectNav(project: any, access: number, current: string | undefined): Html {
  const base = `/${encodePath(project.path_with_namespace)}`;
  return html`<nav class="aside" aria-label="Project">
  <p class="aside-title">${project.namespace ? html`<a href="${namespacePath(project.namespace)}">${project.namespace.name}</a> / ` : ''}<a href="${base}">${project.name}</a></p>
  <ul>
    ${ENTRIES.filter((e) => access >= e.minAccess).map((e) => {
      const rest = e.href(project);
      const href = rest === '' ? base : `${base}/-/${rest}`;
      return html`<li><a href="${href}"${e.section === current ? html` aria-current="page"` : ''}>${e.label}</a></li>`;
    })}
  </ul>
</nav>`;
}

/** A namespace's page: a group's at /groups/<path>, a user's at /<username>. */
const namespacePath = (ns: { kind: string; full_path: string }): string => (ns.kind === 'group' ? `/groups/${encodePath(ns.full_path)}` : `/${encodePath(ns.full_path)}`);

/** The visitor's access level from the project's `permissions` (an administrator counts as owner). */
export function accessOf(project: any, isAdmin: boolean): number {
  if (isAdmin) return 50;
  const p = project.permissions;
  return Math.max(p?.project_access?.access_level ?? 0, p?.group_access?.access_level ?? 0);
}
