// Branches with their protection, tags, and the protected branches settings (maintainers).
import { pagerOf } from '../api.js';
import { encodePath, html, type Html } from '../html.js';
import { PageNotFound, type ProjectPage, type ProjectPageContext } from '../page.js';
import { DEVELOPER } from '../project_nav.js';
import { shortSha, when } from '../views/common.js';
import { pagerLinks } from '../views/lists.js';
import { settingsTabs } from '../views/settings_nav.js';
import { compareUrl } from './repository_compare.js';
import { projectBase, refsOf, repoLinks, viewUrl } from './repository_refs.js';
import { renderMarkdown } from '../views/markdown.js';

const pageOf = (q: URLSearchParams): number => Math.max(1, Number.parseInt(q.get('page') ?? '1', 10) || 1);

/** Who a protected branch lets push or merge, in the reference's words (from the Branch entity's flags). */
const whoMay = (developersCan: boolean): string => (developersCan ? 'Developers + Maintainers' : 'Maintainers');

/** A branch's distance from the default branch: commits behind and ahead, the ahead ones a comparison away. */
function divergence(p: any, b: any, count: { ahead: number; behind: number } | undefined): Html {
  // the default branch is what the others are counted against (its own label says which it is)
  if (b.default || !count) return html`<span class="muted">&mdash;</span>`;
  return html`<span class="divergence" data-behind="${count.behind}" data-ahead="${count.ahead}"><span title="Commits on ${p.default_branch} that ${b.name} has not">${count.behind} behind</span> &middot; ${
    count.ahead > 0 ? html`<a href="${compareUrl(p, p.default_branch, b.name)}" title="Commits on ${b.name} that ${p.default_branch} has not">${count.ahead} ahead</a>` : html`<span>0 ahead</span>`
  }</span>`;
}

/** Pages that create a ref: below Developer the visitor is told why there is no form. */
function tooLow(what: string): Html {
  return html`<p class="flash" role="status">Creating ${what} needs at least the Developer role in this project.</p>`;
}

/** A ref to start from: any branch, tag or commit, with the names offered as suggestions. */
async function refPicker(ctx: ProjectPageContext, value: string): Promise<Html> {
  const refs = await refsOf(ctx);
  return html`<label><span>Create from</span><input type="text" name="ref" value="${value}" list="ref-names" required autocomplete="off" aria-describedby="ref-help"></label>
    <p id="ref-help" class="muted">A branch, a tag or a commit id.</p>
    <datalist id="ref-names">${refs.branches.map((b) => html`<option value="${b}">`)}${refs.tags.map((t) => html`<option value="${t}">`)}</datalist>`;
}

/** The New branch and New tag forms: a name, where from, and for a tag its message; developers and up. */
async function newRefPage(ctx: ProjectPageContext, kind: 'branch' | 'tag') {
  const p = ctx.project;
  const base = projectBase(p);
  const tag = kind === 'tag';
  const list = tag ? `${base}/-/tags` : `${base}/-/branches`;
  return {
    title: `New ${kind} · ${p.name_with_namespace}`,
    section: 'branches',
    body: html`<h1>New ${kind}</h1>
${
  ctx.access < DEVELOPER
    ? tooLow(`a ${kind}`)
    : html`<form class="stack panel" data-api="/projects/${p.id}/repository/${tag ? 'tags' : 'branches'}" data-method="POST" data-then="redirect:${tag ? list : `${base}/-/tree/{name}`}">
    ${tag
      ? html`<label><span>Tag name</span><input type="text" name="tag_name" required autocomplete="off" placeholder="v1.0.0"></label>`
      : html`<label><span>Branch name</span><input type="text" name="branch" required autocomplete="off"></label>`}
    ${await refPicker(ctx, ctx.query.get('ref') ?? p.default_branch ?? '')}
    ${tag
      ? html`<label><span>Message and release notes</span><textarea name="message" rows="6" aria-describedby="message-help"></textarea></label>
    <p id="message-help" class="muted">With a message the tag is annotated; the tags page shows it as the release notes (Markdown).</p>`
      : ''}
    <button type="submit" class="primary">Create ${kind}</button>
  </form>`
}
<p><a href="${list}">Back to ${tag ? 'tags' : 'branches'}</a></p>`,
  };
}

async function branchesPage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const page = pageOf(ctx.query);
  const search = ctx.query.get('search') ?? '';
  const a = await ctx.api.get(`/projects/${p.id}/repository/branches?per_page=20&page=${page}${search ? `&search=${encodeURIComponent(search)}` : ''}`);
  if (a.status !== 200) throw new PageNotFound();
  const branches: any[] = a.body;
  const canDelete = ctx.access >= DEVELOPER;
  const names = branches.filter((b) => !b.default).map((b) => `names[]=${encodeURIComponent(b.name)}`);
  const diverging = names.length ? await ctx.api.get(`/projects/${p.id}/repository/diverging_commit_counts?${names.join('&')}`) : null;
  const counts = new Map<string, { ahead: number; behind: number }>(diverging?.status === 200 ? Object.entries(diverging.body) : []);
  return {
    title: `Branches · ${p.name_with_namespace}`,
    section: 'branches',
    body: html`<div class="toolbar"><h1>Branches</h1><a href="${projectBase(p)}/-/tags">Tags</a> <a href="${projectBase(p)}/-/compare">Compare</a>
  ${canDelete ? html`<a class="button primary" href="${projectBase(p)}/-/branches/new">New branch</a>` : ''}</div>
<form method="get" class="toolbar" role="search">
  <label>Search branches <input type="text" name="search" value="${search}"></label>
  <button type="submit">Search</button>
</form>
${
  branches.length === 0
    ? html`<p class="muted">${search ? 'No branches match.' : 'The repository has no branches yet.'}</p>`
    : html`<table>
  <caption class="visually-hidden">Branches</caption>
  <thead><tr><th scope="col">Branch</th><th scope="col">Last commit</th><th scope="col">Behind / ahead of ${p.default_branch ?? 'the default branch'}</th><th scope="col">Protection</th>${canDelete ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead>
  <tbody>
  ${branches.map(
    (b) => html`<tr data-branch="${b.name}">
    <td><a href="${viewUrl(p, 'tree', b.name)}">${b.name}</a>
      ${b.default ? html` <span class="tag-label">default</span>` : ''}
      ${b.protected ? html` <span class="tag-label protected">protected</span>` : ''}
      ${b.merged ? html` <span class="tag-label merged">merged</span>` : ''}</td>
    <td><a href="${projectBase(p)}/-/commit/${b.commit.id}"><code>${shortSha(b.commit.id)}</code></a> ${b.commit.title}<br><span class="muted">${when(b.commit.committed_date)}</span></td>
    <td>${divergence(p, b, counts.get(b.name))}</td>
    <td>${
      b.protected
        ? html`Allowed to push: ${whoMay(b.developers_can_push)}<br>Allowed to merge: ${whoMay(b.developers_can_merge)}`
        : html`<span class="muted">Not protected</span>`
    }</td>
    ${
      canDelete
        ? html`<td data-action-scope>${
            b.default || b.protected
              ? ''
              : html`<button type="button" class="danger" data-api="/projects/${p.id}/repository/branches/${encodeURIComponent(b.name)}" data-method="DELETE" data-confirm="Delete branch ${b.name}? This cannot be undone." aria-label="Delete branch ${b.name}">Delete</button>`
          }</td>`
        : ''
    }
  </tr>`,
  )}
  </tbody>
</table>`
}
${pagerLinks(pagerOf(a), (n) => `${projectBase(p)}/-/branches?${new URLSearchParams({ ...(search ? { search } : {}), page: String(n) })}`)}`,
  };
}

async function tagsPage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const page = pageOf(ctx.query);
  const a = await ctx.api.get(`/projects/${p.id}/repository/tags?per_page=20&page=${page}`);
  if (a.status !== 200) throw new PageNotFound();
  const tags: any[] = a.body;
  return {
    title: `Tags · ${p.name_with_namespace}`,
    section: 'branches',
    body: html`<div class="toolbar"><h1>Tags</h1><a href="${projectBase(p)}/-/branches">Branches</a>
  ${ctx.access >= DEVELOPER ? html`<a class="button primary" href="${projectBase(p)}/-/tags/new">New tag</a>` : ''}</div>
${
  tags.length === 0
    ? html`<p class="muted">The repository has no tags yet.</p>`
    : html`<table>
  <caption class="visually-hidden">Tags</caption>
  <thead><tr><th scope="col">Tag</th><th scope="col">Commit</th><th scope="col">Release notes</th></tr></thead>
  <tbody>
  ${tags.map(
    (t) => html`<tr>
    <td><a href="${viewUrl(p, 'tree', t.name)}">${t.name}</a></td>
    <td>${t.commit ? html`<a href="${projectBase(p)}/-/commit/${t.commit.id}"><code>${shortSha(t.commit.id)}</code></a> ${t.commit.title}<br><span class="muted">${when(t.commit.committed_date)}</span>` : ''}</td>
    <td class="release-notes">${t.message ? renderMarkdown(t.message, repoLinks(p, t.name, '')) : html`<span class="muted">&mdash;</span>`}</td>
  </tr>`,
  )}
  </tbody>
</table>`
}
${pagerLinks(pagerOf(a), (n) => `${projectBase(p)}/-/tags?page=${n}`)}`,
  };
}

/** The levels a protected branch rule may give (the reference's choices in its settings form). */
const LEVELS: [number, string][] = [
  [30, 'Developers + Maintainers'],
  [40, 'Maintainers'],
  [0, 'No one'],
];

const levelSelect = (name: string, label: string, selected: number) =>
  html`<label><span>${label}</span><select name="${name}" data-type="number">${LEVELS.map(
    ([v, words]) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${words}</option>`,
  )}</select></label>`;

const levelWords = (levels: any[]): string => levels.map((l) => l.access_level_description).join(', ') || 'No one';

async function repositorySettingsPage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const [rules, branches] = await Promise.all([
    ctx.api.get(`/projects/${p.id}/protected_branches?per_page=100`),
    ctx.api.get(`/projects/${p.id}/repository/branches?per_page=100`),
  ]);
  // The API decides: who may not read the rules gets the 404 page.
  if (rules.status !== 200) throw new PageNotFound();
  const list: any[] = rules.body;
  return {
    title: `Repository settings · ${p.name_with_namespace}`,
    section: 'settings',
    body: html`<h1>Settings</h1>
${settingsTabs(p, 'repository')}
<section aria-labelledby="protect-title" class="panel">
  <h2 id="protect-title">Protect a branch</h2>
  <p class="muted">Keep stable branches secure: choose who may push and merge. A name with <code>*</code> protects every matching branch (e.g. <code>release/*</code>).</p>
  <form class="stack" data-api="/projects/${p.id}/protected_branches" data-method="POST" data-then="reload">
    <label><span>Branch</span><input type="text" name="name" list="branch-names" required autocomplete="off"></label>
    <datalist id="branch-names">${branches.status === 200 ? branches.body.map((b: any) => html`<option value="${b.name}">`) : ''}</datalist>
    ${levelSelect('merge_access_level', 'Allowed to merge', 40)}
    ${levelSelect('push_access_level', 'Allowed to push and merge', 40)}
    <label><input type="checkbox" name="allow_force_push"> Allowed to force push</label>
    <button type="submit" class="primary">Protect</button>
  </form>
</section>
<h2>Protected branches</h2>
${
  list.length === 0
    ? html`<p class="muted">No branch is protected.</p>`
    : html`<table>
  <caption class="visually-hidden">Protected branches</caption>
  <thead><tr><th scope="col">Branch</th><th scope="col">Allowed to merge</th><th scope="col">Allowed to push and merge</th><th scope="col">Allowed to force push</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>
  ${list.map(
    (r) => html`<tr data-protected="${r.name}">
    <td><code>${r.name}</code>${r.name === p.default_branch ? html` <span class="tag-label">default</span>` : ''}</td>
    <td>${levelWords(r.merge_access_levels)}</td>
    <td>${levelWords(r.push_access_levels)}</td>
    <td>${r.allow_force_push ? 'Yes' : 'No'}</td>
    <td data-action-scope><button type="button" class="danger" data-api="/projects/${p.id}/protected_branches/${encodeURIComponent(r.name)}" data-method="DELETE" data-confirm="Unprotect branch ${r.name}?" aria-label="Unprotect ${r.name}">Unprotect</button></td>
  </tr>`,
  )}
  </tbody>
</table>`
}`,
  };
}

export const repositoryBranchPages: ProjectPage[] = [
  { path: 'branches', handler: branchesPage },
  { path: 'tags', handler: tagsPage },
  { path: 'branches/new', handler: (ctx) => newRefPage(ctx, 'branch') },
  { path: 'tags/new', handler: (ctx) => newRefPage(ctx, 'tag') },
  { path: 'settings/repository', handler: repositorySettingsPage },
];
