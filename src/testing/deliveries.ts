// The delivery inbox: what went out in test mode (src/outbound/record.ts), numbered, the newest
// kept, and a wait for the next one (GET /-/test/deliveries?since=&wait=).
import type { InboxAnswer, OutboundRecord, OutboundRecorder } from '../outbound/record.js';
import { FaultRules } from './faults.js';
import { nowIso } from '../shared/time.js';
import { Sleepers } from '../shared/sleepers.js';

export interface Delivery extends OutboundRecord {
  id: number;
  created_at: string;
}

const KEEP = 10_000;

export class DeliveryLog implements OutboundRecorder {
  private entries: Delivery[] = [];
  private lastId = 0;
  private readonly waiters = new Sleepers();
  /** Faults and latency of the inbox's answers (/-/test/inbox/faults). */
  readonly inboxFaults = new FaultRules('url');

  async answerInbox(method: string, url: string, timeoutMs: number): Promise<InboxAnswer> {
    const fault = this.inboxFaults.take(method, url, null);
    if (!fault) return { status: 200, headers: {}, body: '' };
    // A receiver slower than the sender's timeout: the sender gives up at its timeout, as with a real one.
    await new Promise((r) => setTimeout(r, Math.min(fault.delayMs, timeoutMs)));
    if (fault.delayMs > timeoutMs) return { error: 'execution expired', timeout: true };
    switch (fault.action.kind) {
      case 'answer':
        return { status: fault.action.status, headers: fault.action.headers, body: fault.action.body };
      case 'drop':
        return { error: 'socket hang up', timeout: false };
      case 'reset':
        return { error: 'read ECONNRESET', timeout: false };
      default:
        return { status: 200, headers: {}, body: '' };
    }
  }

  record(r: OutboundRecord): void {
    this.entries.push({ id: ++this.lastId, created_at: nowIso(), ...r });
    if (this.entries.length > KEEP) this.entries.splice(0, this.entries.length - KEEP);
    this.waiters.wakeAll();
  }

  /** Deliveries after `since`; when there is none yet, waits up to `waitMs` for the next. */
  async after(since: number, waitMs: number): Promise<Delivery[]> {
    const found = () => this.entries.filter((e) => e.id > since);
    const list = found();
    if (list.length || waitMs <= 0) return list;
    await this.waiters.sleep(waitMs);
    return found();
  }

  /** Forgets what went out (a reset); ids keep counting. */
  clear(): void {
    this.entries = [];
  }
}
