// Rate limits count in fixed one-minute windows of the domain clock: a test that counts requests
// up to a limit starts at the beginning of a window, so the window cannot roll over mid-count.
import { enableTestClock, now, resetClock, setClock } from '../../src/shared/clock.js';

/** Moves the domain clock to just after the start of the next minute (call resetClock() when done). */
export function startOfRateWindow(): void {
  enableTestClock();
  setClock(Math.ceil(now() / 60_000) * 60_000 + 50);
}

export { resetClock };
