// The one clock Anvil's domain reads: what time it is for token expiry, export and artifact
// expiry, delayed jobs, job timeouts, rate-limit windows, hook back-off, retention, and every
// timestamp Anvil stores. It is the system clock shifted by an offset that is 0 unless test mode
// enabled the test clock (`ANVIL_TEST_CLOCK=1`, `--clock`) and a test moved it; reading it costs
// one addition.
//
// What is not domain time stays on the system clock: durations measured around an operation,
// network deadlines, leases between live processes, caches, signing dates sent to a storage
// service.

let offsetMs = 0;
let movable = false;
const listeners = new Set<() => void>();

/** Milliseconds since the epoch, as Anvil's domain sees them. */
export const now = (): number => Date.now() + offsetMs;

/** The same instant as a Date. */
export const nowDate = (): Date => new Date(Date.now() + offsetMs);

/** Lets the clock be set and advanced (test mode only; elsewhere it cannot move). */
export function enableTestClock(): void {
  movable = true;
}

export const testClockEnabled = (): boolean => movable;

/** Sets the clock to `ms` since the epoch; time goes on from there. */
export function setClock(ms: number): void {
  if (!movable) throw new Error('the clock can only move in test mode with the test clock enabled');
  offsetMs = ms - Date.now();
  for (const fn of listeners) fn();
}

/** Moves the clock forward (or back, with a negative amount) by `ms`. */
export function advanceClock(ms: number): void {
  setClock(now() + ms);
}

/** Back to the system clock, and no longer movable (tests that enabled it call this when done). */
export function resetClock(): void {
  offsetMs = 0;
  movable = false;
  for (const fn of listeners) fn();
}

/** Calls `fn` whenever the clock was set or advanced; returns the unsubscribe. */
export function onClockChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * Runs `fn` once when the clock reaches `atMs`: a timer that follows the clock when a test moves
 * it. `clear()` cancels it.
 */
export function clockTimer(atMs: number, fn: () => void): { clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const arm = () => {
    clearTimeout(timer);
    if (done) return;
    timer = setTimeout(fire, Math.max(0, Math.min(atMs - now(), 2 ** 31 - 1)));
  };
  const fire = () => {
    if (done) return;
    if (atMs > now()) return arm(); // a long wait is armed in pieces, or the clock went back
    done = true;
    unsubscribe();
    fn();
  };
  const unsubscribe = onClockChange(arm);
  arm();
  return {
    clear() {
      done = true;
      clearTimeout(timer);
      unsubscribe();
    },
  };
}
