// The repository's files: the tree of a directory, a file (text with line anchors, Markdown
// rendered, images, or a download link) and its raw bytes. Refs may hold slashes (repository_refs.ts).
import { presentCommit } from '../../api/repository/present.js';
import { treeLastCommits } from '../../domain/repository/tree.js';
import { pagerOf } from '../api.js';
import { encodePath, html, raw, type Html } from '../html.js';
import { NOT_FOUND, PageNotFound, SENT, sendJson, unlessHidden, type PageOutcome, type ProjectPage, type ProjectPageContext } from '../page.js';
import { pagerLinks } from '../views/lists.js';
import { shortSha, when } from '../views/common.js';
import { highlightLines } from '../views/highlight.js';
import { renderMarkdown } from '../views/markdown.js';
import { breadcrumbs, fileApi, projectBase, refsOf, refSwitcher, repoLinks, splitRef, viewUrl, type Refs } from './repository_refs.js';

/** Larger files are offered as a download instead of being shown. */
const SHOW_LIMIT = 1024 * 1024;
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  svg: 'image/svg+xml',
};
const extOf = (path: string): string => /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
export const isMarkdown = (path: string): boolean => ['md', 'markdown', 'mdown', 'mkd'].includes(extOf(path));
/** git's test: a NUL in the first 8000 bytes. */
const looksBinary = (b: Buffer): boolean => b.subarray(0, 8000).includes(0);

/** The README among a directory's entries, Markdown first (as the reference picks it). */
export function readmeOf(entries: any[]): any | undefined {
  const readmes = entries.filter((e) => e.type === 'blob' && /^readme(\.[^.]+)?$/i.test(e.name));
  return readmes.find((e) => isMarkdown(e.name)) ?? readmes[0];
}

/** A README file's content, rendered (Markdown) or as text; null when it cannot be read. */
export async function readmeSection(ctx: ProjectPageContext, ref: string, entry: any): Promise<Html | null> {
  const a = await ctx.api.get(`${fileApi(ctx.project, entry.path)}/raw?ref=${encodeURIComponent(ref)}`);
  if (a.status !== 200 || looksBinary(a.bytes) || a.bytes.length > SHOW_LIMIT) return null;
  const dir = entry.path.includes('/') ? entry.path.slice(0, entry.path.lastIndexOf('/')) : '';
  const body = isMarkdown(entry.name) ? renderMarkdown(a.bytes.toString('utf8'), repoLinks(ctx.project, ref, dir)) : html`<pre class="plain">${a.bytes.toString('utf8')}</pre>`;
  return html`<section class="panel readme" aria-labelledby="readme-title">
  <h2 id="readme-title"><a href="${viewUrl(ctx.project, 'blob', ref, entry.path)}">${entry.name}</a></h2>
  ${body}
</section>`;
}

/** A commit's line above a tree or a file: its title, author, date, id, and the history of `path`. */
function commitLine(ctx: ProjectPageContext, c: any, ref: string, path: string): Html {
  return html`<p class="last-commit"><a href="${projectBase(ctx.project)}/-/commit/${c.id}">${c.title}</a>
  <span class="muted">&middot; ${c.author_name} &middot; ${when(c.committed_date)} &middot;</span> <code>${shortSha(c.id)}</code>
  <a href="${viewUrl(ctx.project, 'commits', ref, path)}">History</a></p>`;
}

/** The newest commit of `ref` that touched `path` (the whole ref when path is empty). */
async function lastCommitLine(ctx: ProjectPageContext, ref: string, path: string): Promise<Html> {
  const a = await ctx.api.get(`/projects/${ctx.project.id}/repository/commits?ref_name=${encodeURIComponent(ref)}&per_page=1${path ? `&path=${encodeURIComponent(path)}` : ''}`);
  const c = a.status === 200 ? a.body[0] : undefined;
  return c ? commitLine(ctx, c, ref, path) : html``;
}

/** A file's last commit, which the file's answer names (one lookup, no second walk of the history). */
async function fileCommitLine(ctx: ProjectPageContext, f: any, ref: string): Promise<Html> {
  const a = await ctx.api.get(`/projects/${ctx.project.id}/repository/commits/${f.last_commit_id}?stats=false`);
  return a.status === 200 ? commitLine(ctx, a.body, ref, f.file_path) : html``;
}

/** Entries on a page of the tree; each row's last commit is filled in by the page's script (client/tree_commits.ts). */
const PER_PAGE = 100;

async function treePage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const refs = await refsOf(ctx);
  if (isEmptyRepository(refs)) return emptyRepositoryPage(ctx, 'files');
  const { ref, path } = splitRef(ctx.params['*'] || p.default_branch, refs);
  const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
  const a = await ctx.api.get(`/projects/${p.id}/repository/tree?ref=${encodeURIComponent(ref)}&path=${encodeURIComponent(path)}&per_page=${PER_PAGE}&page=${page}`);
  if (a.status !== 200) throw new PageNotFound();
  const entries: any[] = a.body;
  const readme = page === 1 ? readmeOf(entries) : undefined;
  const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  return {
    title: `${path || 'Files'} · ${ref} · ${p.name_with_namespace}`,
    section: 'files',
    body: html`<div class="toolbar">${refSwitcher(p, refs, ref, 'tree', path)}${breadcrumbs(p, ref, path)}</div>
<h1 class="visually-hidden">Files${path ? ` in ${path}` : ''}</h1>
${await lastCommitLine(ctx, ref, path)}
<table class="tree" data-logs-tree="${projectBase(p)}/-/refs/${encodePath(ref)}/logs_tree/${encodePath(path)}" data-offset="${(page - 1) * PER_PAGE}">
  <caption class="visually-hidden">Files and directories</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Last commit</th><th scope="col">Last update</th></tr></thead>
  <tbody>
  ${path ? html`<tr class="parent"><td><a href="${viewUrl(p, 'tree', ref, parent)}">..</a></td><td class="muted">parent directory</td><td></td><td></td></tr>` : ''}
  ${entries.map(
    (e) => html`<tr><td>${entryIcon(e.type)}
    ${e.type === 'commit' ? e.name : html`<a href="${viewUrl(p, e.type === 'tree' ? 'tree' : 'blob', ref, e.path)}">${e.name}</a>`}</td>
    <td class="muted">${e.type === 'tree' ? 'directory' : e.type === 'commit' ? 'submodule' : 'file'}</td><td></td><td></td></tr>`,
  )}
  </tbody>
</table>
${pagerLinks(pagerOf(a), (n) => `${viewUrl(p, 'tree', ref, path)}?page=${n}`)}
${readme ? ((await readmeSection(ctx, ref, readme)) ?? '') : ''}`,
  };
}

/**
 * `/-/refs/<ref>/logs_tree/<path>?format=json&offset=N`: the last commit of 25 entries of a
 * directory from `offset` on (the reference's route and shape; a `More-Logs-Offset` header when
 * more follow). The tree page's script fills its rows from it. It is no REST endpoint, so the
 * domain answers it here, as the visitor, with the tree API's access and 404s.
 */
async function logsTree(ctx: ProjectPageContext): Promise<PageOutcome> {
  const m = /^(.+?)\/logs_tree(?:\/(.*))?$/s.exec(ctx.params['*'] ?? '');
  if (!m || ctx.query.get('format') !== 'json') throw new PageNotFound();
  const p = ctx.project;
  const input = { ref: m[1], path: (m[2] ?? '').replace(/^\/+|\/+$/g, ''), offset: Number.parseInt(ctx.query.get('offset') ?? '0', 10) || 0 };
  const summary = await unlessHidden(treeLastCommits(ctx.c, await ctx.actor(), p.id, input));
  // the project is the visitor's to see (routes.ts found it): what is not there is a 404, signed in or not
  if (!summary) return sendJson(ctx.reply, 404, NOT_FOUND);
  const rows = summary.items.map(({ entry, last }) => {
    const commit = last && { ...presentCommit(ctx.c, last), message: truncateBytes(last.commit.message, 1024) };
    return {
      file_name: entry.path.split('/').pop()!,
      type: entry.type,
      ...(commit && { commit, commit_path: `${projectBase(p)}/-/commit/${commit.id}`, commit_title_html: html`${commit.title}`.text }),
    };
  });
  if (summary.nextOffset !== null) ctx.reply.header('more-logs-offset', String(summary.nextOffset));
  return sendJson(ctx.reply, 200, rows);
}

/** At most `max` bytes of UTF-8, `...` ending a cut one (the reference keeps a summary's messages short). */
function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  return `${Buffer.from(text).subarray(0, max - 3).toString('utf8').replace(/\uFFFD$/, '')}...`;
}

/** Small drawn icons (no icon font, nothing loaded): a folder, or a page for files and submodules. */
function entryIcon(type: string): Html {
  const shape =
    type === 'tree'
      ? 'M1.5 3.5h5l1.5 1.5h6.5v8.5h-13z'
      : 'M3.5 1.5h6l3 3v10h-9z M9.5 1.5v3h3';
  return html`<svg class="entry-icon ${type}" aria-hidden="true" width="16" height="16" viewBox="0 0 16 16"><path d="${shape}"/></svg>`;
}

/** What an empty repository offers instead of files: how to push the first commit. */
export function emptyRepositoryHelp(p: any, branch: string): Html {
  const folder = p.path;
  return html`<section class="panel" aria-labelledby="empty-title">
  <h2 id="empty-title">The repository is empty</h2>
  <p>Push a first commit to <code>${branch}</code> with git.</p>
  <h3>A new repository</h3>
  <pre class="plain">git clone ${p.http_url_to_repo}\ncd ${folder}\ngit switch --create ${branch}\necho "# ${p.name}" &gt; README.md\ngit add README.md\ngit commit -m "Add README"\ngit push --set-upstream origin ${branch}</pre>
  <h3>An existing folder or repository</h3>
  <pre class="plain">cd existing_folder\ngit init --initial-branch=${branch}   # skip for an existing repository\ngit remote add origin ${p.http_url_to_repo}\ngit add .\ngit commit -m "Initial commit"\ngit push --set-upstream origin ${branch}</pre>
</section>`;
}

/** The files or commits of a repository without a commit: the same help, in that section. */
export function emptyRepositoryPage(ctx: ProjectPageContext, section: 'files' | 'commits') {
  const p = ctx.project;
  return {
    title: `${section === 'files' ? 'Files' : 'Commits'} · ${p.name_with_namespace}`,
    section,
    body: html`<h1>${section === 'files' ? 'Files' : 'Commits'}</h1>${emptyRepositoryHelp(p, p.default_branch ?? 'main')}`,
  };
}

/** No branch and no tag: nothing was pushed yet. */
export const isEmptyRepository = (refs: Refs) => refs.branches.length === 0 && refs.tags.length === 0;

const titleOf = (message: string): string => message.replace(/^\s+/, '').split('\n')[0].trimEnd();

/**
 * Lines of code as the reference shows them: a gutter of line-number links (`#L12` scrolls to its
 * line and marks it) beside one `<pre>` with a span per line; `first` is the first line's number.
 * Built as one string: a file has thousands of lines.
 */
function codeLines(lines: Html[], first = 1): Html {
  let gutter = '';
  const code: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const n = first + i;
    gutter += `<a id="L${n}" href="#L${n}">${n}</a>`;
    code.push(`<span class="line">${lines[i].text}</span>`);
  }
  return raw(`<div class="code-lines"><div class="gutter">${gutter}</div><pre><code>${code.join('\n')}</code></pre></div>`);
}

const fileCode = async (path: string, text: string): Promise<Html> =>
  html`<div class="blob-code" role="region" aria-label="File content" tabindex="0">${codeLines(await highlightLines(path, text))}</div>`;

async function blobPage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const refs = await refsOf(ctx);
  const { ref, path } = splitRef(ctx.params['*'] ?? '', refs);
  if (!path) throw new PageNotFound();
  const a = await ctx.api.get(`${fileApi(p, path)}?ref=${encodeURIComponent(ref)}`);
  if (a.status !== 200) throw new PageNotFound();
  const f = a.body;
  const rawUrl = viewUrl(p, 'raw', ref, path);
  const bytes = Buffer.from(f.content, 'base64');
  const ext = extOf(path);
  const plain = ctx.query.get('plain') === '1';
  let content: Html;
  if (IMAGE_TYPES[ext]) content = html`<div class="blob-image"><img src="${rawUrl}" alt="${f.file_name}"></div>`;
  else if (f.size > SHOW_LIMIT || looksBinary(bytes))
    content = html`<p class="panel">This file is ${f.size > SHOW_LIMIT ? 'too large to show' : 'not shown: it holds binary data'}. <a href="${rawUrl}?inline=false" download>Download ${f.file_name}</a></p>`;
  else if (isMarkdown(path) && !plain) {
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    content = html`<div class="panel">${renderMarkdown(bytes.toString('utf8'), repoLinks(p, ref, dir))}</div>`;
  } else content = await fileCode(path, bytes.toString('utf8'));
  const toggle = isMarkdown(path)
    ? html`<nav class="view-toggle" aria-label="Display"><a href="${viewUrl(p, 'blob', ref, path)}"${plain ? '' : html` aria-current="page"`}>Preview</a> <a href="${viewUrl(p, 'blob', ref, path)}?plain=1"${plain ? html` aria-current="page"` : ''}>Code</a></nav>`
    : '';
  return {
    title: `${path} · ${ref} · ${p.name_with_namespace}`,
    section: 'files',
    body: html`<div class="toolbar">${refSwitcher(p, refs, ref, 'blob', path)}${breadcrumbs(p, ref, path)}</div>
${await fileCommitLine(ctx, f, ref)}
<div class="file-header">
  <h1>${f.file_name}</h1>
  <span class="muted">${formatSize(f.size)}</span>
  ${toggle}
  <a class="button" href="${viewUrl(p, 'blame', ref, path)}">Blame</a>
  <a class="button" href="${rawUrl}">Raw</a>
  <a class="button" href="${rawUrl}?inline=false" download>Download</a>
</div>
${content}`,
  };
}

/** Who last changed each line: the file's lines in runs, each run beside its commit. */
async function blamePage(ctx: ProjectPageContext) {
  const p = ctx.project;
  const refs = await refsOf(ctx);
  const { ref, path } = splitRef(ctx.params['*'] ?? '', refs);
  if (!path) throw new PageNotFound();
  const a = await ctx.api.get(`${fileApi(p, path)}/blame?ref=${encodeURIComponent(ref)}`);
  if (a.status !== 200) throw new PageNotFound();
  const runs: { commit: any; lines: string[] }[] = a.body;
  const name = path.split('/').pop()!;
  const text = runs.flatMap((r) => r.lines);
  const lines = await highlightLines(path, text.join('\n'));
  while (lines.length < text.length) lines.push(raw('')); // a last line left empty is no line to splitLines
  let n = 0;
  return {
    title: `Blame · ${path} · ${ref} · ${p.name_with_namespace}`,
    section: 'files',
    body: html`<div class="toolbar">${refSwitcher(p, refs, ref, 'blame', path)}${breadcrumbs(p, ref, path)}</div>
<div class="file-header">
  <h1>Blame: ${name}</h1>
  <a class="button" href="${viewUrl(p, 'blob', ref, path)}">Normal view</a>
  <a class="button" href="${viewUrl(p, 'raw', ref, path)}">Raw</a>
</div>
<div class="blob-code blame" role="region" aria-label="File content with the last commit of each line" tabindex="0">${runs.map((r) => {
      const first = n + 1;
      n += r.lines.length;
      return html`<div class="blame-run"><div class="blame-commit"><a href="${projectBase(p)}/-/commit/${r.commit.id}">${titleOf(r.commit.message)}</a>
  <span class="muted">${r.commit.author_name} &middot; ${when(r.commit.committed_date)}</span></div>
  ${codeLines(lines.slice(first - 1, n), first)}</div>`;
    })}</div>`,
  };
}

export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * The bytes with a type that cannot run here: text is text/plain (never HTML), images keep their
 * type (SVG inside a sandbox policy, so opened on its own it runs nothing), the rest downloads.
 */
async function rawPage(ctx: ProjectPageContext): Promise<PageOutcome> {
  const p = ctx.project;
  const refs = await refsOf(ctx);
  const { ref, path } = splitRef(ctx.params['*'] ?? '', refs);
  if (!path) throw new PageNotFound();
  const a = await ctx.api.get(`${fileApi(p, path)}/raw?ref=${encodeURIComponent(ref)}`);
  if (a.status !== 200) throw new PageNotFound();
  const name = path.split('/').pop()!;
  const image = IMAGE_TYPES[extOf(path)];
  const binary = looksBinary(a.bytes);
  const type = image && (binary || extOf(path) === 'svg') ? image : binary ? 'application/octet-stream' : 'text/plain; charset=utf-8';
  const inline = ctx.query.get('inline') !== 'false' && type !== 'application/octet-stream';
  ctx.reply
    .code(200)
    .header('content-type', type)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    .header('cache-control', 'private, no-cache')
    .header('content-disposition', `${inline ? 'inline' : 'attachment'}; filename="${name.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`)
    .send(a.bytes);
  return SENT;
}

export const repositoryPages: ProjectPage[] = [
  { path: 'tree', handler: treePage },
  { path: 'tree/*', handler: treePage },
  { path: 'refs/*', handler: logsTree },
  { path: 'blob/*', handler: blobPage },
  { path: 'raw/*', handler: rawPage },
  { path: 'blame/*', handler: blamePage },
];
