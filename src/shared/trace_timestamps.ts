// Job logs with a time on each line, as the reference's runner writes them when a job's
// FF_TIMESTAMPS variable is true: every line of the raw trace starts with a 32-byte header,
// `<UTC time, microseconds>Z <stream, 2 hex digits><O|E><' ' or '+'>` (e.g.
// `2026-01-02T03:04:05.678901Z 01O `), then the line as the job printed it. `+` marks a piece
// that continues the line before it (the runner cut a long or `\r`-flushed line: the newline
// before the piece is not the job's). A trace has timestamps when its first line has a header,
// as the reference decides. The raw trace keeps the headers; what shows it (the web log, the
// coverage figure) leaves them out. Pure: the server, the runner and the browser share it.

/** Header length: the time (27), a space, the stream (2), its type and the continuation flag. */
export const STAMP_LENGTH = 32;
const STAMP = /^\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d\.\d{6}Z [0-9a-f]{2}[EO][+ ]/;

/** The runner's own lines (stream 0) and the job's output (stream 1), as the reference numbers them. */
export const RUNNER_STREAM = 0;
export const JOB_STREAM = 1;

/** A line's header: its time (ISO 8601 with milliseconds, as `<time datetime>` takes it) and whether it continues the line before. */
export interface Stamp {
  time: string;
  continues: boolean;
}

/** The header at the start of `line`, or null. */
export function stampOf(line: string): Stamp | null {
  if (line.length < STAMP_LENGTH || line[26] !== 'Z' || !STAMP.test(line)) return null;
  return { time: `${line.slice(0, 23)}Z`, continues: line[31] === '+' };
}

/** The header for a line written at `ms` (since the epoch) on `stream`. */
export function stampHeader(ms: number, stream: number): string {
  const iso = new Date(ms).toISOString(); // 2026-01-02T03:04:05.678Z
  return `${iso.slice(0, 23)}000Z ${stream.toString(16).padStart(2, '0')}O `;
}

/** A runner feature flag's value as the reference's runner reads it (Go's strconv.ParseBool). */
export const flagOn = (value: string | undefined): boolean => ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value ?? '');
