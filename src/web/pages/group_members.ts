// A group's members (`{group}/-/group_members`) and badges (`{group}/-/badges`): everyone who may
// see the group reads them; owners add, change and remove (the API decides each write).
import { encodePath, html, type Html } from '../html.js';
import { PageNotFound, SignInRequired, type PageContext, type Rendered } from '../page.js';
import { OWNER } from '../project_nav.js';
import { badgeFields, badgeImage } from '../views/badges.js';
import { addMemberForm, memberTable, type MemberSource } from './members.js';

/** The visitor's role in the group, direct or inherited (an administrator counts as owner): what
 * the page offers; the API still decides each write. */
export async function groupAccessOf(ctx: PageContext, group: any): Promise<number> {
  if (!ctx.viewer) return 0;
  if (ctx.viewer.is_admin) return OWNER;
  const m = await ctx.api.get(`/groups/${group.id}/members/all/${ctx.viewer.id}`);
  return m.status === 200 ? m.body.access_level : 0;
}

const crumbs = (group: any): Html => html`<p class="breadcrumbs"><a href="/groups/${encodePath(group.full_path)}">${group.full_name}</a></p>`;

export async function groupMembersPage(ctx: PageContext, group: any): Promise<Rendered> {
  const [all, direct, access] = await Promise.all([
    ctx.api.get(`/groups/${group.id}/members/all?per_page=100`),
    ctx.api.get(`/groups/${group.id}/members?per_page=100`),
    groupAccessOf(ctx, group),
  ]);
  if (all.status === 401) throw new SignInRequired();
  if (all.status !== 200) throw new PageNotFound();
  const directIds = new Set<number>((direct.status === 200 ? direct.body : []).map((m: any) => m.id));
  const canManage = access >= OWNER;
  const src: MemberSource = { api: `/groups/${group.id}/members`, name: group.name };
  return {
    title: `Members · ${group.full_name}`,
    body: html`${crumbs(group)}
<h1>Group members</h1>
${canManage ? addMemberForm(src, OWNER, 'Add to group') : ''}
${memberTable(src, all.body, directIds, canManage, access)}`,
  };
}

export async function groupBadgesPage(ctx: PageContext, group: any): Promise<Rendered> {
  const [list, access] = await Promise.all([ctx.api.get(`/groups/${group.id}/badges?per_page=100`), groupAccessOf(ctx, group)]);
  if (list.status === 401) throw new SignInRequired();
  if (list.status !== 200) throw new PageNotFound();
  const badges: any[] = list.body;
  const canManage = access >= OWNER;
  const api = `/groups/${group.id}/badges`;
  return {
    title: `Badges · ${group.full_name}`,
    body: html`${crumbs(group)}
<h1>Group badges</h1>
<p class="muted">A group's badges show on every project of the group.</p>
${
  badges.length === 0
    ? html`<p class="muted">This group has no badges.</p>`
    : html`<table>
  <caption class="visually-hidden">Badges of ${group.name}</caption>
  <thead><tr><th scope="col">Badge</th><th scope="col">Name</th><th scope="col">Link</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${badges.map(
    (b) => html`<tr>
    <td>${badgeImage(b)}</td>
    <td>${b.name ?? ''}</td>
    <td class="wrap mono">${b.link_url}</td>
    <td>${
      canManage
        ? html`<div data-action-scope><button type="button" class="danger" data-api="${api}/${b.id}" data-method="DELETE" data-confirm="Delete this badge?" data-saved="Badge deleted.">Delete<span class="visually-hidden"> badge ${b.name ?? b.id}</span></button></div>`
        : ''
    }</td>
  </tr>`,
  )}</tbody>
</table>`
}
${
  canManage
    ? html`<section class="panel" aria-labelledby="add-badge-title">
  <h2 id="add-badge-title">Add badge</h2>
  <form class="stack" data-api="${api}" data-method="POST" data-badge-preview="${api}/render" data-saved="Badge added." aria-label="Add badge">
    ${badgeFields('badge-new')}
    <p class="badge-preview" data-preview hidden><span>Preview: </span><a href="#"><img alt="Badge preview"></a></p>
    <button type="submit" class="primary">Add badge</button>
  </form>
</section>`
    : ''
}`,
  };
}
