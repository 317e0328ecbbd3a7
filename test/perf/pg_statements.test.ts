// PostgreSQL runs repeated statements by name (src/db/dialect.ts): prepared once per connection,
// and prepared again when a migration changed the table under them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/dialect.js';
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

  it('an id beyond the column’s range matches nothing, as before', async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual(await readOne(2147483648), []);
  });
});
