// Running durations tick: every second each [data-since] element shows the time since its start.
// Live re-renders bring new ones; start() is called again after each and is a no-op while ticking.
import { duration } from '../views/common.js';

let timer: ReturnType<typeof setInterval> | undefined;

function tick(root: ParentNode): void {
  const els = root.querySelectorAll<HTMLElement>('[data-since]');
  if (els.length === 0) {
    clearInterval(timer);
    timer = undefined;
    return;
  }
  const now = Date.now();
  els.forEach((el) => (el.textContent = duration(Math.max(0, (now - Date.parse(el.dataset.since!)) / 1000))));
}

export function startTicker(root: ParentNode): void {
  if (timer !== undefined || !root.querySelector('[data-since]')) return;
  timer = setInterval(() => tick(root), 1000);
}
