// Changed files as the commit and compare pages show them: unified (one column, old and new line
// numbers) or split (old beside new), chosen by a link (`?view=inline|parallel`). A page renders a
// bounded number of lines: a file past the budget (or too long on its own) is collapsed, with a
// link that shows that one file, so a 400 KB diff stays a light, fast page.
import { html, type Html } from '../html.js';
import { highlightLines, languageOf } from './highlight.js';

export type DiffView = 'inline' | 'parallel';

/** The view a page was asked for; unified unless `?view=parallel`. */
export const diffViewOf = (q: URLSearchParams): DiffView => (q.get('view') === 'parallel' ? 'parallel' : 'inline');

/** Lines a page renders in all; past them, files are collapsed. */
const PAGE_LINES = 600;
/** A file longer than this is collapsed even within the page's budget. */
const FILE_LINES = 400;
/** Files a page lists at most (a comparison is not paged by the API). */
const PAGE_FILES = 200;

/** The link pair that switches views; `href(view)` keeps the page's other parameters. */
export function diffViewToggle(current: DiffView, href: (view: DiffView) => string): Html {
  const link = (v: DiffView, label: string) =>
    v === current ? html`<a href="${href(v)}" aria-current="true" class="button">${label}</a>` : html`<a href="${href(v)}" class="button">${label}</a>`;
  return html`<nav class="diff-views" aria-label="Diff view">${link('inline', 'Unified')} ${link('parallel', 'Split')}</nav>`;
}

interface Line {
  kind: 'hunk' | 'add' | 'del' | 'ctx' | 'note';
  text: string;
  /** The text highlighted, when the file's language is known. */
  marked?: Html;
  oldNo?: number;
  newNo?: number;
}

function patchLines(patch: string): Line[] {
  const out: Line[] = [];
  let oldNo = 0;
  let newNo = 0;
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      out.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('+')) out.push({ kind: 'add', text: line.slice(1), newNo: newNo++ });
    else if (line.startsWith('-')) out.push({ kind: 'del', text: line.slice(1), oldNo: oldNo++ });
    else if (line.startsWith('\\')) out.push({ kind: 'note', text: line });
    else out.push({ kind: 'ctx', text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
  }
  return out;
}

const MARK: Record<Line['kind'], string> = { add: '+', del: '-', ctx: ' ', hunk: '', note: '' };

function unifiedTable(lines: Line[]): Html {
  const rows = lines.map((l) =>
    l.kind === 'hunk' || l.kind === 'note'
      ? html`<tr class="${l.kind}"><td class="ln"></td><td class="ln"></td><td class="dc">${l.text}</td></tr>`
      : html`<tr${l.kind === 'ctx' ? '' : html` class="${l.kind}"`}><td class="ln">${l.oldNo}</td><td class="ln">${l.newNo}</td><td class="dc"><span class="mark">${MARK[l.kind]}</span>${l.marked ?? l.text}</td></tr>`,
  );
  return html`<table class="diff"><caption class="visually-hidden">Changed lines</caption>
<thead class="visually-hidden"><tr><th scope="col">Old line</th><th scope="col">New line</th><th scope="col">Content</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

const half = (l: Line | undefined, side: 'old' | 'new'): Html => {
  if (!l) return html`<td class="ln empty"></td><td class="dc empty"></td>`;
  const cls = l.kind === 'ctx' ? '' : l.kind;
  return html`<td class="ln ${cls}">${side === 'old' ? l.oldNo : l.newNo}</td><td class="dc ${cls}"><span class="mark">${MARK[l.kind]}</span>${l.marked ?? l.text}</td>`;
};

/** Old beside new: a run of removed lines pairs row by row with the added lines that follow it. */
function splitTable(lines: Line[]): Html {
  const rows: Html[] = [];
  let dels: Line[] = [];
  let adds: Line[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push(html`<tr>${half(dels[i], 'old')}${half(adds[i], 'new')}</tr>`);
    dels = [];
    adds = [];
  };
  for (const l of lines) {
    if (l.kind === 'del') {
      if (adds.length) flush();
      dels.push(l);
    } else if (l.kind === 'add') adds.push(l);
    else {
      flush();
      if (l.kind === 'ctx') rows.push(html`<tr>${half(l, 'old')}${half(l, 'new')}</tr>`);
      else rows.push(html`<tr class="${l.kind}"><td class="ln"></td><td class="dc" colspan="3">${l.text}</td></tr>`);
    }
  }
  flush();
  return html`<div class="diff-scroll"><table class="diff split"><caption class="visually-hidden">Changed lines, old beside new</caption>
<thead class="visually-hidden"><tr><th scope="col">Old line</th><th scope="col">Old content</th><th scope="col">New line</th><th scope="col">New content</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/**
 * Highlights a shown file's lines: the old side (context and removed lines) and the new side
 * (context and added lines) each as one text, so a token spanning lines within a hunk is read whole.
 */
async function highlight(path: string, lines: Line[]): Promise<void> {
  if (!languageOf(path)) return;
  const oldSide = lines.filter((l) => l.kind === 'ctx' || l.kind === 'del');
  const newSide = lines.filter((l) => l.kind === 'ctx' || l.kind === 'add');
  const text = (side: Line[]) => side.map((l) => `${l.text}\n`).join('');
  const [o, n] = await Promise.all([highlightLines(path, text(oldSide)), highlightLines(path, text(newSide))]);
  if (oldSide.length && o.length === oldSide.length) oldSide.forEach((l, i) => l.kind === 'del' && (l.marked = o[i]));
  if (newSide.length && n.length === newSide.length) newSide.forEach((l, i) => (l.marked = n[i]));
}

export interface DiffLinks {
  /** The page showing file `i` alone, whole (for a collapsed file). */
  fileOnly(i: number): string;
  /** The file's content at the new side (or the old, for a deleted file). */
  blob(d: any): string;
}

function fileSection(d: any, i: number, view: DiffView, links: DiffLinks, lines: Line[] | null, collapsed: boolean): Html {
  const what = d.new_file ? 'added' : d.deleted_file ? 'deleted' : d.renamed_file ? `renamed from ${d.old_path}` : 'modified';
  let added = 0;
  let removed = 0;
  for (const l of lines ?? []) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  let content: Html;
  if (!lines) content = html`<p class="muted">${d.renamed_file ? 'File moved without changes.' : 'Binary file or a diff too large to show.'} <a href="${links.blob(d)}">View file</a></p>`;
  else if (collapsed)
    content = html`<p class="muted diff-collapsed">This diff is large (${lines.length} lines), so it is collapsed. <a href="${links.fileOnly(i)}">Show this file's changes</a> &middot; <a href="${links.blob(d)}">View file</a></p>`;
  else content = view === 'parallel' ? splitTable(lines) : unifiedTable(lines);
  return html`<section class="file-diff" id="file-${i}" aria-labelledby="diff-${i}">
  <h3 id="diff-${i}"><code>${d.new_path}</code> <span class="muted">${what}</span>
    <span class="counts"><span class="added">+${added}</span> <span class="removed">&minus;${removed}</span></span></h3>
  ${content}
</section>`;
}

/**
 * The files of one page of a diff; `only` shows file `only` alone, whole. Numbers (`i`) are the
 * files' places on this page, which the collapsed files' links name.
 */
export async function fileDiffs(files: any[], view: DiffView, links: DiffLinks, only: number | null = null): Promise<Html> {
  if (files.length === 0) return html`<p class="muted">No changes.</p>`;
  const shown = only === null ? files.slice(0, PAGE_FILES) : files[only] ? [files[only]] : [];
  if (shown.length === 0) return html`<p class="muted">No such file on this page.</p>`;
  let budget = PAGE_LINES;
  const sections = await Promise.all(
    shown.map(async (d, k) => {
      const i = only ?? k;
      const lines = d.diff ? patchLines(d.diff) : null;
      const collapsed = only === null && !!lines && (lines.length > FILE_LINES || lines.length > budget);
      if (lines && !collapsed) {
        budget -= lines.length;
        await highlight(d.new_path, lines);
      }
      return fileSection(d, i, view, links, lines, collapsed);
    }),
  );
  return html`${sections}${only === null && files.length > PAGE_FILES ? html`<p class="muted">${files.length - PAGE_FILES} more changed files are not shown.</p>` : ''}`;
}
