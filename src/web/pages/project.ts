// A project's overview: what it is, its badges and languages, how to clone it, its last commit
// and the README of the default branch.
import { html, type Html } from '../html.js';
import type { ProjectPage, ProjectPageContext } from '../page.js';
import { avatar, shortSha, when } from '../views/common.js';
import { sitePath } from '../views/lists.js';
import { emptyRepositoryHelp, readmeOf, readmeSection } from './repository.js';
import { projectBase, viewUrl } from './repository_refs.js';

/** Distinct fills for the language bar (the labels beside it carry the words). */
const LANGUAGE_COLOURS = ['#3572a5', '#e3a21a', '#2b7489', '#b5473a', '#6a4c93', '#2e8b57', '#c2185b', '#5d6d7e'];

function languagesBar(langs: Record<string, number>): Html {
  const entries = Object.entries(langs).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return html``;
  const colour = (i: number) => LANGUAGE_COLOURS[i % LANGUAGE_COLOURS.length];
  return html`<section aria-labelledby="languages-title">
  <h2 id="languages-title">Languages</h2>
  <div class="language-bar" aria-hidden="true">${entries.map(([, pct], i) => html`<span style="width:${pct}%;background:${colour(i)}"></span>`)}</div>
  <ul class="language-list">${entries.map(
    ([name, pct], i) => html`<li><span class="swatch" style="background:${colour(i)}" aria-hidden="true"></span>${name} <span class="muted">${pct}%</span></li>`,
  )}</ul>
</section>`;
}

/** A badge's URLs are the project's own (relative to this site) or http(s) elsewhere; anything else is left out. */
const httpUrl = (u: unknown): string | null => {
  if (typeof u !== 'string') return null;
  try {
    const url = new URL(u);
    return url.protocol === 'http:' || url.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
};

function badgesRow(badges: any[]): Html {
  const shown = badges.filter((b) => httpUrl(b.rendered_image_url));
  if (shown.length === 0) return html``;
  return html`<ul class="badges" aria-label="Badges">${shown.map((b) => {
    const img = html`<img src="${httpUrl(b.rendered_image_url)}" alt="${b.name || 'badge'}" referrerpolicy="no-referrer">`;
    const link = httpUrl(b.rendered_link_url);
    return html`<li>${link ? html`<a href="${link}" rel="nofollow noopener noreferrer">${img}</a>` : img}</li>`;
  })}</ul>`;
}

/** Star (or unstar) with the count, and Fork: for those signed in; the count for everyone. */
function projectActions(ctx: ProjectPageContext, hasStarred: boolean): Html {
  const p = ctx.project;
  const stars = html`<span class="count">${p.star_count}<span class="visually-hidden"> star${p.star_count === 1 ? '' : 's'}</span></span>`;
  if (!ctx.viewer) return html`<p class="project-actions muted">${p.star_count} star${p.star_count === 1 ? '' : 's'}</p>`;
  return html`<div class="project-actions" data-action-scope>
  <button type="button" data-api="/projects/${p.id}/${hasStarred ? 'unstar' : 'star'}" data-method="POST" data-saved="${hasStarred ? 'Unstarred.' : 'Starred.'}" aria-pressed="${hasStarred ? 'true' : 'false'}">${hasStarred ? 'Unstar' : 'Star'}</button> ${stars}
  <a class="button" href="${projectBase(p)}/-/forks/new">Fork</a> <span class="count">${p.forks_count ?? 0}<span class="visually-hidden"> forks</span></span>
</div>`;
}

async function overview(ctx: ProjectPageContext) {
  const p = ctx.project;
  const ref: string | null = p.default_branch;
  const api = ctx.api;
  const [badges, languages, last, tree, starred] = await Promise.all([
    api.get(`/projects/${p.id}/badges`),
    api.get(`/projects/${p.id}/languages`),
    ref ? api.get(`/projects/${p.id}/repository/commits/${encodeURIComponent(ref)}?stats=false`) : null,
    ref ? api.get(`/projects/${p.id}/repository/tree?ref=${encodeURIComponent(ref)}&per_page=100`) : null,
    ctx.viewer ? api.get(`/projects/${p.id}/starrers?search=${encodeURIComponent(ctx.viewer.username)}`) : null,
  ]);
  const hasStarred = starred?.status === 200 && (starred.body as any[]).some((s) => s.user?.id === ctx.viewer?.id);
  const commit = last?.status === 200 ? last.body : null;
  // A default branch that has no commit yet (an empty repository) has nothing to browse.
  const browsable = ref && commit ? ref : null;
  // The simple form a visitor gets has no visibility; what a visitor can read is public.
  const visibility: string | null = p.visibility ?? (ctx.viewer ? null : 'public');
  const readme = ref && tree?.status === 200 ? readmeOf(tree.body) : undefined;
  const readmeHtml = readme && ref ? await readmeSection(ctx, ref, readme) : null;
  return {
    title: p.name_with_namespace,
    section: 'overview',
    body: html`<div class="toolbar">${avatar(p.avatar_url && sitePath(p.avatar_url), p.name, 'large')}<h1>${p.name}</h1>${projectActions(ctx, hasStarred)}</div>
${p.description ? html`<p class="description">${p.description}</p>` : ''}
${badges.status === 200 ? badgesRow(badges.body) : ''}
<dl class="facts">
  <dt>Project ID</dt><dd>${p.id}</dd>
  ${visibility ? html`<dt>Visibility</dt><dd>${visibility}</dd>` : ''}
  <dt>Default branch</dt><dd>${browsable ? html`<a href="${viewUrl(p, 'tree', browsable)}">${browsable}</a>` : ref ? html`${ref} <span class="muted">(no commits yet)</span>` : html`<span class="muted">none</span>`}</dd>
  <dt>Last activity</dt><dd>${when(p.last_activity_at)}</dd>
</dl>
${
  commit
    ? html`<p class="last-commit">Last commit: <a href="${projectBase(p)}/-/commit/${commit.id}">${commit.title}</a>
  <span class="muted">&middot; ${commit.author_name} &middot; ${when(commit.committed_date)} &middot;</span> <code>${shortSha(commit.id)}</code></p>`
    : ''
}
<section class="panel" aria-labelledby="clone-title">
  <h2 id="clone-title">Clone</h2>
  <div class="clone-row">
    <label for="clone-ssh">Clone with SSH</label>
    <input type="text" id="clone-ssh" readonly value="${p.ssh_url_to_repo}">
    <button type="button" data-copy="clone-ssh">Copy URL</button>
  </div>
  <div class="clone-row">
    <label for="clone-http">Clone with HTTP</label>
    <input type="text" id="clone-http" readonly value="${p.http_url_to_repo}">
    <button type="button" data-copy="clone-http">Copy URL</button>
  </div>
</section>
${languages.status === 200 ? languagesBar(languages.body) : ''}
<p class="toolbar">
  ${browsable ? html`<a class="button" href="${viewUrl(p, 'tree', browsable)}">Browse files</a> <a class="button" href="${viewUrl(p, 'commits', browsable)}">Commits</a>` : ''}
  <a class="button" href="${projectBase(p)}/-/branches">Branches</a>
  <a class="button" href="${sitePath(p.web_url)}/-/pipelines">Pipelines</a>
</p>
${browsable ? (readmeHtml ?? html`<p class="muted">No README in the default branch.</p>`) : emptyRepositoryHelp(p, ref ?? 'main')}`,
  };
}

export const projectOverviewPages: ProjectPage[] = [{ path: '', handler: overview }];
