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
/** The instant the clock stands at while frozen, else null. */
let frozenAt: number | null = null;
let movable = false;
const listeners = new Set<() => void>();

/** Milliseconds since the epoch, as Anvil's domain sees them. */
export const now = (): number => frozenAt ?? Date.now() + offsetMs;

/** The same instant as a Date. */
export const nowDate = (): Date => new Date(now());

/** Lets the clock be set and advanced (test mode only; elsewhere it cannot move). */
export function enableTestClock(): void {
  movable = true;
}

export const testClockEnabled = (): boolean => movable;

const changed = () => {
  for (const fn of listeners) fn();
};

const mustMove = () => {
  if (!movable) throw new Error('the clock can only move in test mode with the test clock enabled');
};

/** Sets the clock to `ms` since the epoch; time goes on from there (or stays there, while frozen). */
export function setClock(ms: number): void {
  mustMove();
  if (frozenAt !== null) frozenAt = ms;
  else offsetMs = ms - Date.now();
  changed();
}

/** Stops the clock where it is: it moves only when set or advanced, until unfrozen. */
export function freezeClock(): void {
  mustMove();
  frozenAt = now();
  changed();
}

/** Time goes on again from where the frozen clock stands. */
export function unfreezeClock(): void {
  mustMove();
  if (frozenAt !== null) offsetMs = frozenAt - Date.now();
  frozenAt = null;
  changed();
}

/** Back to the system's time, running; it stays movable. */
export function realTime(): void {
  mustMove();
  offsetMs = 0;
  frozenAt = null;
  changed();
}

export const clockFrozen = (): boolean => frozenAt !== null;

/** Where the clock is, to be put back later (a snapshot, a reset): its shift, or the instant it is frozen at. */
export interface ClockState {
  offsetMs: number;
  frozenAt: number | null;
}

export const clockState = (): ClockState => ({ offsetMs, frozenAt });

/** Puts back a state clockState() gave (a clock that cannot move was never moved: nothing to do). */
export function restoreClock(state: ClockState): void {
  if (!movable) return;
  offsetMs = state.offsetMs;
  frozenAt = state.frozenAt;
  changed();
}

/** Moves the clock forward (or back, with a negative amount) by `ms`. */
export function advanceClock(ms: number): void {
  setClock(now() + ms);
}

/** Back to the system clock, and no longer movable (tests that enabled it call this when done). */
export function resetClock(): void {
  offsetMs = 0;
  frozenAt = null;
  movable = false;
  changed();
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
