// Who follows what: a label (for one project or everywhere), an issue or a merge request.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../dialect.js';
import type { DB } from '../schema.js';

export type SubscribableType = 'Label' | 'Issue' | 'MergeRequest';

/** The user's explicit choices on these subscribables (project 0: not for one project), by id. */
export async function subscriptionsOf(
  db: Kysely<DB>,
  userId: number,
  type: SubscribableType,
  ids: number[],
  projectIds: number[] = [0],
): Promise<Map<number, boolean>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('subscriptions')
    .select(['subscribable_id', 'subscribed', 'project_id'])
    .where('user_id', '=', userId)
    .where('subscribable_type', '=', type)
    .where('subscribable_id', 'in', ids)
    .where('project_id', 'in', projectIds)
    .execute();
  const out = new Map<number, boolean>();
  // Any subscribed row wins (a label followed everywhere or in this project).
  for (const r of rows) out.set(r.subscribable_id, (out.get(r.subscribable_id) ?? false) || r.subscribed === 1);
  return out;
}

/** Records the user's choice (subscribed or not) on one subscribable. */
export async function setSubscription(db: Kysely<DB>, userId: number, type: SubscribableType, id: number, projectId: number, subscribed: boolean, now: string): Promise<void> {
  const value = subscribed ? 1 : 0;
  const update = () =>
    db
      .updateTable('subscriptions')
      .set({ subscribed: value, updated_at: now })
      .where('user_id', '=', userId)
      .where('subscribable_type', '=', type)
      .where('subscribable_id', '=', id)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
  if (Number((await update()).numUpdatedRows) > 0) return;
  try {
    await db.insertInto('subscriptions').values({ user_id: userId, subscribable_type: type, subscribable_id: id, project_id: projectId, subscribed: value, created_at: now, updated_at: now }).execute();
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    await update();
  }
}

/** Users who chose to follow one subscribable (participants follow implicitly: the caller adds them). */
export const subscriberIds = async (db: Kysely<DB>, type: SubscribableType, id: number): Promise<{ user_id: number; subscribed: number }[]> =>
  db.selectFrom('subscriptions').select(['user_id', 'subscribed']).where('subscribable_type', '=', type).where('subscribable_id', '=', id).execute();

export const clearSubscriptions = (db: Kysely<DB>, type: SubscribableType, id: number) =>
  db.deleteFrom('subscriptions').where('subscribable_type', '=', type).where('subscribable_id', '=', id).execute();
