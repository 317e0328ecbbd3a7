// Commits of a ref (paged, filtered by path) and one commit: its message, parents, pipeline and diff.
import { pagerOf } from '../api.js';
import { html, type Html } from '../html.js';
import { PageNotFound, type ProjectPage, type ProjectPageContext } from '../page.js';
import { shortSha, statusBadge, when } from '../views/common.js';
import { pagerLinks, sitePath } from '../views/lists.js';
import { projectBase, refsOf, refSwitcher, splitRef, viewUrl } from './repository_refs.js';
import { emptyRepositoryPage, isEmptyRepository } from './repository.js';

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

/** One file's patch as a table of lines: old and new line numbers, +/- marks and colours. */
function diffTable(patch: string): Html {
  const rows: Html[] = [];
  let oldNo = 0;
  let newNo = 0;
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      rows.push(html`<tr class="hunk"><td class="ln"></td><td class="ln"></td><td class="dc">${line}</td></tr>`);
    } else if (line.startsWith('+')) {
      rows.push(html`<tr class="add"><td class="ln"></td><td class="ln">${newNo++}</td><td class="dc"><span class="mark">+</span>${line.slice(1)}</td></tr>`);
    } else if (line.startsWith('-')) {
      rows.push(html`<tr class="del"><td class="ln">${oldNo++}</td><td class="ln"></td><td class="dc"><span class="mark">-</span>${line.slice(1)}</td></tr>`);
    } else if (line.startsWith('\\')) {
      rows.push(html`<tr class="note"><td class="ln"></td><td class="ln"></td><td class="dc">${line}</td></tr>`);
    } else {
      rows.push(html`<tr><td class="ln">${oldNo++}</td><td class="ln">${newNo++}</td><td class="dc"><span class="mark"> </span>${line.slice(1)}</td></tr>`);
    }
  }
  return html`<table class="diff"><caption class="visually-hidden">Changed lines</caption>
<thead class="visually-hidden"><tr><th scope="col">Old line</th><th scope="col">New line</th><th scope="col">Content</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function fileDiff(d: any, i: number): Html {
  const what = d.new_file ? 'added' : d.deleted_file ? 'deleted' : d.renamed_file ? `renamed from ${d.old_path}` : 'modified';
  const added = d.diff.split('\n').filter((l: string) => l.startsWith('+')).length;
  const removed = d.diff.split('\n').filter((l: string) => l.startsWith('-')).length;
  return html`<section class="file-diff" aria-labelledby="diff-${i}">
  <h3 id="diff-${i}"><code>${d.new_path}</code> <span class="muted">${what}</span>
    <span class="counts"><span class="added">+${added}</span> <span class="removed">&minus;${removed}</span></span></h3>
  ${d.diff ? diffTable(d.diff) : html`<p class="muted">${d.renamed_file && !d.diff ? 'File moved without changes.' : 'Binary file or a diff too large to show.'}</p>`}
</section>`;
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
<h2>Changes</h2>
${files.length ? files.map((d, i) => fileDiff(d, i)) : html`<p class="muted">No changes.</p>`}
${diffs.status === 200 ? pagerLinks(pagerOf(diffs), (n) => `${projectBase(p)}/-/commit/${c.id}?page=${n}`) : ''}`,
  };
}

export const repositoryCommitPages: ProjectPage[] = [
  { path: 'commits', handler: commitsPage },
  { path: 'commits/*', handler: commitsPage },
  { path: 'commit/:sha', handler: commitPage },
];
