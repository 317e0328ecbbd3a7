// Rows are built from the driver's raw arrays on both dialects (src/db/dialect.ts): they must be
// the objects the driver would have given, also after a migration changes a cached statement's table.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/dialect.js';
import { DIALECTS } from '../helpers/build.js';
import { scratchDatabase, type ScratchDatabase } from '../helpers/postgres.js';

for (const dialect of DIALECTS) {
  describe(`rows (${dialect})`, () => {
    let dir: string;
    let pgDb: ScratchDatabase | null = null;
    let db: Kysely<any>;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-rows-'));
      if (dialect === 'postgres') pgDb = await scratchDatabase(process.env.ANVIL_TEST_DATABASE_URL!, 'anvil_rows');
      db = await openDatabase({ databaseUrl: pgDb?.url ?? null, dataDir: dir });
      await sql`CREATE TABLE t (a INTEGER, b TEXT)`.execute(db);
      await sql`INSERT INTO t VALUES (1, 'x'), (2, NULL)`.execute(db);
    });
    after(async () => {
      await db.destroy();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('keys in column order, and a repeated name keeps its last value', async () => {
      const rows = await db.selectFrom('t').selectAll().orderBy('a').execute();
      assert.deepEqual(rows, [{ a: 1, b: 'x' }, { a: 2, b: null }]);
      assert.deepEqual(Object.keys(rows[0]), ['a', 'b']);
      const { rows: dup } = await sql`SELECT a, b, 3 AS a FROM t WHERE a = 1`.execute(db);
      assert.deepEqual(dup, [{ a: 3, b: 'x' }]);
    });

    it('any column name is a plain key: quotes, backslashes, line breaks and braces included', async () => {
      const names = ['we"ird', 'back\\slash', 'line\nbreak', '}; throw 1; ({', "it's"];
      const select = names.map((n, i) => `${i} AS "${n.replace(/"/g, '""')}"`).join(', ');
      const { rows } = await sql.raw(`SELECT ${select}`).execute(db);
      assert.deepEqual(rows, [Object.fromEntries(names.map((n, i) => [n, i]))]);
    });

    it('two statements on one connection keep their own columns', async () => {
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(await db.selectFrom('t').select(['b']).where('a', '=', 1).execute(), [{ b: 'x' }]);
        assert.deepEqual(await db.selectFrom('t').select(['a']).where('a', '=', 2).execute(), [{ a: 2 }]);
      }
    });

    it('a cached `*` statement names the columns a migration added', async () => {
      // Run twice first: on PostgreSQL a statement is prepared under a name the second time it is seen.
      for (let i = 0; i < 2; i++) await db.selectFrom('t').selectAll().where('a', '=', 1).execute();
      await sql`ALTER TABLE t ADD COLUMN c INTEGER DEFAULT 7`.execute(db);
      assert.deepEqual(await db.selectFrom('t').selectAll().where('a', '=', 1).execute(), [{ a: 1, b: 'x', c: 7 }]);
    });

    it('a write that returns nothing still answers its count', async () => {
      const r = await db.updateTable('t').set({ b: 'y' }).where('a', '=', 2).executeTakeFirst();
      assert.equal(Number(r.numUpdatedRows), 1);
    });

    it("a failed statement rejects with the database's code, and the next one on the pool runs", async () => {
      for (let i = 0; i < 3; i++) {
        await assert.rejects(sql`SELECT * FROM no_such_table WHERE a = ${i}`.execute(db), (e: { code?: string }) =>
          dialect === 'postgres' ? e.code === '42P01' : /no such table/.test(String(e)));
        assert.deepEqual((await sql`SELECT a FROM t WHERE a = ${1}`.execute(db)).rows, [{ a: 1 }]);
      }
    });

    if (dialect === 'postgres') {
      it('a text of several statements without values runs whole (the simple protocol, as pg runs it)', async () => {
        await sql.raw('CREATE TABLE u (x INTEGER); INSERT INTO u VALUES (5); INSERT INTO u VALUES (6)').execute(db);
        assert.deepEqual((await sql`SELECT x FROM u ORDER BY x`.execute(db)).rows, [{ x: 5 }, { x: 6 }]);
      });
    }

    if (dialect === 'sqlite') {
      it('streams rows as objects too', async () => {
        const seen: unknown[] = [];
        for await (const r of db.selectFrom('t').select(['a']).orderBy('a').stream()) seen.push(r);
        assert.deepEqual(seen, [{ a: 1 }, { a: 2 }]);
      });
    }
  });
}
