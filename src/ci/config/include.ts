// `include:` — local files of the same commit (`include: 'path'`, a list of paths, `{local:
// path}`, wildcard paths like `configs/*.yml`, `$VARIABLES` in paths, `rules:` with `if`,
// `exists` and `changes`, `inputs:` for files that declare `spec:inputs`), nested includes,
// merged as the reference does: the included files in order (a later one wins), then the
// including file on top.
import { isTruthful } from './expression.js';
import { deepMerge } from './extends.js';
import { anyGlobMatches, globMatch, isGlob } from './glob.js';
import { applyInputs } from './inputs.js';
import { changedPaths, changesMatch, RuleError } from './rules.js';
import type { PlanContext } from './types.js';
import { expandVariables } from './variables.js';
import { isMap, loadYaml, type YamlMap, type YamlValue } from './yaml.js';

export const MAX_INCLUDES = 100;
/** The keys an `include:` hash may have (the reference's Entry::Include). */
const INCLUDE_KEYS = ['local', 'file', 'remote', 'template', 'component', 'artifact', 'project', 'ref', 'job', 'rules', 'inputs', 'cache', 'integrity'];

interface IncludeState {
  ctx: PlanContext;
  count: number;
  files: () => Promise<string[]>;
  onInclude?: (path: string) => void;
}

class IncludeError extends Error {}

function describe(value: YamlValue): string {
  return JSON.stringify(value);
}

async function includeRulesPass(rules: YamlValue, state: IncludeState): Promise<boolean> {
  if (!Array.isArray(rules)) throw new IncludeError('include rules should be an array of hashes');
  for (const rule of rules) {
    if (!isMap(rule)) throw new IncludeError('include rule should be a hash');
    const unknown = Object.keys(rule).filter((k) => !['if', 'exists', 'changes', 'when'].includes(k));
    if (unknown.length) throw new IncludeError(`include rule config contains unknown keys: ${unknown.join(', ')}`);
    const vars = state.ctx.variables;
    let ok = true;
    if (rule.if !== undefined) ok = typeof rule.if === 'string' && isTruthful(rule.if, vars);
    if (ok && rule.exists !== undefined) {
      const globs = (Array.isArray(rule.exists) ? rule.exists : [rule.exists]).map(String);
      ok = anyGlobMatches(globs, await state.files());
    }
    if (ok && rule.changes !== undefined && rule.changes !== null) {
      // `changes: [globs]` or `changes: {paths, compare_to}`, as a job rule's.
      const c = rule.changes;
      const globs = isMap(c) ? c.paths : c;
      if (!Array.isArray(globs)) throw new IncludeError('include rule changes should be an array of strings');
      const compareTo = isMap(c) && typeof c.compare_to === 'string' ? c.compare_to : null;
      try {
        ok = changesMatch(globs.map(String), vars, await changedPaths(compareTo, vars, state.ctx));
      } catch (e) {
        if (e instanceof RuleError) throw new IncludeError(e.message);
        throw e;
      }
    }
    if (ok) return rule.when !== 'never';
  }
  return false;
}

/** The local paths one `include:` item stands for (wildcards expanded), or [] when its rules exclude it. */
async function localPaths(item: YamlValue, state: IncludeState): Promise<string[]> {
  let location: string;
  if (typeof item === 'string') {
    if (/^https?:\/\//.test(item)) throw new IncludeError(`Remote file \`${item}\` could not be fetched: only local includes are supported`);
    location = item;
  } else if (isMap(item)) {
    const accessors = ['local', 'file', 'remote', 'template', 'component', 'artifact'].filter((k) => k in item);
    if (accessors.length !== 1) throw new IncludeError(`Include \`${describe(item)}\` needs to match exactly one accessor!`);
    const unknown = Object.keys(item).filter((k) => !INCLUDE_KEYS.includes(k));
    if (unknown.length) throw new IncludeError(`include config contains unknown keys: ${unknown.join(', ')}`);
    if (accessors[0] !== 'local' || typeof item.local !== 'string') {
      throw new IncludeError(`Include \`${describe(item)}\` is not supported: only local includes are`);
    }
    if (item.rules !== undefined && !(await includeRulesPass(item.rules, state))) return [];
    location = item.local;
  } else {
    throw new IncludeError(`Include \`${describe(item)}\` needs to match exactly one accessor!`);
  }
  const expanded = expandVariables(location, state.ctx.variables);
  if (!/\.ya?ml$/.test(expanded)) throw new IncludeError(`Included file \`${expanded}\` does not have YAML extension!`);
  const path = expanded.replace(/^\/+/, '');
  if (isGlob(path)) {
    const found = (await state.files()).filter((f) => globMatch(path, f));
    return found;
  }
  return [path];
}

async function loadLocal(path: string, shown: string, inputs: YamlMap | null, state: IncludeState, depth: number): Promise<YamlMap> {
  if (++state.count > MAX_INCLUDES) throw new IncludeError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
  const content = await state.ctx.readFile(path);
  if (content !== null) state.onInclude?.(path);
  if (content === null) throw new IncludeError(`Local file \`${shown}\` does not exist!`);
  if (content.trim() === '') throw new IncludeError(`Local file \`${shown}\` is empty!`);
  const loaded = loadYaml(content);
  if (!loaded.ok || !isMap(loaded.value)) throw new IncludeError(`Included file \`${shown}\` does not have valid YAML syntax!`);
  const interpolated = applyInputs(loaded.value, loaded.header, inputs);
  if (!interpolated.ok) throw new IncludeError(`\`${shown}\`: ${interpolated.error}`);
  if (!isMap(interpolated.value)) throw new IncludeError(`Included file \`${shown}\` does not have valid YAML syntax!`);
  return expandInto(interpolated.value, state, depth + 1);
}

async function expandInto(config: YamlMap, state: IncludeState, depth: number): Promise<YamlMap> {
  if (!('include' in config)) return config;
  if (depth > MAX_INCLUDES) throw new IncludeError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
  const raw = config.include;
  const items = Array.isArray(raw) ? raw : raw === null ? [] : [raw];
  let merged: YamlMap = {};
  for (const item of items) {
    const shown = typeof item === 'string' ? item : isMap(item) && typeof item.local === 'string' ? item.local : '';
    const paths = await localPaths(item, state);
    const inputs = isMap(item) && isMap(item.inputs) ? item.inputs : null;
    for (const path of paths) {
      const label = paths.length === 1 && !isGlob(shown) ? expandVariables(shown, state.ctx.variables) : path;
      merged = deepMerge(merged, await loadLocal(path, label, inputs, state, depth));
    }
  }
  const own: YamlMap = { ...config };
  delete own.include;
  return deepMerge(merged, own);
}

export type IncludeResult = { ok: true; config: YamlMap } | { ok: false; error: string };

/** The file with its `include:` entries expanded (recursively), or the first error. */
export async function expandIncludes(
  root: YamlMap,
  ctx: PlanContext,
  files: () => Promise<string[]>,
  onInclude?: (path: string) => void,
): Promise<IncludeResult> {
  try {
    return { ok: true, config: await expandInto(root, { ctx, count: 0, files, onInclude }, 0) };
  } catch (e) {
    if (e instanceof IncludeError) return { ok: false, error: e.message };
    throw e;
  }
}
