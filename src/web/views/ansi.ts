// A job log as HTML: SGR colours and weights, carriage-return overwrites, and the runner's
// collapsible sections (`section_start:<unix ts>:<name>[collapsed=true]\r\e[0K<header>` …
// `section_end:<unix ts>:<name>\r\e[0K`) as <details>. Pure (no Node APIs): the server renders the
// whole log with it; the browser feeds it what a running job's log grew by and appends the events.
//
// The parser is fed text in any pieces and only emits whole lines, so colours and sections carry
// across pieces; `finish()` emits the last line when the log is complete.
//
// Each line gets a time: its own when the trace carries the runner's time headers
// (shared/trace_timestamps.ts; the headers are not shown), else the time the piece of the log
// holding its first byte was stored (`addTimes`, from the trace_times extension), else none.
import { escapeHtml } from '../html.js';
import { STAMP_LENGTH, stampOf } from '../../shared/trace_timestamps.js';

export type LogEvent =
  | { kind: 'line'; html: string; time: string | null }
  | { kind: 'start'; name: string; collapsed: boolean; ts: number; header: string }
  | { kind: 'end'; name: string; ts: number };

interface Style {
  fg: string | null;
  bg: string | null;
  bold: boolean;
  italic: boolean;
  underline: boolean;
}

const PLAIN: Style = { fg: null, bg: null, bold: false, italic: false, underline: false };
const SECTION = /section_(start|end):(\d+):([A-Za-z0-9_.-]+)(?:\[([^\]\r\n]*)\])?\r\x1b\[0?K/g;
// CSI sequences (`ESC [ params final`), OSC (`ESC ] … BEL|ST`), other two-byte escapes, or a lone CR.
const TOKEN = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\r/g;

/** A 256-colour palette entry as a CSS colour (16–231: the 6×6×6 cube, 232–255: greys). */
function color256(n: number): string | null {
  if (n < 0 || n > 255 || !Number.isInteger(n)) return null;
  if (n < 16) return `c${n}`;
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  const lv = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return `rgb(${lv(Math.floor(i / 36))},${lv(Math.floor(i / 6) % 6)},${lv(i % 6)})`;
}

function applySgr(style: Style, params: string): Style {
  const s = { ...style };
  const codes = params === '' ? [0] : params.split(';').map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === 0) Object.assign(s, PLAIN);
    else if (c === 1) s.bold = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 22) s.bold = false;
    else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c >= 30 && c <= 37) s.fg = `c${c - 30}`;
    else if (c === 39) s.fg = null;
    else if (c >= 40 && c <= 47) s.bg = `c${c - 40}`;
    else if (c === 49) s.bg = null;
    else if (c >= 90 && c <= 97) s.fg = `c${c - 90 + 8}`;
    else if (c >= 100 && c <= 107) s.bg = `c${c - 100 + 8}`;
    else if (c === 38 || c === 48) {
      let value: string | null = null;
      if (codes[i + 1] === 5) {
        value = color256(codes[i + 2]);
        i += 2;
      } else if (codes[i + 1] === 2) {
        const [r, g, b] = codes.slice(i + 2, i + 5);
        if ([r, g, b].every((x) => Number.isInteger(x) && x >= 0 && x <= 255)) value = `rgb(${r},${g},${b})`;
        i += 4;
      }
      if (c === 38) s.fg = value;
      else s.bg = value;
    }
  }
  return s;
}

function span(style: Style, text: string): string {
  if (text === '') return '';
  const classes: string[] = [];
  const css: string[] = [];
  if (style.fg) style.fg.startsWith('c') ? classes.push(`term-fg-${style.fg.slice(1)}`) : css.push(`color:${style.fg}`);
  if (style.bg) style.bg.startsWith('c') ? classes.push(`term-bg-${style.bg.slice(1)}`) : css.push(`background-color:${style.bg}`);
  if (style.bold) classes.push('term-bold');
  if (style.italic) classes.push('term-italic');
  if (style.underline) classes.push('term-underline');
  const body = escapeHtml(text);
  if (classes.length === 0 && css.length === 0) return body;
  return `<span${classes.length ? ` class="${classes.join(' ')}"` : ''}${css.length ? ` style="${css.join(';')}"` : ''}>${body}</span>`;
}

/** A string's length in UTF-8 bytes (the trace's offsets count bytes). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A timed line longer than this may be continued by the runner's next piece (it cuts lines at 8 KiB). */
const RUNNER_LINE_CUT = 8 * 1024;

export interface TraceTime {
  offset: number;
  created_at: string;
}

export class AnsiLog {
  private rest = '';
  private style: Style = { ...PLAIN };
  /** The byte offset of `rest` in the trace. */
  private offset = 0;
  /** When the trace's pieces were stored, in order; `timeIndex`: the piece of the line last timed. */
  private times: TraceTime[] = [];
  private timeIndex = -1;
  /** Whether the trace carries time headers (decided by its first line, as the reference does). */
  private stamped: boolean | null = null;
  /** A timed line that the runner's next piece may continue (`+`): shown once the next line is seen. */
  private held: { text: string; time: string | null } | null = null;

  /** When more pieces of the trace were stored (after those given before). */
  addTimes(times: TraceTime[]): void {
    this.times.push(...times);
  }

  /** Feeds more of the log; returns the events of the lines it completed. */
  push(text: string): LogEvent[] {
    this.rest += text;
    const out: LogEvent[] = [];
    let nl: number;
    while ((nl = this.rest.indexOf('\n')) >= 0) {
      this.take(this.rest.slice(0, nl), out);
      this.rest = this.rest.slice(nl + 1);
    }
    return out;
  }

  /** The log is complete: the events of its last line (one without a newline). */
  finish(): LogEvent[] {
    const out: LogEvent[] = [];
    if (this.rest !== '') this.take(this.rest, out);
    this.rest = '';
    this.release(out);
    return out;
  }

  /** A line of the trace as stored (its header, if any, still on). */
  private take(raw: string, out: LogEvent[]): void {
    const stored = this.storedAt(this.offset);
    this.offset += utf8Length(raw) + 1;
    this.stamped ??= stampOf(raw) !== null;
    if (!this.stamped) {
      this.line(raw, stored, out);
      return;
    }
    const stamp = stampOf(raw);
    const text = stamp ? raw.slice(STAMP_LENGTH) : raw;
    if (stamp?.continues && this.held) {
      this.held.text += text;
      return;
    }
    this.release(out);
    this.held = { text, time: stamp?.time ?? stored };
    // Only a piece the runner cut (at a carriage return, or a long line) can be continued; others show now.
    if (!text.includes('\r') && text.length < RUNNER_LINE_CUT) this.release(out);
  }

  private release(out: LogEvent[]): void {
    if (!this.held) return;
    this.line(this.held.text, this.held.time, out);
    this.held = null;
  }

  /** When the piece holding byte `offset` was stored (offsets only grow), or null. */
  private storedAt(offset: number): string | null {
    while (this.timeIndex + 1 < this.times.length && this.times[this.timeIndex + 1].offset <= offset) this.timeIndex++;
    return this.timeIndex >= 0 ? this.times[this.timeIndex].created_at : null;
  }

  private line(raw: string, time: string | null, out: LogEvent[]): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    let last = 0;
    let start: Extract<LogEvent, { kind: 'start' }> | null = null;
    const segment = (piece: string) => {
      const r = this.render(piece);
      // The text after a start marker is the section's header; elsewhere a line only if visible.
      if (start) start.header = r.html;
      else if (r.text !== '') out.push({ kind: 'line', html: r.html, time });
    };
    SECTION.lastIndex = 0;
    for (let m = SECTION.exec(text); m; m = SECTION.exec(text)) {
      segment(text.slice(last, m.index));
      last = SECTION.lastIndex;
      const ts = Number(m[2]);
      if (m[1] === 'start') {
        start = { kind: 'start', name: m[3], collapsed: /(^|,)\s*collapsed\s*=\s*true\s*($|,)/.test(m[4] ?? ''), ts, header: '' };
        out.push(start);
      } else {
        start = null;
        out.push({ kind: 'end', name: m[3], ts });
      }
    }
    if (last === 0) {
      // No markers: every line of the log stays, empty ones too.
      out.push({ kind: 'line', html: this.render(text).html, time });
      return;
    }
    segment(text.slice(last));
  }

  /** One line's text with its escapes: HTML, and the visible text (to tell empty lines). */
  private render(text: string): { html: string; text: string } {
    let parts: string[] = [];
    let plain = '';
    let at = 0;
    TOKEN.lastIndex = 0;
    for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
      const chunk = text.slice(at, m.index);
      parts.push(span(this.style, chunk));
      plain += chunk;
      at = TOKEN.lastIndex;
      if (m[0] === '\r') {
        // Carriage return: what follows overwrites the line (progress bars); the colour stays.
        parts = [];
        plain = '';
      } else if (m[2] === 'm') {
        this.style = applySgr(this.style, m[1]);
      }
    }
    const chunk = text.slice(at);
    parts.push(span(this.style, chunk));
    plain += chunk;
    return { html: parts.join(''), text: plain };
  }
}

// ---- markup: the server renders a whole log; the browser appends events with the same pieces ----

/**
 * Line `n` (from 1, counting the lines shown; section headers are not lines): a linkable anchor
 * `#L<n>` with its number, then its time (UTC here; the browser shows it in the viewer's), both
 * of which copying leaves out (CSS user-select).
 */
export const lineHtml = (lineMarkup: string, n: number, time: string | null = null): string =>
  `<span class="log-line" id="L${n}"><a class="ln" href="#L${n}" tabindex="-1">${n}</a>${time ? `<time datetime="${time}">${time.slice(11, 19)}</time>` : ''}${lineMarkup}\n</span>`;

export interface SectionView {
  name: string;
  collapsed: boolean;
  ts: number;
  /** The header line (the text after the start marker), as markup. */
  header: string;
  /** The end marker's time; null while the section is open. */
  endTs: number | null;
}

/** A section's length as the reference shows it beside the header: `00:05`. */
export function sectionDuration(start: number, end: number): string {
  const s = Math.max(0, end - start);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** A section's opening markup up to its body (the browser appends lines into `.section-body`). */
export function sectionOpenHtml(s: SectionView): string {
  return (
    `<details class="log-section" data-section="${escapeHtml(s.name)}" data-started="${s.ts}"${s.endTs === null ? ' data-unclosed=""' : ''}${s.collapsed ? '' : ' open'}>` +
    `<summary><span class="section-header">${s.header}</span> <span class="section-duration">${s.endTs === null ? '' : sectionDuration(s.ts, s.endTs)}</span></summary>` +
    '<div class="section-body">'
  );
}

type Item = string | (SectionView & { items: Item[] });

/**
 * The whole log (as much as there is) as HTML; sections still open at the end stay open.
 * `times`: when its pieces were stored.
 */
export function logHtml(text: string, complete: boolean, times: TraceTime[] = []): string {
  const log = new AnsiLog();
  log.addTimes(times);
  const events = [...log.push(text), ...(complete ? log.finish() : [])];
  const root: Item[] = [];
  const open: (SectionView & { items: Item[] })[] = [];
  let n = 0;
  for (const e of events) {
    if (e.kind === 'start') {
      const sec = { name: e.name, collapsed: e.collapsed, ts: e.ts, header: e.header, endTs: null, items: [] };
      (open.length ? open[open.length - 1].items : root).push(sec);
      open.push(sec);
    } else if (e.kind === 'end') {
      // Ending a section that is not the innermost ends the ones inside it too.
      const i = open.map((o) => o.name).lastIndexOf(e.name);
      while (i >= 0 && open.length > i) open.pop()!.endTs = e.ts;
    } else {
      (open.length ? open[open.length - 1].items : root).push(lineHtml(e.html, ++n, e.time));
    }
  }
  const render = (items: Item[]): string =>
    items.map((it) => (typeof it === 'string' ? it : `${sectionOpenHtml(it)}${render(it.items)}</div></details>`)).join('');
  return render(root);
}
