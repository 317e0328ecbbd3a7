// Event helpers for tests: record events the way other areas will (recordEvent), at chosen times.
import { recordEvent, type NewEvent } from '../../src/domain/events/service.js';
import type { TestApp } from './build.js';

/** Records an event and moves it to `createdAt` (ISO), as if it had happened then. */
export async function eventAt(t: TestApp, e: NewEvent, createdAt: string): Promise<number> {
  const id = await recordEvent(t.c, e);
  await t.c.db.updateTable('events').set({ created_at: createdAt }).where('id', '=', id).execute();
  return id;
}

/** Now minus whole days, as an ISO timestamp. */
export const daysAgo = (days: number, from = Date.now()) => new Date(from - days * 86_400_000).toISOString();

export const EVENT_KEYS = [
  'id', 'title', 'project_id', 'action_name', 'target_id', 'target_iid', 'target_type', 'author_id', 'target_title', 'created_at',
  'author', 'author_username',
].sort();

export const PUSH_DATA_KEYS = ['commit_count', 'action', 'ref_type', 'commit_from', 'commit_to', 'ref', 'commit_title'].sort();
