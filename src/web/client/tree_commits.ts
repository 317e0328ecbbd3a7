// The tree page's last commit of each entry: its rows come with two empty cells, filled here from
// the logs_tree route, 25 entries an answer, from the page's first entry on until every row has its
// answer (`More-Logs-Offset` names the next batch). Without the script the cells stay empty.
import { localTimes } from './times.js';

interface EntryLog {
  file_name: string;
  commit?: { title: string; message: string; committed_date: string };
  commit_path?: string;
}

export function initTreeCommits(root: Document): void {
  const table = root.querySelector<HTMLTableElement>('table[data-logs-tree]');
  if (table) void fill(table).catch(() => undefined); // a failed request leaves the cells empty
}

/** `2026-01-02 03:04:05 UTC`, the title every server-rendered time carries. */
const utcTitle = (iso: string): string => `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

async function fill(table: HTMLTableElement): Promise<void> {
  const rows = [...table.querySelectorAll<HTMLTableRowElement>('tbody tr:not(.parent)')];
  const first = Number(table.dataset.offset ?? 0);
  let offset: number | null = first;
  while (offset !== null && offset < first + rows.length) {
    const res: Response = await fetch(`${table.dataset.logsTree}?format=json&offset=${offset}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (!res.ok) return;
    const entries: EntryLog[] = await res.json();
    entries.forEach((e, i) => {
      const row = rows[offset! - first + i];
      // the same entry (the ref may have moved since the page was rendered)
      if (row && e.commit && e.commit_path && row.cells[0].textContent?.trim() === e.file_name.trim()) show(row, e.commit, e.commit_path);
    });
    const more = res.headers.get('more-logs-offset');
    offset = more ? Number(more) : null;
  }
}

function show(row: HTMLTableRowElement, commit: NonNullable<EntryLog['commit']>, href: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.textContent = commit.title;
  link.title = commit.message.trim();
  row.cells[2].replaceChildren(link);
  const time = document.createElement('time');
  time.dateTime = commit.committed_date;
  time.title = utcTitle(commit.committed_date);
  time.textContent = time.title;
  row.cells[3].replaceChildren(time);
  localTimes(row);
}
