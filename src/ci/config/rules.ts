// Evaluating `rules:` (job and workflow) and `only`/`except` for one pipeline, as the
// reference's lib/gitlab/ci/build/rules and lib/gitlab/ci/build/policy do.
import type { PolicySpec, RuleSpec } from './entries.js';
import { isTruthful } from './expression.js';
import { anyGlobMatches } from './glob.js';
import { parseSlashedRegexp } from './regex.js';
import type { PlanContext } from './types.js';
import { expandVariables } from './variables.js';

export interface EvalContext {
  ctx: PlanContext;
  /** The repository's files, read once. */
  files: () => Promise<string[]>;
}

/** A rule that cannot be evaluated for this pipeline (the reference's Rule::Clause::ParseError). */
export class RuleError extends Error {}

/** `changes:` — the globs (with `$VARS` expanded) against the changed paths; unknown paths match. */
export function changesMatch(globs: readonly string[], vars: Readonly<Record<string, string>>, paths: readonly string[] | null): boolean {
  if (paths === null) return true;
  if (paths.length === 0) return false;
  const expanded = [...new Set(globs.map((g) => expandVariables(g, vars)))];
  if (expanded.length === 0) return false;
  return anyGlobMatches(expanded, paths);
}

async function existsMatch(globs: readonly string[], vars: Readonly<Record<string, string>>, ev: EvalContext): Promise<boolean> {
  const expanded = globs.map((g) => expandVariables(g, vars).replace(/^\/+/, ''));
  if (expanded.length === 0) return false;
  return anyGlobMatches(expanded, await ev.files());
}

/** The pushed paths, or with `compare_to` the paths changed since that ref (any pipeline source). */
export async function changedPaths(compareTo: string | null, vars: Readonly<Record<string, string>>, ctx: PlanContext): Promise<string[] | null> {
  if (compareTo === null) return ctx.changedPaths;
  const paths = await ctx.changedSince(expandVariables(compareTo, vars));
  if (paths === null) throw new RuleError('rules:changes:compare_to is not a valid ref');
  return paths;
}

/** The first rule whose clauses all hold; throws RuleError when one cannot be evaluated. */
export async function firstMatchingRule(
  rules: readonly RuleSpec[],
  vars: Readonly<Record<string, string>>,
  ev: EvalContext,
): Promise<RuleSpec | null> {
  for (const rule of rules) {
    if (rule.if !== null && !isTruthful(rule.if, vars)) continue;
    if (rule.changes !== null && !changesMatch(rule.changes, vars, await changedPaths(rule.compareTo, vars, ev.ctx))) continue;
    if (rule.exists !== null && !(await existsMatch(rule.exists, vars, ev))) continue;
    return rule;
  }
  return null;
}

/** The plural of a pipeline source, as `only: [pushes, schedules, triggers …]` spells them. */
function pluralize(source: string): string {
  if (source === 'merge_request_event') return 'merge_requests';
  if (source === 'external_pull_request_event') return 'external_pull_requests';
  if (/(?:s|sh|ch|x|z)$/.test(source)) return `${source}es`;
  if (/[^aeiou]y$/.test(source)) return `${source.slice(0, -1)}ies`;
  return `${source}s`;
}

function refMatches(pattern: string, ctx: PlanContext): boolean {
  // As the reference: `pattern@group/project` limits the pattern to one project.
  const at = pattern.indexOf('@');
  const ref = at >= 0 ? pattern.slice(0, at) : pattern;
  const path = at >= 0 ? pattern.slice(at + 1) : null;
  if (path !== null && ctx.variables.CI_PROJECT_PATH !== path) return false;
  if (ctx.tag && ref === 'tags') return true;
  if (!ctx.tag && ref === 'branches') return true;
  if (ctx.source === ref || pluralize(ctx.source) === ref) return true;
  const re = parseSlashedRegexp(ref);
  if (re) return re.test(ctx.ref);
  return ref === ctx.ref;
}

function policySatisfied(
  kind: keyof PolicySpec,
  policy: PolicySpec,
  vars: Readonly<Record<string, string>>,
  ctx: PlanContext,
): boolean {
  switch (kind) {
    case 'refs':
      return policy.refs!.some((p) => refMatches(p, ctx));
    case 'variables':
      return policy.variables!.some((s) => isTruthful(s, vars));
    case 'changes':
      return changesMatch(policy.changes!, vars, ctx.changedPaths);
    case 'kubernetes':
      return false;
  }
}

/** only/except: every `only` condition holds and no `except` condition does. */
export function onlyExceptAllows(
  only: PolicySpec | null,
  except: PolicySpec | null,
  vars: Readonly<Record<string, string>>,
  ctx: PlanContext,
): boolean {
  if (only) {
    for (const kind of Object.keys(only) as Array<keyof PolicySpec>) if (!policySatisfied(kind, only, vars, ctx)) return false;
  }
  if (except) {
    for (const kind of Object.keys(except) as Array<keyof PolicySpec>) if (policySatisfied(kind, except, vars, ctx)) return false;
  }
  return true;
}
