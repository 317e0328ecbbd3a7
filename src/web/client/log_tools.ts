// A job log's reading aids: a line's anchor (#L12) opens the sections around it and shows it; the
// search box marks the lines that contain its text, says how many, and Enter goes to the next one
// (opening its sections). Lines that arrive later are searched on the next keystroke. The times
// beside the lines can be hidden.
import { logTimes } from './times.js';
function reveal(line: HTMLElement): void {
  for (let d = line.closest('details'); d; d = d.parentElement?.closest('details') ?? null) d.open = true;
  line.scrollIntoView({ block: 'center' });
}

function showHashLine(box: HTMLElement): void {
  const m = /^#L(\d+)$/.exec(location.hash);
  const line = m ? box.querySelector<HTMLElement>(`#L${m[1]}`) : null;
  box.querySelectorAll('.log-line.is-target').forEach((el) => el.classList.remove('is-target'));
  if (!line) return;
  line.classList.add('is-target');
  reveal(line);
}

const TIMES_HIDDEN = 'anvil.log-times-hidden';

/** The Times switch (shown only with this script): hides the times column, remembered in this browser. */
function timesSwitch(root: ParentNode, box: HTMLElement): void {
  logTimes(box);
  const label = root.querySelector<HTMLElement>('[data-log-times]');
  const input = label?.querySelector('input');
  if (!label || !input) return;
  const show = (on: boolean): void => {
    input.checked = on;
    box.classList.toggle('hide-times', !on);
  };
  show(localStorage.getItem(TIMES_HIDDEN) !== '1');
  label.hidden = false;
  input.addEventListener('change', () => {
    show(input.checked);
    if (input.checked) localStorage.removeItem(TIMES_HIDDEN);
    else localStorage.setItem(TIMES_HIDDEN, '1');
  });
}

export function initLogTools(root: ParentNode): void {
  const box = root.querySelector<HTMLElement>('[data-job-log]');
  if (!box) return;
  timesSwitch(root, box);
  showHashLine(box);
  window.addEventListener('hashchange', () => showHashLine(box));
  const input = root.querySelector<HTMLInputElement>('[data-log-search]');
  const count = root.querySelector<HTMLElement>('[data-log-search-count]');
  if (!input || !count) return;
  let matches: HTMLElement[] = [];
  let current = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const search = (): void => {
    const term = input.value.trim().toLowerCase();
    box.querySelectorAll('.log-line.log-match').forEach((el) => el.classList.remove('log-match', 'is-current'));
    current = -1;
    matches = term === '' ? [] : Array.from(box.querySelectorAll<HTMLElement>('.log-line')).filter((el) => lineText(el).toLowerCase().includes(term));
    matches.forEach((el) => el.classList.add('log-match'));
    count.textContent = term === '' ? '' : `${matches.length} ${matches.length === 1 ? 'line' : 'lines'}`;
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  input.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    clearTimeout(timer);
    if (current < 0) search();
    if (matches.length === 0) return;
    matches[current]?.classList.remove('is-current');
    current = (current + 1) % matches.length;
    matches[current].classList.add('is-current');
    reveal(matches[current]);
    count.textContent = `${current + 1} of ${matches.length} lines`;
  });
}

/** A line's text without its number and time. */
const lineText = (el: HTMLElement): string =>
  (el.textContent ?? '').slice((el.querySelector(':scope > .ln')?.textContent?.length ?? 0) + (el.querySelector(':scope > time')?.textContent?.length ?? 0));
