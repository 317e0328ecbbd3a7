// Compare two refs: a form with two ref pickers (`/-/compare`), and `/-/compare/from...to` with the
// commits `to` has that `from` has not and the diff from their merge base, through the compare API.
import { encodePath, html, type Html } from '../html.js';
import { PageNotFound, SENT, type ProjectPage, type ProjectPageContext } from '../page.js';
import { shortSha, when } from '../views/common.js';
import { diffViewOf, diffViewToggle, fileDiffs, type DiffView } from '../views/diff.js';
import { projectBase, refsOf, viewUrl, type Refs } from './repository_refs.js';
import { emptyRepositoryPage, isEmptyRepository } from './repository.js';

/** Commits a comparison lists on the page (the API gives up to 1,000). */
const SHOWN_COMMITS = 100;

export const compareUrl = (project: any, from: string, to: string): string => `${projectBase(project)}/-/compare/${encodePath(from)}...${encodePath(to)}`;

function compareForm(p: any, refs: Refs, from: string, to: string): Html {
  const picker = (name: string, label: string, value: string) =>
    html`<label><span>${label}</span><input type="text" name="${name}" value="${value}" list="compare-refs" required autocomplete="off"></label>`;
  return html`<form method="get" action="${projectBase(p)}/-/compare" class="toolbar compare-form">
  ${picker('from', 'Source (base)', from)}
  <span aria-hidden="true">...</span>
  ${picker('to', 'Target (compared)', to)}
  <datalist id="compare-refs">${refs.branches.map((b) => html`<option value="${b}">`)}${refs.tags.map((t) => html`<option value="${t}">`)}</datalist>
  <button type="submit" class="primary">Compare</button>
</form>`;
}

async function comparePage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const refs = await refsOf(ctx);
  if (isEmptyRepository(refs)) return emptyRepositoryPage(ctx, 'commits');
  const from = ctx.query.get('from')?.trim();
  const to = ctx.query.get('to')?.trim();
  // the form's answer: to the comparison's own address
  if (from && to) {
    ctx.reply.redirect(compareUrl(p, from, to), 302);
    return SENT;
  }
  const other = refs.branches.find((b) => b !== p.default_branch);
  return {
    title: `Compare · ${p.name_with_namespace}`,
    section: 'branches',
    body: html`<h1>Compare revisions</h1>
<p class="muted">Pick a branch, tag or commit for each side: the comparison lists the commits of the target that the source has not, and their changes.</p>
${compareForm(p, refs, p.default_branch ?? '', other ?? '')}`,
  };
}

async function comparisonPage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const spec = ctx.params['*'] ?? '';
  const cut = spec.indexOf('...');
  if (cut <= 0 || cut + 3 >= spec.length) throw new PageNotFound();
  const from = spec.slice(0, cut);
  const to = spec.slice(cut + 3);
  const [refs, a] = await Promise.all([refsOf(ctx), ctx.api.get(`/projects/${p.id}/repository/compare?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)]);
  const here = compareUrl(p, from, to);
  const form = compareForm(p, refs, from, to);
  if (a.status === 404 && a.body?.message === '404 Ref Not Found') {
    return {
      title: `Compare · ${p.name_with_namespace}`,
      section: 'branches',
      status: 404,
      body: html`<h1>Compare revisions</h1>${form}<p class="flash error" role="alert">No branch, tag or commit is called ${refs.branches.includes(from) || refs.tags.includes(from) ? to : from}.</p>`,
    };
  }
  if (a.status !== 200) throw new PageNotFound();
  const cmp = a.body;
  const commits: any[] = cmp.commits;
  const view = diffViewOf(ctx.query);
  const fileNo = Number.parseInt(ctx.query.get('file') ?? '', 10);
  const only = fileNo >= 0 ? fileNo : null;
  const url = (o: { view?: DiffView; file?: number }) => {
    const q = new URLSearchParams();
    if ((o.view ?? view) !== 'inline') q.set('view', o.view ?? view);
    if (o.file !== undefined) q.set('file', String(o.file));
    return q.size ? `${here}?${q}` : here;
  };
  const newest = commits.at(-1)?.id ?? to;
  return {
    title: `${from}...${to} · Compare · ${p.name_with_namespace}`,
    section: 'branches',
    body: html`<h1>Compare <code>${from}</code>...<code>${to}</code></h1>
${form}
${
  cmp.compare_same_ref
    ? html`<p class="muted">These are the same revision: there is nothing to compare.</p>`
    : html`<h2>Commits <span class="muted">(${commits.length})</span></h2>
${
  commits.length === 0
    ? html`<p class="muted"><code>${to}</code> has no commits that <code>${from}</code> has not.</p>`
    : html`<ol class="commit-list">${commits
        .slice(-SHOWN_COMMITS)
        .reverse()
        .map(
          (c) => html`<li>
    <a class="commit-title" href="${projectBase(p)}/-/commit/${c.id}">${c.title}</a>
    <span class="muted">${c.author_name} authored ${when(c.authored_date)}</span>
    <code class="sha">${shortSha(c.id)}</code>
  </li>`,
        )}</ol>${commits.length > SHOWN_COMMITS ? html`<p class="muted">and ${commits.length - SHOWN_COMMITS} older commits.</p>` : ''}`
}
<div class="toolbar"><h2>Changes <span class="muted">(${cmp.diffs.length} ${cmp.diffs.length === 1 ? 'file' : 'files'})</span></h2>${diffViewToggle(view, (v) => url({ view: v, ...(only !== null ? { file: only } : {}) }))}</div>
${only !== null ? html`<p><a href="${url({})}">Show all changed files</a></p>` : ''}
${await fileDiffs(cmp.diffs, view, { fileOnly: (i) => `${url({ file: i })}#file-${i}`, blob: (d) => viewUrl(p, 'blob', d.deleted_file ? from : newest, d.deleted_file ? d.old_path : d.new_path) }, only)}`
}`,
  };
}

export const repositoryComparePages: ProjectPage[] = [
  { path: 'compare', handler: comparePage },
  { path: 'compare/*', handler: comparisonPage },
];
