// Small views used across pages, server-rendered and (where live) re-rendered in the browser.
import { html, type Html } from '../html.js';
import { now as clockNow } from '../../shared/clock.js';

/** A CI status as the reference shows it: an icon-like dot and the word, coloured by status. */
export function statusBadge(status: string | null | undefined, allowFailure = false): Html {
  const s = status ?? 'created';
  // A job allowed to fail failed without failing its pipeline: say so, in words and in its own colour.
  const allowed = s === 'failed' && allowFailure;
  return html`<span class="status status-${allowed ? 'failed-allowed' : s}" data-status="${s}"><span class="status-dot" aria-hidden="true"></span>${statusWords(s, allowFailure)}</span>`;
}

export const statusWords = (status: string, allowFailure = false): string =>
  status === 'failed' && allowFailure ? 'failed (allowed to fail)' : status.replace(/_/g, ' ');

/** A timestamp: rendered in UTC and labelled so; the browser shows it in the viewer's local time
 * (client/times.ts), the UTC time staying on hover. */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">&mdash;</span>`;
  const utc = iso.replace('T', ' ').replace(/\.\d+/, '').replace(/Z$|[+-]00:?00$/, '');
  return html`<time datetime="${iso}" title="${utc} UTC">${utc.slice(0, 16)} UTC</time>`;
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

export const shortSha = (sha: string | null | undefined): string => (sha ?? '').slice(0, 8);

/** A user's or group's picture, or their initial on a tinted square; `src` is a path of this site. */
export function avatar(src: string | null | undefined, name: string, size: 'small' | 'large' = 'small'): Html {
  if (src) return html`<img class="avatar avatar-${size}" src="${src}" alt="">`;
  return html`<span class="avatar avatar-${size} avatar-initial" aria-hidden="true">${(name.trim()[0] ?? '?').toUpperCase()}</span>`;
}

/**
 * A duration that is still growing (a running job or pipeline, started at `since`): the server
 * renders it as of now, the browser keeps it ticking (client/ticker.ts). Without `since`, the
 * plain duration.
 */
export function liveDuration(seconds: number | null | undefined, since: string | null | undefined): Html {
  if (!since) return html`${duration(seconds)}`;
  const elapsed = Math.max(0, (clockNow() - Date.parse(since)) / 1000);
  return html`<span data-since="${since}">${duration(Math.max(seconds ?? 0, elapsed))}</span>`;
}
