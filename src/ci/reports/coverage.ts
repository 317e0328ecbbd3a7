// A job's `coverage` regex applied to its log, with the reference's rules: lines are searched
// from the last one up; on the first line with matches, the value is the last match's last
// capture group (the whole match when the regex has no groups), and the number is the first
// `\d+(\.\d+)?` in it; a line whose match holds no digits is passed over.
//
// The regex is the user's, written for Ruby (RE2 in the reference). It is translated to a
// JavaScript regex as far as the two differ in common use, and it runs in a VM context with a
// time budget, so a pathological pattern cannot hold the server.
import vm from 'node:vm';
import { STAMP_LENGTH, stampOf } from '../../shared/trace_timestamps.js';

/** Time allowed for one extraction before it gives up (null). */
export const COVERAGE_TIME_BUDGET_MS = 2000;

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\s',
  upper: 'A-Z',
  word: '\\w',
  xdigit: '0-9a-fA-F',
};

/**
 * A Ruby/RE2 regex source as a JavaScript one: `\A` `\z` `\Z` → `^` `$`, `\h` `\H` (hex digits),
 * POSIX bracket classes (`[[:digit:]]`), leading inline flags (`(?i)`, `(?m)` → `s`).
 * Surrounding slashes (`/…/`) are dropped. Returns null when the result is not a valid regex.
 */
export function rubyRegexToJs(source: string): { source: string; flags: string } | null {
  let src = source;
  let flags = '';
  const slashed = /^\/(.*)\/([imx]*)$/s.exec(src);
  if (slashed) {
    src = slashed[1]!;
    if (slashed[2]!.includes('i')) flags += 'i';
    if (slashed[2]!.includes('m')) flags += 's';
  }
  const inline = /^\(\?([imx]+)\)/.exec(src);
  if (inline) {
    src = src.slice(inline[0].length);
    if (inline[1]!.includes('i') && !flags.includes('i')) flags += 'i';
    if (inline[1]!.includes('m') && !flags.includes('s')) flags += 's';
  }
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '\\' && i + 1 < src.length) {
      const next = src[++i]!;
      if (next === 'A' && !inClass) out += '^';
      else if ((next === 'z' || next === 'Z') && !inClass) out += '$';
      else if (next === 'h') out += inClass ? '0-9a-fA-F' : '[0-9a-fA-F]';
      else if (next === 'H' && !inClass) out += '[^0-9a-fA-F]';
      else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(src.slice(i));
      if (posix && POSIX_CLASSES[posix[2]!] && !posix[1]) {
        out += POSIX_CLASSES[posix[2]!];
        i += posix[0].length - 1;
        continue;
      }
      if (ch === ']') inClass = false;
      out += ch;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      out += ch;
      // A `]` right after `[` or `[^` is a literal in Ruby.
      if (src[i + 1] === '^') out += src[++i];
      if (src[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    out += ch;
  }
  try {
    new RegExp(out, flags);
  } catch {
    return null;
  }
  return { source: out, flags };
}

// Runs inside the VM context: `trace`, `source`, `flags` and `strip` (the length of the time
// header each line starts with, or 0) are its globals.
const SCAN = `(() => {
  const re = new RegExp(source, flags + 'g');
  const number = /\\d+(\\.\\d+)?/;
  let end = trace.length;
  for (;;) {
    const start = end > 0 ? trace.lastIndexOf('\\n', end - 1) : -1;
    let line = trace.slice(start + 1, end);
    end = start;
    if (line.endsWith('\\r')) line = line.slice(0, -1);
    if (strip) line = line.slice(strip);
    const matches = Array.from(line.matchAll(re));
    if (matches.length === 0) { if (start < 0) break; continue; }
    const last = matches[matches.length - 1];
    const value = last.length > 1 ? last[last.length - 1] : last[0];
    if (value === undefined) return null;
    const n = number.exec(value);
    if (n) return n[0];
    if (start < 0) break;
  }
  return null;
})()`;

/** The coverage figure the regex finds in the log, or null (no match, invalid regex, too slow). */
export function extractCoverage(trace: string, regexSource: string): number | null {
  if (!regexSource || !trace) return null;
  const re = rubyRegexToJs(regexSource);
  if (!re) return null;
  try {
    // A log with a time header on each line (FF_TIMESTAMPS) is searched without them, as the reference does.
    const strip = stampOf(trace.slice(0, STAMP_LENGTH)) ? STAMP_LENGTH : 0;
    const found = vm.runInNewContext(SCAN, { trace, source: re.source, flags: re.flags, strip }, { timeout: COVERAGE_TIME_BUDGET_MS });
    if (typeof found !== 'string') return null;
    const n = Number.parseFloat(found);
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}
