// `extends` (hidden or visible jobs as templates; string or list; multi-level; hashes merged
// deeply, anything else replaced; at most 10 ancestors) and `!reference` tags, resolved over the
// whole file after includes, as the reference does (lib/gitlab/ci/config/extendable,
// lib/gitlab/ci/config/yaml/tags).
import { isMap, ReferenceTag, type YamlMap, type YamlValue } from './yaml.js';

/** Ruby's Hash#deep_merge!: `over` wins; nested hashes merge; arrays and scalars are replaced. */
export function deepMerge(base: YamlMap, over: YamlMap): YamlMap {
  const out: YamlMap = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const cur = out[k];
    out[k] = isMap(cur) && isMap(v) ? deepMerge(cur, v) : v;
  }
  return out;
}

const MAX_NESTING_LEVELS = 10;

class ExtensionError extends Error {}

function extendsKeys(value: YamlMap): string[] {
  const raw = value.extends;
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((k) => (k instanceof ReferenceTag ? `!reference [${k.path.join(', ')}]` : String(k)));
}

function extendOne(root: YamlMap, key: string, ancestors: string[]): YamlValue {
  const value = root[key];
  if (!isMap(value) || !('extends' in value)) return value ?? null;
  const keys = extendsKeys(value);
  const unknown = keys.filter((k) => !Object.prototype.hasOwnProperty.call(root, k));
  if (unknown.length) throw new ExtensionError(`${key}: unknown keys in \`extends\` (${unknown.join(', ')})`);
  const invalid = keys.filter((k) => !isMap(root[k]));
  if (invalid.length) throw new ExtensionError(`${key}: invalid base hashes in \`extends\` (${invalid.join(', ')})`);
  if (ancestors.length > MAX_NESTING_LEVELS) throw new ExtensionError(`${key}: nesting too deep in \`extends\``);
  if (ancestors.includes(key)) throw new ExtensionError(`${key}: circular dependency detected in \`extends\``);
  let merged: YamlMap = {};
  for (const base of keys) {
    const resolved = extendOne(root, base, [...ancestors, key]);
    merged = deepMerge(merged, resolved as YamlMap);
  }
  const result = deepMerge(merged, value);
  // Kept with its `extends`: a later job extending this one walks the chain again, so the
  // nesting limit counts from each job (as the reference does).
  root[key] = result;
  return result;
}

/** Resolves every `extends` in place; returns the errors (one per failing entry, in file order). */
export function resolveExtends(root: YamlMap): string[] {
  const errors: string[] = [];
  for (const key of Object.keys(root)) {
    try {
      extendOne(root, key, []);
    } catch (e) {
      if (e instanceof ExtensionError) errors.push(e.message);
      else throw e;
    }
  }
  return errors;
}

const MAX_REFERENCE_DEPTH = 10;

function inspectPath(path: string[]): string {
  return `[${path.map((p) => JSON.stringify(p)).join(', ')}]`;
}

class ReferenceError_ extends Error {}

function lookup(root: YamlMap, tag: ReferenceTag, chain: ReferenceTag[]): YamlValue {
  if (chain.length > MAX_REFERENCE_DEPTH || chain.some((t) => inspectPath(t.path) === inspectPath(tag.path))) {
    throw new ReferenceError_(`!reference ${inspectPath(tag.path)} is part of a circular chain`);
  }
  let cur: YamlValue | undefined = root;
  for (const part of tag.path) {
    if (!isMap(cur) || !Object.prototype.hasOwnProperty.call(cur, part)) {
      throw new ReferenceError_(`!reference ${inspectPath(tag.path)} could not be found`);
    }
    cur = cur[part];
  }
  return resolveValue(root, cur ?? null, [...chain, tag]);
}

function resolveValue(root: YamlMap, value: YamlValue, chain: ReferenceTag[]): YamlValue {
  if (value instanceof ReferenceTag) return lookup(root, value, chain);
  if (Array.isArray(value)) return value.map((v) => resolveValue(root, v, chain));
  if (isMap(value)) {
    const out: YamlMap = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolveValue(root, v, chain);
    return out;
  }
  return value;
}

/** Replaces every `!reference` tag by the value it points at; returns the errors. */
export function resolveReferences(root: YamlMap): string[] {
  const errors: string[] = [];
  const resolved: YamlMap = {};
  for (const [k, v] of Object.entries(root)) {
    try {
      resolved[k] = resolveValue(root, v, []);
    } catch (e) {
      if (e instanceof ReferenceError_) {
        errors.push(e.message);
        resolved[k] = v;
      } else throw e;
    }
  }
  for (const k of Object.keys(resolved)) root[k] = resolved[k]!;
  return errors;
}
