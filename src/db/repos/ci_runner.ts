// Runner nodes and their leases, and the running builds that no live node holds any more.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface RunnerNodeId {
  nodeId: string;
  bootId: string;
}

/** A node (re)joins: its row takes this boot id and a fresh lease, whatever boot it had before. */
export async function joinRunnerNode(db: Kysely<DB>, node: RunnerNodeId, now: string, leaseExpiresAt: string): Promise<void> {
  await db
    .insertInto('ci_runner_nodes')
    .values({ node_id: node.nodeId, boot_id: node.bootId, started_at: now, lease_expires_at: leaseExpiresAt })
    .onConflict((oc) => oc.column('node_id').doUpdateSet({ boot_id: node.bootId, started_at: now, lease_expires_at: leaseExpiresAt }))
    .execute();
}

/** Extends the node's lease; false when its row has another boot id now (another process took the node id). */
export async function renewRunnerNode(db: Kysely<DB>, node: RunnerNodeId, leaseExpiresAt: string): Promise<boolean> {
  const r = await db
    .updateTable('ci_runner_nodes')
    .set({ lease_expires_at: leaseExpiresAt })
    .where('node_id', '=', node.nodeId)
    .where('boot_id', '=', node.bootId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export interface OrphanedBuild {
  id: number;
  project_id: number;
  pipeline_id: number;
  options: string;
  started_at: string | null;
  runner_node_id: string | null;
  runner_boot_id: string | null;
  /** The node's current boot when it has a row (another boot than the job's: it restarted). */
  node_boot_id: string | null;
}

/**
 * Running builds after `afterId` (by id) that no live node holds: their node's lease expired
 * before `now`, or the node runs another boot now, or it has no row. Builds taken without a node
 * (before nodes had leases) come only once started before `startedBefore`.
 */
export const orphanedBuildsAfter = (
  db: Kysely<DB>,
  opts: { now: string; startedBefore: string; afterId: number; limit: number },
): Promise<OrphanedBuild[]> =>
  db
    .selectFrom('ci_jobs as j')
    .leftJoin('ci_runner_nodes as n', 'n.node_id', 'j.runner_node_id')
    .select(['j.id', 'j.project_id', 'j.pipeline_id', 'j.options', 'j.started_at', 'j.runner_node_id', 'j.runner_boot_id', 'n.boot_id as node_boot_id'])
    .where('j.status', '=', 'running')
    .where('j.type', '=', 'build')
    .where('j.id', '>', opts.afterId)
    .where((eb) =>
      eb.or([
        eb.and([eb('j.runner_node_id', 'is', null), eb('j.started_at', '<', opts.startedBefore)]),
        eb.and([
          eb('j.runner_node_id', 'is not', null),
          eb.or([eb('n.node_id', 'is', null), eb('n.boot_id', '!=', eb.ref('j.runner_boot_id')), eb('n.lease_expires_at', '<=', opts.now)]),
        ]),
      ]),
    )
    .orderBy('j.id')
    .limit(opts.limit)
    .execute();
