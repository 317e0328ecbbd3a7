// Property test of the CI file parser: on random small pipelines (stages, needs, rules, only,
// parallel, extends, workflow:rules) it never throws, and every plan it makes is consistent —
// stage indexes match Plan.stages, needs and dependencies name planned jobs of the same or an
// earlier stage.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { planPipeline } from '../../src/ci/config/index.js';
import { ctxOf } from './config_fixtures.js';

const jobArb = fc.record(
  {
    script: fc.constant('x'),
    stage: fc.option(fc.constantFrom('build', 'test', 'deploy', '.pre', '.post'), { nil: undefined }),
    when: fc.option(fc.constantFrom('on_success', 'manual', 'always', 'on_failure'), { nil: undefined }),
    needs: fc.option(
      fc.array(fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.record({ job: fc.constantFrom('a', 'b', 'c', 'zz'), optional: fc.boolean() })), { maxLength: 2 }),
      { nil: undefined },
    ),
    dependencies: fc.option(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 1 }), { nil: undefined }),
    rules: fc.option(
      fc.array(fc.record({ if: fc.constantFrom('$A == "1"', '$CI_COMMIT_BRANCH', '$P == "1"', '$B'), when: fc.constantFrom('always', 'never', 'manual') }, { requiredKeys: [] }), {
        minLength: 1,
        maxLength: 3,
      }),
      { nil: undefined },
    ),
    parallel: fc.option(
      fc.oneof(
        fc.integer({ min: 1, max: 3 }),
        fc.record({ matrix: fc.array(fc.dictionary(fc.constantFrom('P', 'Q'), fc.array(fc.constantFrom('1', '2'), { minLength: 1, maxLength: 2 }), { minKeys: 1 }), { minLength: 1, maxLength: 2 }) }),
      ),
      { nil: undefined },
    ),
    extends: fc.option(fc.constant('.t'), { nil: undefined }),
    only: fc.option(fc.array(fc.constantFrom('main', 'tags', 'branches', '/^ma/'), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  },
  { requiredKeys: ['script'] },
);

describe('CI config: property', () => {
  it('plans are consistent and the parser never throws', async () => {
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.record({ a: jobArb, b: jobArb, c: jobArb }), fc.boolean(), fc.constantFrom('main', 'dev'), async (jobs, workflow, ref) => {
        const root = JSON.parse(JSON.stringify(jobs)) as Record<string, Record<string, unknown>>;
        for (const j of Object.values(root)) {
          if (j.rules) {
            delete j.only;
            delete j.when;
          }
        }
        const file: Record<string, unknown> = { ...root, '.t': { image: 'alpine', variables: { T: '1' } } };
        if (workflow) file.workflow = { rules: [{ if: '$CI_COMMIT_BRANCH' }] };
        const r = await planPipeline(stringify(file), ctxOf({ ref, vars: { A: '1' } }));
        kinds.add(r.kind);
        if (r.kind === 'invalid') assert.ok(r.errors.length > 0);
        if (r.kind !== 'plan') return;
        const byName = new Map(r.plan.jobs.map((j) => [j.name, j]));
        assert.equal(byName.size, r.plan.jobs.length, 'job names are unique');
        assert.ok(r.plan.jobs.some((j) => j.stage !== '.pre' && j.stage !== '.post'));
        for (const j of r.plan.jobs) {
          assert.equal(j.stageIdx, r.plan.stages.indexOf(j.stage));
          assert.ok(j.stageIdx >= 0);
          for (const n of j.needs ?? []) {
            const target = byName.get(n.job);
            assert.ok(target, `need ${n.job} of ${j.name} is planned`);
            assert.ok(target.stageIdx <= j.stageIdx);
          }
          for (const d of j.dependencies ?? []) assert.ok(byName.has(d), `dependency ${d} of ${j.name} is planned`);
        }
      }),
      { numRuns: 300, seed: 4242 },
    );
    assert.ok(kinds.has('plan') && kinds.has('invalid'), [...kinds].join(','));
  });
});
