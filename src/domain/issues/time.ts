// Durations of time tracking as the reference reads and writes them: `1w 2d 3h 4m 5s`, a working
// day of 8 hours and a week of 5 days, `mo` a month of 4 weeks; a bare number is hours.
const UNIT: Record<string, number> = { mo: 4 * 5 * 8 * 3600, w: 5 * 8 * 3600, d: 8 * 3600, h: 3600, m: 60, s: 1 };

/** Seconds, or null when the text is no duration. A leading `-` subtracts (spent time). */
export function parseDuration(text: string): number | null {
  const t = text.trim().toLowerCase();
  const sign = t.startsWith('-') ? -1 : 1;
  const body = t.replace(/^[-+]/, '').replace(/\s+/g, '');
  if (body === '') return null;
  if (/^\d+(\.\d+)?$/.test(body)) return sign * Math.round(Number(body) * 3600);
  const re = /(\d+(?:\.\d+)?)(mo|w|d|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const m of body.matchAll(re)) {
    total += Number(m[1]) * UNIT[m[2]];
    consumed += m[0].length;
  }
  if (consumed !== body.length) return null;
  return sign * Math.round(total);
}

/** `1w 2d 3h 4m`, or null for no time. */
export function humanDuration(seconds: number): string | null {
  if (!seconds) return null;
  const sign = seconds < 0 ? '-' : '';
  let left = Math.abs(seconds);
  const parts: string[] = [];
  for (const [u, size] of [['w', UNIT.w], ['d', UNIT.d], ['h', UNIT.h], ['m', UNIT.m], ['s', UNIT.s]] as const) {
    const n = Math.floor(left / size);
    if (n > 0) parts.push(`${n}${u}`);
    left -= n * size;
  }
  return sign + parts.join(' ');
}
