// A query that is built and compiled once per dialect and then run with new values. Kysely
// builds and compiles each query anew; for a large joined read on every request that costs
// several times what a small query does. Only for the hottest reads: any other query is
// simply written with Kysely.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import { dialectOf, readDirectly } from './dialect.js';

/** Stands for a value until the query runs (Kysely passes values through untouched). */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * `build(db, values)` writes the query as usual; at compile time each of `values` is a slot
 * that becomes a parameter, so build must use a value only as a value (no `if` on it, no list
 * whose length varies). `variant` names the shapes a query takes (e.g. with or without a caller).
 */
export function compiledOnce<V extends Record<string, unknown>, R>(build: (db: Kysely<any>, values: V, variant: string) => Compilable<R>) {
  const compiled = new Map<string, { sql: string; parameters: readonly unknown[] }>();
  return async function run(db: Kysely<any>, values: V, variant = ''): Promise<R[]> {
    const key = `${dialectOf(db)} ${variant}`;
    let q = compiled.get(key);
    if (!q) {
      const slots = Object.fromEntries(Object.keys(values).map((name) => [name, new Slot(name)])) as unknown as V;
      q = build(db, slots, variant).compile();
      compiled.set(key, q);
    }
    const parameters = q.parameters.map((p) => (p instanceof Slot ? values[p.name] : p));
    const rows = readDirectly(db, q.sql, parameters);
    if (rows) return (await rows) as R[];
    return (await db.executeQuery<R>(CompiledQuery.raw(q.sql, parameters))).rows;
  };
}
