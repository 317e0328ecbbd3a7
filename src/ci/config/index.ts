// The CI file parser's entry point: from the file's text and what is known of the pipeline
// (ref, source, variables, changed paths, the commit's files) to the jobs it will have, or the
// reference's errors. Order as the reference: YAML, includes, `extends`, `!reference`, entry
// validation, parallel expansion, logical checks (stages, needs, dependencies), workflow:rules,
// then each job's rules / only / except.
import { matrixInstances, readConfig, type JobSpec, type PolicySpec } from './entries.js';
import { resolveExtends, resolveReferences } from './extends.js';
import { expandIncludes } from './include.js';
import { applyInputs } from './inputs.js';
import type { RuleSpec } from './entries.js';
import { firstMatchingRule, onlyExceptAllows, RuleError, type EvalContext } from './rules.js';
import type { JobWhen, NeedSpec, Plan, PlanContext, PlannedJob, PlanResult, TriggerSpec } from './types.js';
import { expandVariables } from './variables.js';
import { isMap, loadYaml, type YamlMap } from './yaml.js';

export type { Plan, PlanContext, PlannedJob, PlanResult } from './types.js';

/** How CI lint uses the planner: the same steps, seen from outside. */
export interface PlanOptions {
  /**
   * The static check: every job of the file, as written. workflow:rules and each job's rules,
   * only and except are not evaluated (they are reported instead), and a file whose jobs all sit in
   * `.pre`/`.post` is still a plan.
   */
  allJobs?: boolean;
  /** The configuration once includes, `extends` and `!reference` are resolved. */
  onMerged?(config: YamlMap): void;
  /** Each local file that `include:` brought in, in order. */
  onInclude?(path: string): void;
  /** A job's `only` / `except` as the planner reads them (default `only` filled in; null with rules). */
  onPolicies?(job: string, only: PolicySpec | null, except: PolicySpec | null): void;
}

const DEFAULT_ONLY_REFS = ['branches', 'tags'];
const MAX_NEEDS = 50;
const EDGE_STAGES = new Set(['.pre', '.post']);

interface Instance {
  job: JobSpec;
  name: string;
  /** Matrix values and CI_NODE_INDEX / CI_NODE_TOTAL for parallel instances. */
  vars: Record<string, string>;
}

function invalid(errors: string[]): PlanResult {
  return { kind: 'invalid', errors: [...new Set(errors)] };
}

/** `parallel: N` → `name 1/N` …; `parallel: matrix` → `name: [v1, v2]` …, in the reference's order. */
function expandJob(job: JobSpec): Instance[] {
  const p = job.parallel;
  if (p === null) return [{ job, name: job.name, vars: {} }];
  if (typeof p === 'number') {
    return Array.from({ length: p }, (_, i) => ({
      job,
      name: `${job.name} ${i + 1}/${p}`,
      vars: { CI_NODE_INDEX: String(i + 1), CI_NODE_TOTAL: String(p) },
    }));
  }
  const unique = matrixInstances(job.name, p);
  return unique.map(({ name, combo }, i) => ({
    job,
    name,
    vars: { ...Object.fromEntries(combo), CI_NODE_INDEX: String(i + 1), CI_NODE_TOTAL: String(unique.length) },
  }));
}

/** The reference's Normalizer: a need or dependency on a parallel job means all its instances. */
function expandNames(name: string, instancesOf: Map<string, string[]>): string[] {
  return instancesOf.get(name) ?? [name];
}

function expandNeeds(needs: NeedSpec[] | null, instancesOf: Map<string, string[]>): NeedSpec[] | null {
  if (!needs) return null;
  return needs.flatMap((n) => expandNames(n.job, instancesOf).map((job) => ({ ...n, job })));
}

function hasCycle(graph: Map<string, string[]>): boolean {
  const state = new Map<string, 1 | 2>();
  const visit = (node: string): boolean => {
    const s = state.get(node);
    if (s === 1) return true;
    if (s === 2) return false;
    state.set(node, 1);
    for (const next of graph.get(node) ?? []) if (graph.has(next) && visit(next)) return true;
    state.set(node, 2);
    return false;
  };
  return [...graph.keys()].some(visit);
}

/** The yaml processor's logical checks: stages, dependencies, needs, circular needs. */
function logicalErrors(stages: string[], instances: Instance[], instancesOf: Map<string, string[]>): string[] {
  const errors: string[] = [];
  const stageOf = new Map(instances.map((i) => [i.name, stages.indexOf(i.job.stage)]));
  for (const inst of instances) {
    if (!stages.includes(inst.job.stage)) {
      errors.push(`${inst.name} job: chosen stage does not exist; available stages are ${stages.join(', ')}`);
    }
  }
  const checkDep = (inst: Instance, dep: string, type: 'dependency' | 'need'): void => {
    if (!stageOf.has(dep)) {
      errors.push(`${inst.name} job: undefined ${type}: ${dep}`);
      return;
    }
    const own = stageOf.get(inst.name)!;
    const theirs = stageOf.get(dep)!;
    if (theirs < 0 || own < 0 || theirs > own) errors.push(`${inst.name} job: ${type} ${dep} is not defined in current or prior stages`);
  };
  const graph = new Map<string, string[]>();
  for (const inst of instances) {
    for (const dep of (inst.job.dependencies ?? []).flatMap((d) => expandNames(d, instancesOf))) checkDep(inst, dep, 'dependency');
    const needs = expandNeeds(inst.job.needs, instancesOf);
    if (!needs) continue;
    for (const need of needs) {
      if (need.optional && !stageOf.has(need.job)) continue;
      checkDep(inst, need.job, 'need');
    }
    const seen = new Set<string>();
    const dup = new Set<string>();
    for (const n of needs) (seen.has(n.job) ? dup : seen).add(n.job);
    if (dup.size) errors.push(`${inst.name} has the following needs duplicated: ${[...dup].join(', ')}.`);
    graph.set(inst.name, needs.map((n) => n.job));
  }
  if (errors.length === 0 && hasCycle(graph)) errors.push('The pipeline has circular dependencies.');
  return errors;
}

function inheritedVariables(global: Record<string, string>, inherit: boolean | string[]): Record<string, string> {
  if (inherit === true) return global;
  if (inherit === false) return {};
  return Object.fromEntries(Object.entries(global).filter(([k]) => inherit.includes(k)));
}

function onlyPolicy(job: JobSpec, workflowRules: boolean): PolicySpec | null {
  if (job.only) return { refs: DEFAULT_ONLY_REFS, ...job.only };
  return workflowRules ? null : { refs: DEFAULT_ONLY_REFS };
}

/**
 * The CI file of a child pipeline made of `trigger:include` files (TriggerSpec.include, with their
 * inputs): plan it with planPipeline, source `parent_pipeline`, and the same commit's
 * readFile/listFiles. JSON is YAML's flow style, so paths and inputs keep their values.
 */
export function childPipelineText(trigger: Pick<TriggerSpec, 'include' | 'inputs'>): string {
  const items = (trigger.include ?? []).map((f, i) => {
    const inputs = trigger.inputs?.[i];
    return `  - local: ${JSON.stringify(f)}\n${inputs ? `    inputs: ${JSON.stringify(inputs)}\n` : ''}`;
  });
  return `include:\n${items.join('')}`;
}

/** Plans the pipeline the CI file describes for this ref/source/variables. */
export async function planPipeline(text: string, ctx: PlanContext, opts: PlanOptions = {}): Promise<PlanResult> {
  if (text.trim() === '') return invalid(['Please provide content of .gitlab-ci.yml']);
  const loaded = loadYaml(text);
  if (!loaded.ok) return invalid([loaded.error]);
  // The pipeline's own file may declare inputs too: no pipeline inputs in this API, so defaults.
  const content = applyInputs(loaded.value, loaded.header, null);
  if (!content.ok) return invalid([content.error]);
  if (!isMap(content.value)) return invalid(['Invalid configuration format']);

  let filesPromise: Promise<string[]> | null = null;
  const files = (): Promise<string[]> => (filesPromise ??= ctx.listFiles());
  const included = await expandIncludes(content.value, ctx, files, opts.onInclude);
  if (!included.ok) return invalid([included.error]);
  const root = included.config;

  const extendErrors = resolveExtends(root);
  if (extendErrors.length) return invalid(extendErrors);
  const referenceErrors = resolveReferences(root);
  if (referenceErrors.length) return invalid(referenceErrors);
  opts.onMerged?.(root);

  const read = readConfig(root);
  if (!read.ok) return invalid(read.errors);
  const { stages, workflowRules, jobs } = read.spec;

  const instances = jobs.flatMap(expandJob);
  const instancesOf = new Map<string, string[]>();
  for (const job of jobs) if (job.parallel !== null) instancesOf.set(job.name, instances.filter((i) => i.job === job).map((i) => i.name));
  const logical = logicalErrors(stages, instances, instancesOf);
  if (logical.length) return invalid(logical);

  const ev: EvalContext = { ctx, files };
  /** The first matching rule, or the reference's error for a rule it could not evaluate. */
  const matching = async (rules: RuleSpec[], vars: Record<string, string>, owner: string): Promise<{ rule: RuleSpec | null } | { error: string }> => {
    try {
      return { rule: await firstMatchingRule(rules, vars, ev) };
    } catch (e) {
      if (e instanceof RuleError) return { error: `Failed to parse rule for ${owner}: ${e.message}` };
      throw e;
    }
  };
  let globalVars = { ...read.spec.variables };
  if (workflowRules && !opts.allJobs) {
    const m = await matching(workflowRules, { ...globalVars, ...ctx.variables }, 'workflow');
    if ('error' in m) return invalid([m.error]);
    const rule = m.rule;
    if (!rule || rule.when === 'never') return { kind: 'filtered' };
    if (rule.variables) globalVars = { ...globalVars, ...rule.variables };
  }

  const planned: PlannedJob[] = [];
  const needsOf = new Map<PlannedJob, NeedSpec[] | null>();
  for (const inst of instances) {
    const { job } = inst;
    const inherited = inheritedVariables(globalVars, job.inheritVariables);
    let variables: Record<string, string> = { ...job.variables, ...inst.vars };
    const evalVars = {
      ...inherited,
      ...variables,
      ...ctx.variables,
      CI_JOB_NAME: inst.name,
      CI_JOB_STAGE: job.stage,
      ...(inst.vars.CI_NODE_TOTAL ? { CI_NODE_INDEX: inst.vars.CI_NODE_INDEX!, CI_NODE_TOTAL: inst.vars.CI_NODE_TOTAL } : {}),
    };
    let when: JobWhen = job.when;
    let startIn = job.startIn;
    let allowFailure = job.allowFailure;
    if (opts.allJobs) {
      opts.onPolicies?.(inst.name, job.rules ? null : onlyPolicy(job, workflowRules !== null), job.except);
    } else if (job.rules) {
      const m = await matching(job.rules, evalVars, inst.name);
      if ('error' in m) return invalid([m.error]);
      const rule = m.rule;
      if (!rule || rule.when === 'never') continue;
      when = (rule.when ?? job.when) as JobWhen;
      startIn = when === 'delayed' ? rule.startIn : null;
      if (rule.allowFailure !== null) allowFailure = rule.allowFailure;
      if (rule.variables) variables = { ...variables, ...rule.variables };
    } else if (!onlyExceptAllows(onlyPolicy(job, workflowRules !== null), job.except, evalVars, ctx)) {
      continue;
    }
    const pj: PlannedJob = {
      name: inst.name,
      stage: job.stage,
      stageIdx: stages.indexOf(job.stage),
      type: job.bridge ? 'bridge' : 'build',
      when,
      startIn,
      allowFailure,
      allowFailureExitCodes: job.allowFailureExitCodes,
      beforeScript: job.beforeScript,
      script: job.script,
      afterScript: job.afterScript,
      image: job.image,
      variables,
      needs: null,
      dependencies: null,
      artifacts: job.artifacts,
      coverage: job.coverage,
      retry: job.retry,
      timeout: job.timeout,
      tags: job.tags,
      environment: job.environment,
      interruptible: job.interruptible,
      trigger: job.trigger,
    };
    if (job.inheritVariables !== true) pj.inheritVariables = job.inheritVariables;
    if (job.imageSpec) pj.imageSpec = job.imageSpec;
    if (job.services) pj.services = job.services;
    if (job.cache) pj.cache = job.cache;
    if (job.release) pj.release = job.release;
    planned.push(pj);
    needsOf.set(pj, expandNeeds(job.needs, instancesOf));
    if (job.dependencies) pj.dependencies = job.dependencies.flatMap((d) => expandNames(d, instancesOf));
  }

  // Needs of jobs that rules/only/except left out: optional ones are dropped, others are errors.
  const present = new Set(planned.map((j) => j.name));
  const seedErrors: string[] = [];
  for (const pj of planned) {
    const needs = needsOf.get(pj) ?? null;
    if (needs === null) continue;
    if (needs.length > MAX_NEEDS) {
      seedErrors.push(`${pj.name}: one job can only need ${MAX_NEEDS} others, but you have listed ${needs.length}. See needs keyword documentation for more details`);
      continue;
    }
    const kept: NeedSpec[] = [];
    for (const need of needs) {
      if (present.has(need.job)) kept.push(need);
      else if (!need.optional) seedErrors.push(`'${pj.name}' job needs '${need.job}' job, but '${need.job}' is not in any previous stage`);
    }
    pj.needs = kept;
  }
  // Dependencies on jobs left out fetch nothing: drop them.
  for (const pj of planned) if (pj.dependencies) pj.dependencies = pj.dependencies.filter((d) => present.has(d));
  if (seedErrors.length) return invalid(seedErrors);

  if (!opts.allJobs && (planned.length === 0 || planned.every((j) => EDGE_STAGES.has(j.stage)))) return { kind: 'empty' };
  const plan: Plan = { stages, variables: globalVars, jobs: planned };
  if (read.spec.workflowName) {
    const name = expandVariables(read.spec.workflowName, { ...globalVars, ...ctx.variables }, { unknown: 'empty' }).trim().slice(0, 255);
    if (name) plan.name = name;
  }
  return { kind: 'plan', plan };
}
