// Tells a cache of this process when this process changes the rows it was filled from.
import { AliasNode, DeleteQueryNode, TableNode, UpdateQueryNode, type Kysely, type KyselyPlugin, type OperationNode, type QueryId } from 'kysely';

function tableName(node: OperationNode | undefined): string | undefined {
  if (node && AliasNode.is(node)) return tableName(node.node);
  return node && TableNode.is(node) ? node.table.identifier.name : undefined;
}

function changedTables(node: OperationNode): string[] {
  if (UpdateQueryNode.is(node)) return [tableName(node.table)].filter((t) => t !== undefined);
  if (DeleteQueryNode.is(node)) return node.from.froms.map(tableName).filter((t) => t !== undefined);
  return [];
}

/**
 * `db`, calling `changed` before and after each UPDATE or DELETE of one of `tables` that goes
 * through it (the query builder's statements; there is no raw SQL writing these tables). Before:
 * nothing read from now on is older than the change's start; after: a read that began while the
 * statement ran is not trusted either. Inserts are not watched: a new row was in no cache.
 */
export function watchWrites<DB>(db: Kysely<DB>, tables: readonly string[], changed: () => void): Kysely<DB> {
  const watched = new Set(tables);
  const pending = new WeakSet<QueryId>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (changedTables(node).some((t) => watched.has(t))) {
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
  return db.withPlugin(plugin);
}
