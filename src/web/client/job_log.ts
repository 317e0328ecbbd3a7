// A running job's page follows its log: every 2 s it reads the job and its log from the page's
// trace.json (the job, its log and when its pieces were stored, read as the visitor: the jobs API
// asks for a sign-in, the page does not where the project's jobs are public), parses what the log grew by with the server's parser and appends it (into the open section, if
// any), keeps the page at the bottom when the reader was there, and stops once the job finished.
import { startTicker } from './ticker.js';
import { AnsiLog, lineHtml, sectionDuration, sectionOpenHtml, type LogEvent } from '../views/ansi.js';
import { isJobActive, jobFacts } from '../views/job.js';
import { localTimes, logTimes } from './times.js';

const POLL_MS = 2000;

export function initJobLog(root: ParentNode): void {
  const box = root.querySelector<HTMLElement>('[data-job-log]');
  if (!box || !isJobActive(box.dataset.status ?? '')) return;
  const live = `${window.location.pathname.replace(/\/$/, '')}/trace.json`;
  const facts = root.querySelector<HTMLElement>('[data-job-facts]');
  // The server rendered the log up to its last newline; the parser starts from there, so the
  // style and sections of the partial line are replayed from the text the server saw.
  const parser = new AnsiLog();
  let seen = 0;
  let primed = false;
  let timesFrom = 0;
  const shown = Number(box.dataset.length ?? '0');

  /** The innermost section still open (the server marked open ones data-unclosed). */
  const openSections = (): HTMLElement[] => Array.from(box.querySelectorAll<HTMLElement>('details[data-unclosed]'));
  const target = (): HTMLElement => {
    const open = openSections();
    return open.length ? open[open.length - 1].querySelector<HTMLElement>(':scope > .section-body')! : box;
  };

  let lines = box.querySelectorAll('.log-line').length;
  const apply = (events: LogEvent[]): void => {
    for (const e of events) {
      if (e.kind === 'line') {
        target().insertAdjacentHTML('beforeend', lineHtml(e.html, ++lines, e.time));
        if (e.time) box.classList.add('with-times');
      }
      else if (e.kind === 'start') target().insertAdjacentHTML('beforeend', `${sectionOpenHtml({ ...e, endTs: null })}</div></details>`);
      else {
        const open = openSections();
        const i = open.map((d) => d.dataset.section).lastIndexOf(e.name);
        for (const d of i < 0 ? [] : open.slice(i)) {
          d.removeAttribute('data-unclosed');
          const dur = d.querySelector<HTMLElement>(':scope > summary .section-duration');
          if (dur) dur.textContent = sectionDuration(Number(d.dataset.started), e.ts);
        }
      }
    }
  };

  const NOT_STARTED = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'scheduled', 'manual']);
  const tick = async (): Promise<void> => {
    const answer = await fetch(`${live}?times_from=${timesFrom}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    const data = answer.ok ? ((await answer.json()) as { job: any; trace: string | null; times: { offset: number; created_at: string }[] }) : null;
    const job = { ok: data !== null, body: data?.job };
    // A job that has not started has no log yet.
    const started = job.ok && !NOT_STARTED.has(job.body.status);
    const text = started && typeof data?.trace === 'string' ? data.trace : '';
    // When the pieces of that text were stored (read after the text, so none of it is missing).
    const times = started ? data?.times : null;
    if (times && times.length) {
      parser.addTimes(times);
      timesFrom = times[times.length - 1].offset + 1;
    }
    if (!primed) {
      // What the server already rendered: its complete lines (feed them to learn the state, drop the events).
      const done = text.slice(0, shown);
      const cut = done.lastIndexOf('\n') + 1;
      parser.push(done.slice(0, cut));
      seen = cut;
      // The server showed its partial last line too (only when the job had finished; not here).
      primed = true;
    }
    // "Waiting for the job to start…" stays until there is a log to show
    if (text.length > 0) box.querySelector('.log-empty')?.remove();
    const atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
    if (text.length > seen) {
      apply(parser.push(text.slice(seen)));
      seen = text.length;
    }
    const finished = job.ok && !isJobActive(job.body.status);
    if (finished) apply(parser.finish());
    logTimes(box);
    if (job.ok && facts) {
      facts.innerHTML = jobFacts(job.body).text;
      localTimes(facts);
    }
    startTicker(root);
    if (atBottom) window.scrollTo(0, document.documentElement.scrollHeight);
    if (finished) {
      box.dataset.status = job.body.status;
      root.querySelectorAll('[data-while-active]').forEach((el) => el.remove());
      return;
    }
    setTimeout(() => void tick(), POLL_MS);
  };
  setTimeout(() => void tick(), POLL_MS);
}
