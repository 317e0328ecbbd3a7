// The joined project read (src/db/repos/project_context.ts) hands back two plain objects: the
// project's own row, as a `SELECT *` of it gives, and what was read beside it. Also after a
// migration adds a column to `projects` while the server runs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/build.js';
import { addMember, makeGroup, makeProject } from '../helpers/projects.js';
import { findProjectWithContext } from '../../src/db/repos/project_context.js';
import { today } from '../../src/shared/time.js';

for (const dialect of DIALECTS) {
  describe(`project with context (${dialect})`, () => {
    let t: TestApp;
    let member: { id: number };
    let projectId: number;
    let groupId: number;

    before(async () => {
      t = await buildTestApp(dialect);
      member = await t.createUser();
      const group = await makeGroup(t, `ctx-${dialect}`, { visibility: 0 });
      groupId = group.id;
      const p = await makeProject(t, t.rootToken, { name: 'ctx', namespace_id: group.id, topics: ['b', 'a'] });
      projectId = p.id;
      await addMember(t, 'Project', projectId, member.id, 20);
      await addMember(t, 'Namespace', group.id, member.id, 30);
    });
    after(() => t.close());

    const ownRow = async () => (await t.c.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow()) as Record<string, unknown>;

    it('splits the joined row into the project row and its context', async () => {
      const found = await findProjectWithContext(t.c.db, { id: projectId }, member.id, today());
      assert.ok(found);
      assert.deepEqual(found.row, await ownRow());
      assert.deepEqual(Object.keys(found.row), Object.keys(await ownRow()));
      const x = found.context;
      assert.equal(x.ns_id, groupId);
      assert.equal(x.ns_kind, 'group');
      assert.deepEqual(JSON.parse(x.topics_json), ['b', 'a']);
      assert.equal(x.member_level, 20);
      assert.equal(x.group_level, 30);
      assert.equal(x.owner_id, null);
      // Anonymous: the same row, no memberships.
      const anonymous = await findProjectWithContext(t.c.db, { id: projectId }, null, today());
      assert.deepEqual(anonymous?.row, await ownRow());
      assert.equal(anonymous?.context.member_level, null);
      assert.equal(anonymous?.context.group_level, null);
    });

    it('follows a column added to projects', async () => {
      await findProjectWithContext(t.c.db, { id: projectId }, member.id, today()); // the statement is cached before the change
      await sql`ALTER TABLE projects ADD COLUMN context_test_extra integer`.execute(t.c.db);
      await sql`UPDATE projects SET context_test_extra = 7 WHERE id = ${projectId}`.execute(t.c.db);
      const found = await findProjectWithContext(t.c.db, { id: projectId }, member.id, today());
      assert.equal((found?.row as unknown as Record<string, unknown>).context_test_extra, 7);
      assert.deepEqual(found?.row, await ownRow());
      assert.equal(found?.context.member_level, 20);
      assert.equal('context_test_extra' in (found?.context ?? {}), false);
    });
  });
}
