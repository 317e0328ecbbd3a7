// Issues, their assignees, links and time logs.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

/** Moves the issues of these milestones to another (or to none). */
export async function moveIssuesToMilestone(db: Kysely<DB>, fromIds: number[], toId: number | null): Promise<void> {
  if (fromIds.length === 0) return;
  await db.updateTable('issues').set({ milestone_id: toId }).where('milestone_id', 'in', fromIds).execute();
}
