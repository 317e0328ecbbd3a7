// Tells a cache of this process when this process changes the rows it was filled from.
import { onTransactionEnd } from './dialect.js';
import { AliasNode, DeleteQueryNode, InsertQueryNode, TableNode, UpdateQueryNode, type Kysely, type KyselyPlugin, type OperationNode, type QueryId } from 'kysely';

function tableName(node: OperationNode | undefined): string | undefined {
  if (node && AliasNode.is(node)) return tableName(node.node);
  return node && TableNode.is(node) ? node.table.identifier.name : undefined;
}

function changedTables(node: OperationNode, inserts: boolean): string[] {
  if (UpdateQueryNode.is(node)) return [tableName(node.table)].filter((t) => t !== undefined);
  if (DeleteQueryNode.is(node)) return node.from.froms.map(tableName).filter((t) => t !== undefined);
  if (inserts && InsertQueryNode.is(node)) return [tableName(node.into)].filter((t) => t !== undefined);
  return [];
}

/**
 * `db`, calling `changed` before and after each UPDATE or DELETE of one of `tables` that goes
 * through it (the query builder's statements; there is no raw SQL writing these tables), and each
 * INSERT too with `inserts` (for a cache whose entries a new row changes: a new membership changes
 * what a project's reader may do). Before: nothing read from now on is older than the change's
 * start; after: a read that began while the statement ran is not trusted either. And once more
 * when any transaction ends: a read made while it was open (on PostgreSQL, on another connection)
 * saw the rows as they were before it.
 */
export function watchWrites<DB>(db: Kysely<DB>, tables: readonly string[], changed: () => void, opts: { inserts?: boolean } = {}): Kysely<DB> {
  const watched = new Set(tables);
  const pending = new WeakSet<QueryId>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (changedTables(node, opts.inserts ?? false).some((t) => watched.has(t))) {
        changed();
        pending.add(queryId);
      }
      return node;
    },
    async transformResult({ result, queryId }) {
      if (pending.delete(queryId)) changed();
      return result;
    },
  };
  onTransactionEnd(db, changed);
  return db.withPlugin(plugin);
}
