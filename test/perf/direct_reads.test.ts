// The hottest reads run straight on the driver (src/db/dialect.ts, readDirectly), around Kysely's
// connection queue. They must still never see what another request's open transaction wrote.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';

for (const dialect of DIALECTS) {
  describe(`reads beside an open transaction (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(() => t.close());

    /** Runs `change` in a transaction that stays open until `end` resolves, then rolls it back or commits it. */
    function openTransaction(change: (tx: TestApp['c']['db']) => Promise<unknown>, outcome: 'rollback' | 'commit') {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      let changed!: () => void;
      const written = new Promise<void>((resolve) => (changed = resolve));
      const done = t.c.db.transaction().execute(async (tx) => {
        await change(tx);
        changed();
        await ended;
        if (outcome === 'rollback') throw new Error('rolled back');
      });
      return { written, end, done };
    }

    for (const outcome of ['rollback', 'commit'] as const) {
      it(`GET /projects/:id never answers with a change still in a transaction (${outcome})`, async () => {
        const p = await makeProject(t, t.rootToken, { name: `before-${outcome}` });
        // The token is now cached: the next GET's first statement is the project read itself.
        assert.equal((await t.get(`/api/v4/projects/${p.id}`)).body.name, `before-${outcome}`);

        const tx = openTransaction((db) => db.updateTable('projects').set({ name: `during-${outcome}` }).where('id', '=', p.id).execute(), outcome);
        await tx.written;
        const during = t.get(`/api/v4/projects/${p.id}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        tx.end();
        if (outcome === 'rollback') await assert.rejects(tx.done, /rolled back/);
        else await tx.done;

        // SQLite's one connection makes the read wait for the transaction's end; PostgreSQL reads,
        // on another connection, what was committed when it ran.
        const seen = outcome === 'commit' && dialect === 'sqlite' ? `during-${outcome}` : `before-${outcome}`;
        assert.equal((await during).body.name, seen);
        assert.equal((await t.get(`/api/v4/projects/${p.id}`)).body.name, outcome === 'rollback' ? `before-${outcome}` : `during-${outcome}`);
      });
    }
  });
}
