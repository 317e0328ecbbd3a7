// `spec:inputs` and `$[[ inputs.name ]]`: a CI file may start with a header document (`spec:`
// then `---`) that declares its inputs; `include:inputs` gives their values. The values are
// checked against the declaration (type string/number/boolean/array, default, options, regex)
// and put in place of every `$[[ inputs.name ]]` block of the content, keys and values, before
// the file is merged: a block that is the whole value keeps its type, a block inside a string is
// written as text. Messages as the reference's lib/gitlab/ci/config/interpolation and
// lib/gitlab/ci/config/header.
import { compileRegexp } from './regex.js';
import { isMap, type YamlMap, type YamlValue } from './yaml.js';

const INPUT_KEYS = ['default', 'description', 'options', 'regex', 'type'];
const INPUT_TYPES = ['array', 'boolean', 'number', 'string'] as const;
type InputType = (typeof INPUT_TYPES)[number];
const MAX_OPTIONS = 50;
const MAX_BLOCKS = 10_000;
const BLOCK = /\$\[\[\s*(\S.*?\S|\S)\s*\]\]/g;

export type InputsResult = { ok: true; value: YamlValue } | { ok: false; error: string };

/** The reference's Interpolator joins at most three errors into the one it reports. */
const failed = (errors: string[]): InputsResult => ({ ok: false, error: errors.slice(0, 3).join(', ') });

function typeOf(value: YamlValue): InputType | null {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'array';
  return null;
}

/** The header's own validation: `spec` with `inputs` only, each input a hash of known keys. */
function headerErrors(header: YamlMap): string[] {
  const errors: string[] = [];
  const spec = header.spec;
  const extra = Object.keys(header).filter((k) => k !== 'spec');
  if (extra.length) errors.push(`header config contains unknown keys: ${extra.join(', ')}`);
  if (!isMap(spec)) return [...errors, 'header:spec config should be a hash'];
  const badSpec = Object.keys(spec).filter((k) => k !== 'inputs');
  if (badSpec.length) errors.push(`header:spec config contains unknown keys: ${badSpec.join(', ')}`);
  if (spec.inputs === undefined || spec.inputs === null) return errors;
  if (!isMap(spec.inputs)) return [...errors, 'header:spec:inputs config should be a hash'];
  for (const [name, input] of Object.entries(spec.inputs)) {
    const at = `header:spec:inputs:${name}`;
    if (!/^[a-zA-Z0-9_-]+$/.test(name)) errors.push(`${at} key must be an alphanumeric string`);
    if (input === null) continue;
    if (!isMap(input)) {
      errors.push(`${at} config should be a hash`);
      continue;
    }
    const bad = Object.keys(input).filter((k) => !INPUT_KEYS.includes(k));
    if (bad.length) errors.push(`${at} config contains unknown keys: ${bad.join(', ')}`);
    if (input.type !== undefined && !INPUT_TYPES.includes(input.type as InputType)) {
      errors.push(`${at} input type unknown value: ${String(input.type)}`);
    }
    if (input.regex !== undefined && typeof input.regex !== 'string') errors.push(`${at} input regex should be a string`);
    if (input.options !== undefined) {
      if (!Array.isArray(input.options)) errors.push(`${at} input options should be an array`);
      else {
        if (input.options.length > MAX_OPTIONS) errors.push(`${at} config cannot define more than ${MAX_OPTIONS} options`);
        if (input.options.some((o) => o === null)) errors.push(`${at} config options array cannot contain null values`);
      }
    }
  }
  return errors;
}

/** One input's value (the given one, else its default), or its errors (`name` input: …). */
function resolveInput(name: string, spec: YamlMap, given: YamlValue | undefined, errors: string[]): YamlValue | undefined {
  const type = (spec.type ?? 'string') as InputType;
  const error = (message: string) => errors.push(`\`${name}\` input: ${message}`);
  const required = !('default' in spec);
  if (required && given === undefined) {
    error('required value has not been provided');
    return undefined;
  }
  const check = (value: YamlValue, which: 'default' | 'provided'): void => {
    if (typeOf(value) !== type) {
      error(`${which} value is not a${type === 'array' ? 'n' : ''} ${type}`);
      return;
    }
    if (spec.options !== undefined) {
      if (type !== 'string' && type !== 'number') error('Options can only be used with string and number inputs');
      else if (Array.isArray(spec.options) && !spec.options.includes(value)) {
        error(`\`${String(value)}\` cannot be used because it is not in the list of ${type === 'number' ? 'the ' : ''}allowed options`);
      }
    }
    if (typeof spec.regex === 'string') {
      if (type !== 'string') error('RegEx validation can only be used with string inputs');
      else {
        const re = compileRegexp(spec.regex.replace(/^\/(.*)\/$/s, '$1'));
        if (!re) error('invalid regular expression');
        else if (!re.test(value as string)) error(`${which} value does not match required RegEx pattern`);
      }
    }
  };
  if (!required) check(spec.default!, 'default');
  if (given !== undefined && given !== null) check(given, 'provided');
  return given ?? spec.default;
}

/** Replaces the `$[[ … ]]` blocks of one string; a string that is one block becomes its value. */
function interpolateString(text: string, inputs: Record<string, YamlValue>, state: { blocks: number; errors: string[] }): YamlValue {
  if (!text.includes('$[[')) return text;
  const lookup = (expr: string): YamlValue | undefined => {
    if (++state.blocks > MAX_BLOCKS) {
      state.errors.push('too many interpolation blocks');
      return undefined;
    }
    const path = expr.split('.');
    if (path.length <= 1) {
      state.errors.push('invalid interpolation access pattern');
      return undefined;
    }
    if (path[0] !== 'inputs') {
      state.errors.push(`unknown interpolation key: \`${path[0]}\``);
      return undefined;
    }
    if (path.length !== 2 || !(path[1]! in inputs)) {
      state.errors.push(`unknown interpolation key: \`${path.slice(1).join('.')}\``);
      return undefined;
    }
    return inputs[path[1]!];
  };
  const whole = /^\$\[\[\s*(\S.*?\S|\S)\s*\]\]$/.exec(text);
  if (whole) return lookup(whole[1]!) ?? text;
  return text.replace(BLOCK, (block, expr: string) => {
    const v = lookup(expr);
    if (v === undefined) return block;
    return Array.isArray(v) ? JSON.stringify(v) : String(v);
  });
}

function interpolate(value: YamlValue, inputs: Record<string, YamlValue>, state: { blocks: number; errors: string[] }): YamlValue {
  if (typeof value === 'string') return interpolateString(value, inputs, state);
  if (Array.isArray(value)) return value.map((v) => interpolate(v, inputs, state));
  if (isMap(value)) {
    const out: YamlMap = {};
    for (const [k, v] of Object.entries(value)) {
      const key = interpolateString(k, inputs, state);
      out[String(key)] = interpolate(v, inputs, state);
    }
    return out;
  }
  return value;
}

/**
 * A loaded file's content with its inputs in place. `args` are the `include:inputs` given (null
 * for none). A file without a header is left as it is, unless inputs were given to it.
 */
export function applyInputs(value: YamlValue, header: YamlMap | null, args: YamlMap | null): InputsResult {
  const given = args ?? {};
  if (!header) {
    if (Object.keys(given).length) return failed(['Given inputs not defined in the `spec` section of the included configuration file']);
    return { ok: true, value };
  }
  const headerProblems = headerErrors(header);
  if (headerProblems.length) return failed(headerProblems);
  const specs = (isMap(header.spec) && isMap(header.spec.inputs) ? header.spec.inputs : {}) as YamlMap;
  const errors: string[] = [];
  const unknown = Object.keys(given).filter((k) => !(k in specs));
  if (unknown.length) errors.push(`unknown input arguments: ${unknown.join(', ')}`);
  const inputs: Record<string, YamlValue> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const v = resolveInput(name, isMap(spec) ? spec : {}, given[name] ?? undefined, errors);
    if (v !== undefined) inputs[name] = v;
  }
  if (errors.length) return failed(errors);
  const state = { blocks: 0, errors: [] as string[] };
  const out = interpolate(value, inputs, state);
  if (state.errors.length) return failed(state.errors);
  return { ok: true, value: out };
}
