import type { Kysely } from 'kysely';

// Runner nodes and their leases: every node whose built-in runner runs renews its row's lease on
// a heartbeat, with the boot id of its current process. A running job records the node and boot
// that took it, so a job whose node's lease ran out, or whose node came back with another boot
// id, is known to have no runner any more (src/domain/ci/runner_nodes.ts).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ci_runner_nodes')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('boot_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('lease_expires_at', 'text', (c) => c.notNull())
    .execute();
  // One column per statement: SQLite adds one at a time.
  await db.schema.alterTable('ci_jobs').addColumn('runner_node_id', 'text').execute();
  await db.schema.alterTable('ci_jobs').addColumn('runner_boot_id', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
