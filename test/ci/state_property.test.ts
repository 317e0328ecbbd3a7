// Property: whatever sequence of runner events (start, finish) and API actions (cancel, retry,
// play, cancel/retry pipeline) hits a pipeline, its status is always the composite of its current
// jobs, every job has exactly one known status, and no planned job is ever lost: each planned
// name has exactly one current (non-retried) job, and retried jobs are finished.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/build.js';
import { makeProject } from '../helpers/projects.js';
import { plannedJob } from '../helpers/ci.js';
import { compositeStatus, JOB_STATUSES } from '../../src/ci/status.js';
import type { Plan, PlannedJob } from '../../src/ci/config/types.js';
import {
  cancelJob, cancelPipeline, createPipelineRecords, finishJob, playJob, retryJob, retryPipeline, startJob,
} from '../../src/domain/ci/state.js';
import { findPipeline } from '../../src/db/repos/ci_pipelines.js';
import type { Actor } from '../../src/domain/auth/actor.js';
import { DomainError } from '../../src/domain/errors.js';

const STAGES = ['build', 'test', 'deploy'];

const jobArb = fc.record({
  stageIdx: fc.integer({ min: 0, max: 2 }),
  when: fc.constantFrom<PlannedJob['when']>('on_success', 'on_success', 'on_failure', 'always', 'manual'),
  allowFailure: fc.boolean(),
  useNeeds: fc.boolean(),
});

const planArb = fc.array(jobArb, { minLength: 1, maxLength: 6 }).map((specs): Plan => {
  const sorted = [...specs].sort((a, b) => a.stageIdx - b.stageIdx);
  const jobs = sorted.map((s, i) => {
    const earlier = sorted.slice(0, i).filter((e) => e.stageIdx < s.stageIdx).map((_, k) => `job${k}`);
    const needs = s.useNeeds ? earlier.slice(-1) : null;
    return plannedJob(`job${i}`, {
      stage: STAGES[s.stageIdx]!, stageIdx: s.stageIdx, when: s.when, allowFailure: s.allowFailure,
      needs: needs === null ? null : needs.map((job) => ({ job, artifacts: true, optional: false })),
    });
  });
  return { stages: STAGES, variables: {}, jobs };
});

type Action =
  | { kind: 'start' | 'cancel' | 'retry' | 'play'; pick: number }
  | { kind: 'finish'; pick: number; ok: boolean }
  | { kind: 'cancelPipeline' | 'retryPipeline' };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant<'start'>('start'), pick: fc.nat() }),
  fc.record({ kind: fc.constant<'finish'>('finish'), pick: fc.nat(), ok: fc.boolean() }),
  fc.record({ kind: fc.constantFrom<'cancel' | 'retry' | 'play'>('cancel', 'retry', 'play'), pick: fc.nat() }),
  fc.record({ kind: fc.constantFrom<'cancelPipeline' | 'retryPipeline'>('cancelPipeline', 'retryPipeline') }),
);

for (const dialect of DIALECTS) {
  describe(`pipeline state machine, property (${dialect})`, () => {
    let t: TestApp;
    let project: any;
    let actor: Actor;
    before(async () => {
      t = await buildTestApp(dialect);
      const p = await makeProject(t, t.rootToken, { name: `prop${Date.now()}` });
      project = await t.c.db.selectFrom('projects').selectAll().where('id', '=', p.id).executeTakeFirstOrThrow();
      const root = await t.c.db.selectFrom('users').selectAll().where('username', '=', 'root').executeTakeFirstOrThrow();
      actor = { user: root } as unknown as Actor;
    });
    after(async () => t.close());

    async function check(pipelineId: number, plan: Plan): Promise<void> {
      const rows = await t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipelineId).execute();
      for (const r of rows) assert.ok((JOB_STATUSES as readonly string[]).includes(r.status), `unknown status ${r.status}`);
      const current = rows.filter((r) => r.retried === 0);
      assert.deepEqual(current.map((r) => r.name).sort(), plan.jobs.map((j) => j.name).sort(), 'each planned job has exactly one current job');
      for (const r of rows.filter((r) => r.retried === 1)) {
        assert.ok(['success', 'failed', 'canceled'].includes(r.status), `retried job ${r.name} is ${r.status}`);
      }
      const running = rows.filter((r) => r.status === 'running');
      for (const r of running) assert.ok(r.token_digest, 'a running job has a token');
      for (const r of rows.filter((r) => r.status !== 'running')) assert.equal(r.token_digest, null, 'only running jobs hold a token');
      const pipeline = await findPipeline(t.c.db, pipelineId);
      assert.equal(pipeline!.status, compositeStatus(current) ?? 'skipped');
    }

    it('keeps the pipeline status equal to the composite of its jobs', async () => {
      await fc.assert(
        fc.asyncProperty(planArb, fc.array(actionArb, { maxLength: 25 }), async (plan, actions) => {
          const pipeline = await createPipelineRecords(t.c, {
            project, ref: 'main', sha: 'a'.repeat(40), beforeSha: '0'.repeat(40), tag: false, source: 'api',
            userId: actor.user.id, commit: null, variables: [], plan,
          });
          await check(pipeline.id, plan);
          for (const a of actions) {
            const jobs = await t.c.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipeline.id).orderBy('id').execute();
            const pick = (statuses: string[]) => {
              const pool = jobs.filter((j) => statuses.includes(j.status) && j.retried === 0);
              return pool.length ? pool[(a as { pick: number }).pick % pool.length] : undefined;
            };
            try {
              if (a.kind === 'start') {
                const j = pick(['pending']);
                if (j) await startJob(t.c, j.id);
              } else if (a.kind === 'finish') {
                const j = pick(['running']);
                if (j) await finishJob(t.c, j.id, a.ok ? { status: 'success' } : { status: 'failed', failureReason: 'script_failure', exitCode: 1 });
              } else if (a.kind === 'cancel') {
                const j = pick([...JOB_STATUSES]);
                if (j) await cancelJob(t.c, j.id);
              } else if (a.kind === 'retry') {
                const j = pick([...JOB_STATUSES]);
                if (j) await retryJob(t.c, actor, j.id);
              } else if (a.kind === 'play') {
                const j = pick([...JOB_STATUSES]);
                if (j) await playJob(t.c, actor, j.id);
              } else if (a.kind === 'cancelPipeline') {
                await cancelPipeline(t.c, pipeline.id);
              } else {
                await retryPipeline(t.c, actor, pipeline.id);
              }
            } catch (err) {
              // Refusals (not retryable, unplayable) are answers, not failures.
              if (!(err instanceof DomainError)) throw err;
            }
            await check(pipeline.id, plan);
          }
        }),
        { numRuns: 40 },
      );
    });
  });
}
