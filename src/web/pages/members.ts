// A project's members: everyone the API lists to the visitor (direct and inherited from groups);
// maintainers add (user search, role, expiry), change and remove direct members.
import { html, type Html } from '../html.js';
import { MAINTAINER, OWNER } from '../project_nav.js';
import { PageNotFound, SignInRequired, type ProjectPage } from '../page.js';
import { settingsTabs } from '../views/settings_nav.js';
import { sitePath } from '../views/lists.js';

const ROLES: [number, string][] = [
  [10, 'Guest'],
  [20, 'Reporter'],
  [30, 'Developer'],
  [40, 'Maintainer'],
  [50, 'Owner'],
];

const roleName = (level: number): string => ROLES.find(([l]) => l === level)?.[1] ?? String(level);

/** The roles a visitor may give: a maintainer up to maintainer, an owner any. */
function roleSelect(id: string, label: string, current: number, access: number): Html {
  // label[for], not a wrapping label: a wrapped select's name would include its chosen option
  return html`<label for="${id}"><span>${label}</span></label><select name="access_level" id="${id}" data-type="number">${ROLES.filter(([l]) => l <= access || l === current).map(
    ([l, n]) => html`<option value="${l}"${l === current ? html` selected` : ''}>${n}</option>`,
  )}</select>`;
}

/** Whose members a table lists: the API path of their members and the name a removal names. */
export interface MemberSource {
  api: string;
  name: string;
}

function memberRow(src: MemberSource, m: any, direct: boolean, canManage: boolean, access: number): Html {
  const api = `${src.api}/${m.id}`;
  return html`<tr>
  <td><a href="${sitePath(m.web_url)}">${m.name}</a><br><span class="muted">@${m.username}</span></td>
  <td>${direct ? 'Direct member' : 'Inherited from a group'}</td>
  <td>${
    canManage && direct
      ? html`<form class="row-form" data-api="${api}" data-method="PUT" aria-label="Membership of ${m.username}" data-saved="Role of ${m.username} saved.">
      <span>${roleSelect(`role-${m.id}`, `Role of ${m.username}`, m.access_level, access)}</span>
      <label><span>Expires on</span><input type="date" name="expires_at" value="${m.expires_at ?? ''}" aria-label="Access of ${m.username} expires on"></label>
      <button type="submit">Save</button>
    </form>`
      : html`${roleName(m.access_level)}${m.expires_at ? html`<br><span class="muted">until ${m.expires_at}</span>` : ''}`
  }</td>
  <td>${
    canManage && direct
      ? html`<div data-action-scope><button type="button" class="danger" data-api="${api}" data-method="DELETE" data-confirm="Remove ${m.username} from ${src.name}?" data-saved="${m.username} removed.">Remove<span class="visually-hidden"> ${m.username}</span></button></div>`
      : ''
  }</td>
</tr>`;
}

/** The members table; managers change roles and expiry of direct members and remove them. */
export function memberTable(src: MemberSource, members: any[], directIds: Set<number>, canManage: boolean, access: number): Html {
  return html`<h2>Members <span class="count">${members.length}</span></h2>
<table>
  <caption class="visually-hidden">Members of ${src.name}</caption>
  <thead><tr><th scope="col">Member</th><th scope="col">Source</th><th scope="col">Role</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${members.map((m) => memberRow(src, m, directIds.has(m.id), canManage, access))}</tbody>
</table>`;
}

/** Adding a member: the user picker (client/settings.ts), a role up to the visitor's own, an expiry. */
export function addMemberForm(src: MemberSource, access: number, button: string): Html {
  return html`<section class="panel" aria-labelledby="invite-title">
  <h2 id="invite-title">Add a member</h2>
  <form class="stack" data-api="${src.api}" data-method="POST" data-saved="Member added.">
    <label><span>Search users</span><input type="text" data-user-search="member-user" autocomplete="off" placeholder="Name or username"></label>
    <label for="member-user"><span>User</span></label><select name="user_id" id="member-user" data-type="number" required><option value="">Type in the search box to find users</option></select>
    ${roleSelect('member-role', 'Role', 30, access)}
    <label><span>Access expiration date (optional)</span><input type="date" name="expires_at"></label>
    <button type="submit" class="primary">${button}</button>
  </form>
</section>`;
}

export const memberPages: ProjectPage[] = [
  {
    path: 'project_members',
    async handler(ctx) {
      const p = ctx.project;
      const [all, direct] = await Promise.all([ctx.api.get(`/projects/${p.id}/members/all?per_page=100`), ctx.api.get(`/projects/${p.id}/members?per_page=100`)]);
      if (all.status === 401) throw new SignInRequired();
      if (all.status !== 200) throw new PageNotFound();
      const directIds = new Set<number>((direct.status === 200 ? direct.body : []).map((m: any) => m.id));
      const canManage = ctx.access >= MAINTAINER;
      const members: any[] = all.body;
      const src: MemberSource = { api: `/projects/${p.id}/members`, name: p.name };
      return {
        title: `Members · ${p.name_with_namespace}`,
        section: 'members',
        body: html`<h1>Project members</h1>
${canManage ? settingsTabs(p, 'members') : ''}
${canManage ? addMemberForm(src, ctx.access >= OWNER ? OWNER : MAINTAINER, 'Add to project') : ''}
${memberTable(src, members, directIds, canManage, ctx.access)}`,
      };
    },
  },
];
