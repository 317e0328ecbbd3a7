// Human durations as the reference reads them (ChronicDuration): `3600`, `90 minutes`,
// `1h 30m`, `1 hour and 30 minutes`, `2 days`, `1 week`, `1:30:00`. A bare number is seconds.

const UNITS: Array<[RegExp, number]> = [
  [/^(?:s|sec|secs|second|seconds)$/, 1],
  [/^(?:m|min|mins|minute|minutes)$/, 60],
  [/^(?:h|hr|hrs|hour|hours)$/, 3600],
  [/^(?:d|dy|day|days)$/, 86400],
  [/^(?:w|wk|wks|week|weeks)$/, 7 * 86400],
  [/^(?:mo|mos|month|months)$/, 30 * 86400],
  [/^(?:y|yr|yrs|year|years)$/, 365 * 86400],
];

export const ONE_WEEK = 7 * 86400;
export const ONE_MONTH = 30 * 86400;

/** Seconds, or null when the text is not a duration. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase();
  if (text === '') return null;
  const clock = /^(\d+):(\d{1,2})(?::(\d{1,2}))?$/.exec(text);
  if (clock) {
    const parts = [clock[1], clock[2], clock[3]].filter((p): p is string => p !== undefined).map(Number);
    return parts.length === 3 ? parts[0]! * 3600 + parts[1]! * 60 + parts[2]! : parts[0]! * 60 + parts[1]!;
  }
  const cleaned = text.replace(/,/g, ' ').replace(/\band\b/g, ' ');
  const re = /(\d+(?:\.\d+)?)\s*([a-z]*)/gy;
  let total = 0;
  let found = false;
  let pos = 0;
  while (pos < cleaned.length) {
    while (pos < cleaned.length && cleaned[pos] === ' ') pos++;
    if (pos >= cleaned.length) break;
    re.lastIndex = pos;
    const m = re.exec(cleaned);
    if (!m) return null;
    const amount = Number(m[1]);
    const unit = m[2]!;
    let mult = 1;
    if (unit !== '') {
      const hit = UNITS.find(([u]) => u.test(unit));
      if (!hit) return null;
      mult = hit[1];
    }
    total += amount * mult;
    found = true;
    pos = re.lastIndex;
  }
  return found ? Math.round(total) : null;
}
