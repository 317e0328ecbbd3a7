// The number of SQL statements each hot read runs. A count that grows is a regression (an N+1 in
// a list, a lookup run twice); lower the bound when a change makes a read cheaper.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statementsRun } from '../../src/db/dialect.js';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/build.js';
import { commitOn } from '../helpers/branches.js';
import { createPipelineOk, makeCiProject } from '../helpers/ci.js';
import { addMember, makeGroup, makeProject } from '../helpers/projects.js';

/** Counts every statement the app's database runs from now on (transactions included), as its driver sees them. */
function countStatements(t: TestApp): { take(): number } {
  let from = statementsRun(t.c.db);
  return {
    take() {
      const to = statementsRun(t.c.db);
      const n = to - from;
      from = to;
      return n;
    },
  };
}

/**
 * The most statements each read may run (lower these as reads get cheaper, never raise them).
 * A list's last page needs no count, so a longer page may cost less than a shorter one.
 */
const MAX = { user: 1, project: 2, projects: 3, jobs: 7, pipelines: 4, pipelineJobs: 7, branches: 4 };

for (const dialect of DIALECTS) {
  describe(`statements per hot read (${dialect})`, () => {
    let t: TestApp;
    let counter: { take(): number };
    let member: { id: number; token: string };
    let projectId: number;
    let ciProjectId: number;
    let pipelineId: number;

    /** The statements one GET runs (after a first call, so one-off writes such as last_used_at are done), its token lookup included. */
    async function statementsOf(url: string, token = t.rootToken): Promise<number> {
      const warm = await t.get(url, token);
      assert.equal(warm.status, 200, `${url}: ${warm.text}`);
      // Every counted request reads its token (a cache hit would depend on the time between two calls).
      t.c.authCache.forgetAll();
      counter.take();
      const r = await t.get(url, token);
      assert.equal(r.status, 200);
      return counter.take();
    }

    before(async () => {
      t = await buildTestApp(dialect);
      member = await t.createUser();
      // Projects in several groups (and root's own namespace), so a longer page spans more namespaces.
      const groups = [];
      for (let g = 0; g < 4; g++) {
        groups.push(await makeGroup(t, `perf-${dialect}-${g}`, { visibility: 20 }));
        await addMember(t, 'Namespace', groups[g].id, member.id, 30);
      }
      for (let i = 0; i < 21; i++) {
        const namespaceId = i % 2 ? groups[(i >> 1) % groups.length].id : undefined;
        const p = await makeProject(t, t.rootToken, { name: `p${i}`, namespace_id: namespaceId, visibility: i % 3 ? 'private' : 'internal' });
        projectId = p.id;
      }
      await addMember(t, 'Project', projectId, member.id, 20);
      const ci = await makeCiProject(t);
      ciProjectId = ci.id;
      for (let i = 0; i < 10; i++) pipelineId = (await createPipelineOk(t, ci.id)).id;
      for (let i = 0; i < 21; i++) await commitOn(t, ci.id, `branch-${i}`, { [`f${i}`]: `${i}` }, `on ${i}`, 'main');
      counter = countStatements(t);
    });
    after(() => t.close());

    it('GET /user', async () => {
      const n = await statementsOf('/api/v4/user');
      assert.ok(n <= MAX.user, `${n}`);
    });

    it('GET /projects/:id, by id and by full path, as root and as a member', async () => {
      const { body: p } = await t.get(`/api/v4/projects/${projectId}`);
      for (const token of [t.rootToken, member.token]) {
        for (const id of [String(projectId), encodeURIComponent(p.path_with_namespace), encodeURIComponent(p.path_with_namespace.toUpperCase())]) {
          const n = await statementsOf(`/api/v4/projects/${id}`, token);
          assert.ok(n <= MAX.project, `${id}: ${n}`);
        }
      }
    });

    it('GET /projects: a page of 20 costs no more than a page of 2, as root and as a member', async () => {
      for (const token of [t.rootToken, member.token]) {
        // Oldest first, so that both pages hold a personal and a group project.
        const twenty = await statementsOf('/api/v4/projects?order_by=id&sort=asc&per_page=20', token);
        const two = await statementsOf('/api/v4/projects?order_by=id&sort=asc&per_page=2', token);
        assert.ok(twenty <= two, `${twenty} > ${two}`);
        assert.ok(two <= MAX.projects, `${two}`);
      }
    });

    it('GET /projects/:id/jobs: a page of 20 costs no more than a page of 2', async () => {
      const twenty = await statementsOf(`/api/v4/projects/${ciProjectId}/jobs?per_page=20`);
      const two = await statementsOf(`/api/v4/projects/${ciProjectId}/jobs?per_page=2`);
      assert.ok(twenty <= two, `${twenty} > ${two}`);
      assert.ok(two <= MAX.jobs, `${two}`);
    });

    it('GET /projects/:id/pipelines: a page of 20 costs no more than a page of 2', async () => {
      const twenty = await statementsOf(`/api/v4/projects/${ciProjectId}/pipelines?per_page=20`);
      const two = await statementsOf(`/api/v4/projects/${ciProjectId}/pipelines?per_page=2`);
      assert.ok(twenty <= two, `${twenty} > ${two}`);
      assert.ok(two <= MAX.pipelines, `${two}`);
    });

    it("GET …/pipelines/:pipeline_id/jobs: the pipeline is read once, a page of 20 costs no more than a page of 1", async () => {
      const twenty = await statementsOf(`/api/v4/projects/${ciProjectId}/pipelines/${pipelineId}/jobs?per_page=20`);
      const one = await statementsOf(`/api/v4/projects/${ciProjectId}/pipelines/${pipelineId}/jobs?per_page=1`);
      assert.ok(twenty <= one, `${twenty} > ${one}`);
      assert.ok(one <= MAX.pipelineJobs, `${one}`);
    });

    it('GET /repository/branches: a page of 20 costs no more than a page of 2', async () => {
      const twenty = await statementsOf(`/api/v4/projects/${ciProjectId}/repository/branches?per_page=20`);
      const two = await statementsOf(`/api/v4/projects/${ciProjectId}/repository/branches?per_page=2`);
      assert.ok(twenty <= two, `${twenty} > ${two}`);
      assert.ok(two <= MAX.branches, `${two}`);
    });
  });
}
