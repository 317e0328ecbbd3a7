// One parser for every route's parameters. Query string, JSON, form and multipart
// arrive merged into one object; this coerces it against the route's TypeBox schema
// the way the reference's Grape params do, and reports errors in its words.
import { Kind, OptionalKind, type TObject, type TSchema } from '@sinclair/typebox';
import { invalidParams, missing } from '../domain/errors.js';

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** An integer of `format: 'int32'` must fit 32 bits (a database integer); larger is invalid, like a failed coercion. */
const INT32_MAX = 2 ** 31 - 1;

class Invalid {
  constructor(
    readonly reason: 'is invalid' | 'does not have a valid value' | 'is missing',
    /** Keys below the parameter, for a required key missing in a hash (`upload[url]`). */
    readonly at: string[] = [],
  ) {}
}

function isOptional(s: TSchema): boolean {
  return (s as any)[OptionalKind] === 'Optional';
}

/** qs turns `a[0][k]=v` into arrays, but into objects when indexes are sparse or many. */
function toArray(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
      return keys.sort((a, b) => Number(a) - Number(b)).map((k) => (v as any)[k]);
    }
  }
  return [v];
}

function coerce(schema: TSchema, value: unknown): unknown {
  const kind = (schema as any)[Kind] as string;
  switch (kind) {
    case 'Any':
    case 'Unknown':
      return value;
    case 'String': {
      if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
      if (typeof value !== 'string') return new Invalid('is invalid');
      const s = schema as any;
      if (s.enum && !s.enum.includes(value)) return new Invalid('does not have a valid value');
      if (s.maxLength !== undefined && value.length > s.maxLength) return new Invalid('is invalid');
      if (s.pattern && !new RegExp(s.pattern).test(value)) return new Invalid('is invalid');
      return value;
    }
    case 'Integer':
    case 'Number': {
      let n: number;
      if (typeof value === 'number') n = value;
      else if (typeof value === 'string' && value.trim() !== '' && (kind === 'Integer' ? /^\s*[-+]?\d+\s*$/ : /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/).test(value)) n = Number(value);
      else return new Invalid('is invalid');
      if (!Number.isFinite(n) || (kind === 'Integer' && !Number.isSafeInteger(n))) return new Invalid('is invalid');
      const s = schema as any;
      if (s.format === 'int32' && (n > INT32_MAX || n < -INT32_MAX - 1)) return new Invalid('is invalid');
      if ((s.minimum !== undefined && n < s.minimum) || (s.maximum !== undefined && n > s.maximum)) {
        return new Invalid('does not have a valid value');
      }
      if (s.enum && !s.enum.includes(n)) return new Invalid('does not have a valid value');
      return n;
    }
    case 'Boolean': {
      if (typeof value === 'boolean') return value;
      const t = String(value).toLowerCase();
      if (TRUE.has(t)) return true;
      if (FALSE.has(t)) return false;
      return new Invalid('is invalid');
    }
    case 'Literal': {
      const lit = (schema as any).const;
      if (value === lit || String(value) === String(lit)) return lit;
      return new Invalid('does not have a valid value');
    }
    case 'Union': {
      const variants = (schema as any).anyOf as TSchema[];
      const allLiterals = variants.every((v) => (v as any)[Kind] === 'Literal');
      for (const v of variants) {
        const r = coerce(v, value);
        if (!(r instanceof Invalid)) return r;
      }
      return new Invalid(allLiterals ? 'does not have a valid value' : 'is invalid');
    }
    case 'Array': {
      const item = (schema as any).items as TSchema;
      let list = toArray(value);
      if ((schema as any).commaSeparated) {
        list = list.flatMap((v) => (typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter(Boolean) : [v]));
      }
      const out: unknown[] = [];
      for (const v of list) {
        if (v === '' && (item as any)[Kind] !== 'String') continue;
        const r = coerce(item, v);
        if (r instanceof Invalid) return r.at.length ? new Invalid('is invalid') : r;
        out.push(r);
      }
      return out;
    }
    case 'Object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return new Invalid('is invalid');
      const props = (schema as any).properties as Record<string, TSchema>;
      if (!props || Object.keys(props).length === 0) return value; // free-form hash
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props)) {
        const v = (value as any)[key];
        if (v === undefined || v === null) {
          if (!isOptional(sub)) return new Invalid('is missing', [key]);
          continue;
        }
        const r = coerce(sub, v);
        if (r instanceof Invalid) return r.at.length ? new Invalid(r.reason, [key, ...r.at]) : r;
        out[key] = r;
      }
      return out;
    }
    case 'Record':
      return value && typeof value === 'object' && !Array.isArray(value) ? value : new Invalid('is invalid');
    default:
      return value;
  }
}

/** A parameter that takes `null` as its value (NullClears in api/schemas.ts). */
const takesNull = (schema: TSchema): boolean => (schema as any).nullable === true;

/**
 * Empty strings mean "not given" for anything but a string, as the reference's coercion has it
 * (unless the parameter takes a blank as its value: BlankClears in api/schemas.ts).
 */
function isAbsent(schema: TSchema, v: unknown): boolean {
  if (v === undefined || (v === null && !takesNull(schema))) return true;
  return v === '' && (schema as any)[Kind] !== 'String' && (schema as any).blankIsValue !== true;
}

/** Rules over several parameters, declared on the route and worded as Grape words them. */
export interface ParamRules {
  /** Each list needs at least one of its parameters. */
  atLeastOneOf?: readonly (readonly string[])[];
  /** At most one parameter of each list may be given. */
  mutuallyExclusive?: readonly (readonly string[])[];
  /** Exactly one parameter of each list must be given. */
  exactlyOneOf?: readonly (readonly string[])[];
}

/** Grape's `allow_blank: false` on a string: empty or only spaces is refused (`<name> is empty`). */
const refusesBlank = (schema: TSchema): boolean => (schema as any).allowBlank === false;

/**
 * Parses the merged request against the route's schema, in Grape's order: per parameter its
 * presence, its type and values, allow_blank; then at_least_one_of and mutually_exclusive. A
 * missing required parameter answers at once; the other errors are reported together.
 */
export function parseParams<T>(schema: TObject, raw: Record<string, unknown>, rules: ParamRules = {}): T {
  const out: Record<string, unknown> = {};
  const given = new Set<string>();
  const errors: string[] = [];
  for (const [key, sub] of Object.entries(schema.properties)) {
    const v = raw[key];
    if (isAbsent(sub, v)) {
      if (!isOptional(sub)) throw missing(key);
      if ((sub as any).default !== undefined) out[key] = (sub as any).default;
      continue;
    }
    given.add(key); // the rules over several parameters look at what was sent, valid or not
    if (v === null) {
      out[key] = null;
      continue;
    }
    const r = coerce(sub, v);
    if (r instanceof Invalid && r.reason === 'is missing') throw missing(key + r.at.map((k) => `[${k}]`).join(''));
    if (r instanceof Invalid) errors.push(`${key} ${r.reason}`);
    else if (refusesBlank(sub) && typeof r === 'string' && r.trim() === '') errors.push(`${key} is empty`);
    else out[key] = r;
  }
  for (const names of rules.atLeastOneOf ?? []) {
    if (!names.some((n) => given.has(n))) errors.push(`${names.join(', ')} are missing, at least one parameter must be provided`);
  }
  for (const names of rules.exactlyOneOf ?? []) {
    const sent = names.filter((n) => given.has(n));
    if (sent.length === 0) errors.push(`${names.join(', ')} are missing, exactly one parameter must be provided`);
    else if (sent.length > 1) errors.push(`${sent.join(', ')} are mutually exclusive`);
  }
  for (const names of rules.mutuallyExclusive ?? []) {
    const both = names.filter((n) => given.has(n));
    if (both.length > 1) errors.push(`${both.join(', ')} are mutually exclusive`);
  }
  if (errors.length) throw invalidParams(errors.join(', '));
  return out as T;
}
