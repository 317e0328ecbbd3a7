// Durations as the reference reads them (ChronicDuration, for `artifacts:expire_in` and
// `start_in`): `30 days`, `1 week`, `2 hrs 20 min`, `3 mins 4 sec`, `1h30m`, `1.5 hours`,
// `01:30` (minutes:seconds; up to days:hours:minutes:seconds), a plain number = seconds.
// A month is 30 days, a year 365.25 days; `and`, `with`, `plus` and commas are ignored.
// A word that is not a unit makes the whole text invalid, and so does a total of zero.
// Plus the artifact size limit (`max_artifacts_size`, in MB).

const UNIT_SECONDS: Record<string, number> = {
  seconds: 1,
  minutes: 60,
  hours: 3600,
  days: 86400,
  weeks: 604800,
  months: 2592000,
  years: 31557600,
};

const UNIT_WORDS: Record<string, string> = {
  seconds: 'seconds', second: 'seconds', secs: 'seconds', sec: 'seconds', s: 'seconds',
  minutes: 'minutes', minute: 'minutes', mins: 'minutes', min: 'minutes', m: 'minutes',
  hours: 'hours', hour: 'hours', hrs: 'hours', hr: 'hours', h: 'hours',
  days: 'days', day: 'days', dy: 'days', d: 'days',
  weeks: 'weeks', week: 'weeks', wks: 'weeks', wk: 'weeks', w: 'weeks',
  months: 'months', month: 'months', mos: 'months', mo: 'months',
  years: 'years', year: 'years', yrs: 'years', yr: 'years', y: 'years',
};

const JOIN_WORDS = new Set(['and', 'with', 'plus']);
const CLOCK_UNITS = ['seconds', 'minutes', 'hours', 'days'];

/** Seconds in a duration text, or null when it is not one (or is zero). `never` is not a duration: null. */
export function parseDuration(text: string): number | null {
  let s = text.trim().toLowerCase();
  if (!s) return null;
  // `1:30`, `01:02:03`, `1:02:03:04`
  if (/^\d+(\s*:\s*\d+)+$/.test(s)) {
    const parts = s.split(':').map((p) => p.trim()).reverse();
    if (parts.length > CLOCK_UNITS.length) return null;
    s = parts.map((p, i) => `${p} ${CLOCK_UNITS[i]}`).reverse().join(' ');
  }
  const words = s
    .replace(/\d*\.?\d+/g, (n) => ` ${n} `)
    .split(/[\s,]+/)
    .filter(Boolean);
  const tokens: (number | string)[] = [];
  for (const w of words) {
    if (/^\d*\.?\d+$/.test(w)) tokens.push(Number(w));
    else if (UNIT_WORDS[w]) tokens.push(UNIT_WORDS[w]);
    else if (!JOIN_WORDS.has(w)) return null;
  }
  if (typeof tokens[0] === 'string') tokens.unshift(1); // `day` = 1 day
  let total = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (typeof t !== 'number') continue;
    const unit = tokens[i + 1] ?? 'seconds';
    if (typeof unit !== 'string') return null; // two numbers in a row
    total += t * UNIT_SECONDS[unit]!;
  }
  return total > 0 ? total : null;
}

/** `expire_in`: seconds, 'never' (kept forever), or null when not a valid value. */
export function parseExpireIn(text: string): number | 'never' | null {
  if (text.trim().toLowerCase() === 'never') return 'never';
  return parseDuration(text);
}

/**
 * When artifacts uploaded at `now` expire (ISO UTC with ms): null = never. A missing or invalid
 * `expire_in` falls back to `defaultExpireIn` (the instance's default_artifacts_expire_in).
 */
export function artifactsExpireAt(expireIn: string | null, defaultExpireIn: string | null, now: Date = new Date()): string | null {
  const own = expireIn === null ? null : parseExpireIn(expireIn);
  const value = own ?? (defaultExpireIn === null ? null : parseExpireIn(defaultExpireIn));
  if (value === null || value === 'never') return null;
  return new Date(now.getTime() + Math.round(value * 1000)).toISOString();
}

export const MEGABYTE = 1024 * 1024;

/** True when an artifact of `sizeBytes` is over `max_artifacts_size` (MB; 0 or null = no limit). */
export function exceedsArtifactLimit(sizeBytes: number, maxArtifactsSizeMb: number | null): boolean {
  if (!maxArtifactsSizeMb || maxArtifactsSizeMb <= 0) return false;
  return sizeBytes > maxArtifactsSizeMb * MEGABYTE;
}

/** The trace line for an artifact over the limit, as the reference runner prints the 413 answer. */
export function artifactTooLargeMessage(fileType: string): string {
  return `ERROR: Uploading artifacts as "${fileType}" to coordinator... 413 Request Entity Too Large`;
}
