import { now as clockNow, nowDate } from './clock.js';

/** ISO 8601 UTC with milliseconds: the one timestamp format Anvil stores and returns. */
export const nowIso = (): string => nowDate().toISOString();

/** Today's UTC date, `YYYY-MM-DD`: remembered until the day ends (every request asks, and a new Date's ISO form costs a microsecond). */
let day = { text: '', starts: 0, ends: 0 };
export function today(): string {
  const now = clockNow();
  if (now < day.starts || now >= day.ends) {
    const starts = now - (now % 86_400_000);
    day = { text: new Date(starts).toISOString().slice(0, 10), starts, ends: starts + 86_400_000 };
  }
  return day.text;
}

export const isDate = (s: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));
/** A git date (ISO, whole seconds) in the API's form, with milliseconds: `…T03:04:05Z` → `…T03:04:05.000Z`. */
export const withMillis = (iso: string): string => iso.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?!\.)/, '$1.000');
export const addSeconds = (iso: string, s: number): string => new Date(Date.parse(iso) + s * 1000).toISOString();
