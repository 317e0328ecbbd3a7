// Human durations, read as the reference reads them everywhere it takes one (ChronicDuration with
// raise_exceptions on): CI `start_in`, `timeout` and `artifacts:expire_in`, job scheduling,
// artifact expiry and the settings `default_artifacts_expire_in` and
// `archive_builds_in_human_readable`. The one parser: every caller uses these functions.
//
// Its rules: lower case; `h:m:s` clocks (up to years:months:days:hours:minutes:seconds, no
// weeks); numbers are split from words (`1h30m`); each number counts in the unit named after it,
// in seconds when it is last, and zero when another number follows; a unit without a number
// counts once (`day`); `and`, `with`, `plus` and commas join; any other word is an error. A
// month is 30 days, a year 365.25 days.

const UNIT_SECONDS = {
  seconds: 1,
  minutes: 60,
  hours: 3600,
  days: 86400,
  weeks: 7 * 86400,
  months: 30 * 86400,
  years: 31_557_600,
} as const;
type Unit = keyof typeof UNIT_SECONDS;

const UNIT_WORDS = new Map<string, Unit>(
  (
    [
      ['seconds', ['seconds', 'second', 'secs', 'sec', 's']],
      ['minutes', ['minutes', 'minute', 'mins', 'min', 'm']],
      ['hours', ['hours', 'hour', 'hrs', 'hr', 'h']],
      ['days', ['days', 'day', 'dy', 'd']],
      ['weeks', ['weeks', 'week', 'wks', 'wk', 'w']],
      ['months', ['months', 'month', 'mos', 'mo']],
      ['years', ['years', 'year', 'yrs', 'yr', 'y']],
    ] as const
  ).flatMap(([unit, words]) => words.map((w) => [w, unit] as [string, Unit])),
);
const JOIN_WORDS = new Set(['and', 'with', 'plus']);
const CLOCK_UNITS: Unit[] = ['seconds', 'minutes', 'hours', 'days', 'months', 'years'];
const NUMBER = /\d*\.?\d+/g;

/**
 * Seconds in a duration text: 0 when it adds up to nothing (`0 seconds`, `0`, ``), null when it
 * is not a duration (a word that is neither a number, a unit nor a joining word).
 */
export function parseDuration(text: string): number | null {
  let s = text.toLowerCase();
  const compact = s.replace(/ /g, '');
  if (/^\d+:\d+(:\d+){0,4}(\.\d*)?$/.test(compact)) {
    const parts = compact.split(':').reverse();
    if (parts.length > CLOCK_UNITS.length) return null;
    s = parts.map((p, i) => `${p} ${CLOCK_UNITS[i]}`).reverse().join(' ');
  }
  const words: (number | Unit)[] = [];
  for (const word of s.replace(NUMBER, (n) => ` ${n} `).split(/\s+/).filter(Boolean)) {
    const bare = word.replace(/^,|,$/g, '');
    if (/^\d*\.?\d+$/.test(word)) words.push(Number(word));
    else if (UNIT_WORDS.has(bare)) words.push(UNIT_WORDS.get(bare)!);
    else if (!JOIN_WORDS.has(bare)) return null;
  }
  if (typeof words[0] === 'string') words.unshift(1);
  let total = 0;
  words.forEach((w, i) => {
    if (typeof w !== 'number') return;
    const next = words[i + 1] ?? 'seconds';
    total += typeof next === 'string' ? w * UNIT_SECONDS[next] : 0;
  });
  return total;
}

/**
 * ChronicDuration.parse's answer where the reference takes it as is (`start_in`, `timeout`,
 * `archive_builds_in_human_readable`): a positive number of seconds, else null (a zero total
 * is nil there too).
 */
export function durationSeconds(text: string): number | null {
  const seconds = parseDuration(text);
  return seconds ? seconds : null;
}

/** `artifacts:expire_in` (the reference's Ci::Build::DurationParser): `never` is valid and never expires. */
export const isNever = (text: string): boolean => text.toLowerCase() === 'never';
