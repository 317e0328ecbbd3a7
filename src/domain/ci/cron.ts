// Cron expressions as pipeline schedules use them: five fields (minute, hour, day of month, month,
// day of week) with `*`, lists (`1,15`), ranges (`1-5`), steps (`*/10`, `3-59/10`), month and day
// names (`jan`, `mon-fri`; 7 is Sunday too), read in a time zone (an IANA name, through Intl).
// As in cron, when both day fields are restricted a day matches either of them.

export interface Cron {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Day of month and day of week both restricted: either matches. */
  eitherDay: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  min: number;
  max: number;
  names?: string[];
  /** Where the first name counts from (months: 1, days: 0). */
  nameBase?: number;
}

const FIELDS: FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { min: 0, max: 7, names: DAYS, nameBase: 0 },
];

function value(text: string, spec: FieldSpec): number | null {
  const name = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  if (name >= 0) return name + (spec.nameBase ?? 0);
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= spec.min && n <= spec.max ? n : null;
}

function field(text: string, spec: FieldSpec): Set<number> | null {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(part);
    if (!m) return null;
    const step = m[2] === undefined ? 1 : Number(m[2]);
    if (step < 1) return null;
    let from: number | null;
    let to: number | null;
    if (m[1] === '*') [from, to] = [spec.min, spec.max];
    else {
      const range = m[1].split('-');
      if (range.length > 2) return null;
      from = value(range[0], spec);
      to = range.length === 2 ? value(range[1], spec) : m[2] === undefined ? from : spec.max;
    }
    if (from === null || to === null || from > to) return null;
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out.size ? out : null;
}

/** The parsed expression, or null when it is not a valid five-field cron. */
export function parseCron(text: string): Cron | null {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5) return null;
  const sets = parts.map((p, i) => field(p, FIELDS[i]));
  if (sets.some((s) => s === null)) return null;
  const [minutes, hours, days, months, weekdays] = sets as Set<number>[];
  if (weekdays.delete(7)) weekdays.add(0);
  return { minutes, hours, days, months, weekdays, eitherDay: parts[2] !== '*' && parts[4] !== '*' };
}

/** True when the name is a time zone this machine knows (IANA, `UTC`). */
export function validTimeZone(tz: string): boolean {
  if (!tz) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function wallClock(ms: number, tz: string): Wall {
  if (tz === 'UTC') {
    // UTC needs no zone data: the first Intl formatter loads it (about 20 ms, at every start,
    // for the worker schedule).
    const d = new Date(ms);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
  }
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formatters.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute) };
}

const wallMs = (w: Wall): number => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);

/** The instant a wall-clock time in `tz` names; null for a time the zone skips (a DST gap). */
function instantOf(w: Wall, tz: string): number | null {
  const target = wallMs(w);
  let guess = target;
  for (let i = 0; i < 3; i++) {
    const off = wallMs(wallClock(guess, tz)) - guess;
    const next = target - off;
    if (next === guess) break;
    guess = next;
  }
  return wallMs(wallClock(guess, tz)) === target ? guess : null;
}

function dayMatches(cron: Cron, year: number, month: number, day: number): boolean {
  const dom = cron.days.has(day);
  const dow = cron.weekdays.has(new Date(Date.UTC(year, month - 1, day)).getUTCDay());
  return cron.eitherDay ? dom || dow : dom && dow;
}

const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);

/** The first time strictly after `from` (whole minutes) that the expression names in `tz`; null within five years none. */
export function nextCronTime(cron: Cron, tz: string, from: Date): Date | null {
  const start = from.getTime();
  const local = wallClock(start, tz);
  const hours = sorted(cron.hours);
  const minutes = sorted(cron.minutes);
  // Wall times well before the start's own are surely before it: not converted (a DST shift is 1 hour at most).
  const earliest = wallMs(local) - 2 * 3600_000;
  const day = new Date(Date.UTC(local.year, local.month - 1, local.day));
  for (let i = 0; i < 366 * 5; i++, day.setUTCDate(day.getUTCDate() + 1)) {
    const [year, month, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
    if (!cron.months.has(month) || !dayMatches(cron, year, month, d)) continue;
    for (const hour of hours) {
      for (const minute of minutes) {
        const wall = { year, month, day: d, hour, minute };
        if (wallMs(wall) < earliest) continue;
        const at = instantOf(wall, tz);
        if (at !== null && at > start) return new Date(at);
      }
    }
  }
  return null;
}

/** True when the expression names the minute of `at` in `tz`. */
export function cronMatches(cron: Cron, tz: string, at: Date): boolean {
  const w = wallClock(at.getTime(), tz);
  return cron.minutes.has(w.minute) && cron.hours.has(w.hour) && cron.months.has(w.month) && dayMatches(cron, w.year, w.month, w.day);
}
