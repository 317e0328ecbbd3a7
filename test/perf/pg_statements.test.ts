// PostgreSQL runs repeated statements by name (src/db/dialect.ts): prepared once per connection,
// and prepared again when a migration changed the table under them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/dialect.js';
import { runPage } from '../../src/db/paginate.js';
import { freshPostgresUrl } from '../helpers/build.js';
import type { ScratchDatabase } from '../helpers/postgres.js';

describe('PostgreSQL named statements', { skip: !process.env.ANVIL_TEST_DATABASE_URL && 'needs ANVIL_TEST_DATABASE_URL' }, () => {
  let scratch: ScratchDatabase;
  let db: Kysely<any>;
  before(async () => {
    scratch = await freshPostgresUrl();
    db = await openDatabase({ databaseUrl: scratch.url, dataDir: '' });
    await sql`CREATE TABLE t (a INTEGER, b TEXT)`.execute(db);
    await sql`INSERT INTO t VALUES (1, 'x'), (2, NULL)`.execute(db);
  });
  after(async () => {
    await db.destroy();
    await scratch.drop();
  });

  const readOne = (a: number) => db.selectFrom('t').selectAll().where('a', '=', a).execute();

  it('a repeated read is prepared on the server once, and answers with each run’s values', async () => {
    // One at a time, so the pool hands out the same connection.
    assert.deepEqual(await readOne(1), [{ a: 1, b: 'x' }]);
    assert.deepEqual(await readOne(2), [{ a: 2, b: null }]);
    assert.deepEqual(await readOne(1), [{ a: 1, b: 'x' }]);
    const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db);
    assert.equal(rows.filter((r) => r.statement === 'select * from "t" where "a" = $1').length, 1);
  });

  it('a prepared `*` read names the columns a migration added', async () => {
    await readOne(1);
    await sql`ALTER TABLE t ADD COLUMN c INTEGER DEFAULT 7`.execute(db);
    assert.deepEqual(await readOne(1), [{ a: 1, b: 'x', c: 7 }]);
    assert.deepEqual(await readOne(2), [{ a: 2, b: null, c: 7 }]);
  });

  it('a first page keeps one plan: PostgreSQL does not plan it again at every run', async () => {
    await sql`CREATE TABLE long_list (id SERIAL PRIMARY KEY, k INTEGER NOT NULL, at TEXT NOT NULL)`.execute(db);
    await sql`INSERT INTO long_list (k, at) SELECT i % 3, to_char(i, 'FM000000') FROM generate_series(1, 30000) i`.execute(db);
    await sql`CREATE INDEX long_list_k_at ON long_list (k, at)`.execute(db);
    await sql`ANALYZE long_list`.execute(db);
    const page = { kind: 'offset' as const, page: 1, perPage: 20 };
    const query = () =>
      (db as Kysely<{ long_list: { id: number; k: number; at: string } }>)
        .selectFrom('long_list').selectAll().where('k', '=', 1).orderBy('at', 'desc').orderBy('id', 'desc');
    for (let i = 0; i < 12; i++) {
      const r = await runPage(db as Kysely<any>, query(), page);
      assert.equal(r.items.length, 20);
      assert.equal(r.items[0].at, '029998');
    }
    const { rows } = await sql<{ statement: string; generic_plans: number; custom_plans: number }>`
      SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%from "long_list"%order by%'`.execute(db);
    assert.equal(rows.length, 1, JSON.stringify(rows));
    // PostgreSQL tries five custom plans before it settles on the generic one.
    assert.ok(rows[0].custom_plans <= 5 && rows[0].generic_plans >= 5, JSON.stringify(rows[0]));
  });

  it('an id beyond the column’s range matches nothing, as before', async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual(await readOne(2147483648), []);
  });
});
