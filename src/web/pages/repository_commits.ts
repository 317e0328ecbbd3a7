// Commits of a ref (paged, filtered by path) and one commit: its message, parents, pipeline and diff.
import { pagerOf } from '../api.js';
import { html } from '../html.js';
import { PageNotFound, type ProjectPage, type ProjectPageContext } from '../page.js';
import { shortSha, statusBadge, when } from '../views/common.js';
import { diffViewOf, diffViewToggle, fileDiffs, type DiffLinks, type DiffView } from '../views/diff.js';
import { pagerLinks, sitePath } from '../views/lists.js';
import { projectBase, refsOf, refSwitcher, splitRef, viewUrl } from './repository_refs.js';
import { emptyRepositoryPage, isEmptyRepository } from './repository.js';
import { repositoryComparePages } from './repository_compare.js';

const PER_PAGE = 20;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

async function commitsPage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const refs = await refsOf(ctx);
  if (isEmptyRepository(refs)) return emptyRepositoryPage(ctx, 'commits');
  const split = splitRef(ctx.params['*'] || p.default_branch || '', refs);
  const ref = split.ref;
  const path = ctx.query.get('path') ?? split.path;
  const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
  const a = ref
    ? await ctx.api.get(`/projects/${p.id}/repository/commits?ref_name=${encodeURIComponent(ref)}&per_page=${PER_PAGE}&page=${page}${path ? `&path=${encodeURIComponent(path)}` : ''}`)
    : { status: 200, body: [], headers: {} };
  if (a.status !== 200) throw new PageNotFound();
  const commits: any[] = a.body;
  const base = viewUrl(p, 'commits', ref);
  const pageUrl = (n: number) => `${base}?${new URLSearchParams({ ...(path ? { path } : {}), page: String(n) })}`;
  return {
    title: `Commits · ${ref} · ${p.name_with_namespace}`,
    section: 'commits',
    body: html`<div class="toolbar">${ref ? refSwitcher(p, refs, ref, 'commits', path) : ''}</div>
<h1>Commits${path ? html` to <code>${path}</code>` : ''}</h1>
<form method="get" action="${base}" class="toolbar">
  <label>Filter by path <input type="text" name="path" value="${path}"></label>
  <button type="submit">Filter</button>
  ${path ? html`<a href="${base}">Clear</a>` : ''}
</form>
${
  commits.length === 0
    ? html`<p class="muted">No commits${path ? ' touch this path' : ''}.</p>`
    : html`<ol class="commit-list">${commits.map(
        (c) => html`<li>
    <a class="commit-title" href="${projectBase(p)}/-/commit/${c.id}">${c.title}</a>
    <span class="muted">${c.author_name} authored ${when(c.authored_date)}</span>
    <code class="sha">${shortSha(c.id)}</code>
    <a href="${viewUrl(p, 'tree', c.id)}" aria-label="Browse files at ${shortSha(c.id)}">Browse files</a>
  </li>`,
      )}</ol>`
}
${pagerLinks(pagerOf(a as any), pageUrl)}`,
  };
}

async function commitPage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const sha = ctx.params.sha;
  const a = await ctx.api.get(`/projects/${p.id}/repository/commits/${encodeURIComponent(sha)}`);
  if (a.status !== 200) throw new PageNotFound();
  const c = a.body;
  const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
  const [diffs, pipelines] = await Promise.all([
    ctx.api.get(`/projects/${p.id}/repository/commits/${c.id}/diff?per_page=50&page=${page}`),
    ctx.api.get(`/projects/${p.id}/pipelines?sha=${c.id}&per_page=1`),
  ]);
  const pipeline = pipelines.status === 200 ? pipelines.body[0] : undefined;
  const files: any[] = diffs.status === 200 ? diffs.body : [];
  const body = c.message.slice(c.message.indexOf('\n') + 1).trim();
  const view = diffViewOf(ctx.query);
  const fileNo = Number.parseInt(ctx.query.get('file') ?? '', 10);
  const only = fileNo >= 0 ? fileNo : null;
  const here = `${projectBase(p)}/-/commit/${c.id}`;
  const url = (o: { page?: number; view?: DiffView; file?: number }) => {
    const q = new URLSearchParams();
    if ((o.page ?? page) > 1) q.set('page', String(o.page ?? page));
    if ((o.view ?? view) !== 'inline') q.set('view', o.view ?? view);
    if (o.file !== undefined) q.set('file', String(o.file));
    return q.size ? `${here}?${q}` : here;
  };
  const links: DiffLinks = { fileOnly: (i) => `${url({ file: i })}#file-${i}`, blob: (d) => viewUrl(p, 'blob', d.deleted_file ? c.parent_ids[0] ?? c.id : c.id, d.deleted_file ? d.old_path : d.new_path) };
  return {
    title: `${c.title} · ${shortSha(c.id)} · ${p.name_with_namespace}`,
    section: 'commits',
    body: html`<p class="muted">Commit <code>${c.id}</code></p>
<h1>${c.title}</h1>
${body && c.message.includes('\n') ? html`<pre class="commit-message">${body}</pre>` : ''}
<dl class="facts">
  <dt>Author</dt><dd>${c.author_name} &lt;${c.author_email}&gt; &middot; ${when(c.authored_date)}</dd>
  ${c.committer_name !== c.author_name ? html`<dt>Committer</dt><dd>${c.committer_name} &middot; ${when(c.committed_date)}</dd>` : ''}
  <dt>Parents</dt><dd>${
    c.parent_ids.length === 0 ? html`<span class="muted">none (root commit)</span>` : c.parent_ids.map((id: string) => html`<a href="${projectBase(p)}/-/commit/${id}"><code>${shortSha(id)}</code></a> `)
  }</dd>
  <dt>Pipeline</dt><dd class="pipeline">${pipeline ? html`<a href="${sitePath(pipeline.web_url)}">${statusBadge(pipeline.status)} #${pipeline.id}</a>` : html`<span class="muted">none</span>`}</dd>
  ${c.stats ? html`<dt>Changes</dt><dd><span class="added">+${c.stats.additions}</span> <span class="removed">&minus;${c.stats.deletions}</span> in ${plural(Number(diffs.headers['x-total'] ?? files.length), 'file')}</dd>` : ''}
</dl>
<p><a class="button" href="${viewUrl(p, 'tree', c.id)}">Browse files</a></p>
<div class="toolbar"><h2>Changes</h2>${diffViewToggle(view, (v) => url({ view: v, ...(only !== null ? { file: only } : {}) }))}</div>
${only !== null ? html`<p><a href="${url({})}">Show all changed files</a></p>` : ''}
${await fileDiffs(files, view, links, only)}
${diffs.status === 200 ? pagerLinks(pagerOf(diffs), (n) => url({ page: n })) : ''}`,
  };
}

export const repositoryCommitPages: ProjectPage[] = [
  { path: 'commits', handler: commitsPage },
  { path: 'commits/*', handler: commitsPage },
  { path: 'commit/:sha', handler: commitPage },
  ...repositoryComparePages,
];
