// Helpers for the CI file parser's tests: a PlanContext over an in-memory repository.
import assert from 'node:assert/strict';
import { planPipeline } from '../../src/ci/config/index.js';
import type { Plan, PlanContext, PlannedJob, PlanResult } from '../../src/ci/config/types.js';

export interface Ctx extends PlanContext {
  /** How many times listFiles() was called. */
  listCalls: number;
}

/**
 * `changedSince`: ref → the paths changed since it (for `rules:changes:compare_to`); a ref not
 * listed does not exist.
 */
export function ctxOf(
  over: Partial<Omit<PlanContext, 'changedSince'>> & {
    files?: Record<string, string>;
    vars?: Record<string, string>;
    changedSince?: Record<string, string[]>;
  } = {},
): Ctx {
  const files = over.files ?? {};
  const ref = over.ref ?? 'main';
  const tag = over.tag ?? false;
  const source = over.source ?? 'push';
  const ctx: Ctx = {
    variables: {
      CI_PIPELINE_SOURCE: source,
      CI_COMMIT_REF_NAME: ref,
      ...(tag ? { CI_COMMIT_TAG: ref } : { CI_COMMIT_BRANCH: ref }),
      CI_DEFAULT_BRANCH: 'main',
      CI_PROJECT_PATH: 'group/project',
      ...(over.vars ?? {}),
      ...(over.variables ?? {}),
    },
    ref,
    tag,
    source,
    changedPaths: over.changedPaths === undefined ? null : over.changedPaths,
    readFile: over.readFile ?? (async (path: string) => (Object.prototype.hasOwnProperty.call(files, path) ? files[path]! : null)),
    listFiles: async () => {
      ctx.listCalls++;
      return over.listFiles ? over.listFiles() : Object.keys(files).sort();
    },
    changedSince: async (rev: string) => over.changedSince?.[rev] ?? null,
    listCalls: 0,
  };
  return ctx;
}

export async function result(yml: string, ctx: PlanContext = ctxOf()): Promise<PlanResult> {
  return planPipeline(yml, ctx);
}

export async function plan(yml: string, ctx: PlanContext = ctxOf()): Promise<Plan> {
  const r = await planPipeline(yml, ctx);
  assert.equal(r.kind, 'plan', JSON.stringify(r));
  return (r as { kind: 'plan'; plan: Plan }).plan;
}

export async function errorsOf(yml: string, ctx: PlanContext = ctxOf()): Promise<string[]> {
  const r = await planPipeline(yml, ctx);
  assert.equal(r.kind, 'invalid', JSON.stringify(r));
  return (r as { kind: 'invalid'; errors: string[] }).errors;
}

export async function assertError(yml: string, message: string, ctx?: PlanContext): Promise<void> {
  const errors = await errorsOf(yml, ctx);
  assert.ok(errors.includes(message), `expected ${JSON.stringify(message)} in ${JSON.stringify(errors)}`);
}

export function job(p: Plan, name: string): PlannedJob {
  const j = p.jobs.find((x) => x.name === name);
  assert.ok(j, `job ${name} not in ${JSON.stringify(p.jobs.map((x) => x.name))}`);
  return j;
}

export function names(p: Plan): string[] {
  return p.jobs.map((j) => j.name);
}
