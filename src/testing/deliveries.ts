// The delivery inbox: what went out in test mode (src/outbound/record.ts), numbered, the newest
// kept, and a wait for the next one (GET /-/test/deliveries?since=&wait=).
import type { OutboundRecord, OutboundRecorder } from '../outbound/record.js';
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
