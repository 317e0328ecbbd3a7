// Loading the CI file's YAML the way the reference's Psych-based loader sees it: YAML 1.1
// scalars (yes/no/on/off booleans, but `y`/`n` stay strings, dates stay strings), anchors,
// aliases and `<<` merge keys, duplicate keys (the last wins), the `!reference [job, key]`
// tag, and syntax errors as "(<unknown>): <problem> at line L column C".
import { parseAllDocuments, Scalar, type Document, YAMLSeq, isSeq, type CollectionTag, type ScalarTag, type Tags } from 'yaml';

/** A `!reference [.job, key, …]` tag, resolved after `extends`. */
export class ReferenceTag {
  constructor(readonly path: string[]) {}
}

export type YamlValue = string | number | boolean | null | YamlValue[] | YamlMap | ReferenceTag;
export interface YamlMap {
  [key: string]: YamlValue;
}

export function isMap(v: unknown): v is YamlMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof ReferenceTag);
}

class ReferenceSeq extends YAMLSeq {
  override toJSON(_?: unknown, ctx?: Parameters<YAMLSeq['toJSON']>[1]): unknown[] {
    const items = super.toJSON(_, ctx);
    return new ReferenceTag(items.map((v) => String(v))) as unknown as unknown[];
  }
}

const referenceTag: CollectionTag = {
  tag: '!reference',
  collection: 'seq',
  nodeClass: ReferenceSeq,
  resolve(value, onError) {
    if (!isSeq(value)) {
      onError('!reference tag should be a sequence');
      return value;
    }
    return Object.assign(new ReferenceSeq(), value);
  },
};

const trueTag: ScalarTag = {
  identify: (value) => value === true,
  default: true,
  tag: 'tag:yaml.org,2002:bool',
  test: /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  resolve: () => new Scalar(true),
};

const falseTag: ScalarTag = {
  identify: (value) => value === false,
  default: true,
  tag: 'tag:yaml.org,2002:bool',
  test: /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  resolve: () => new Scalar(false),
};

function customTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    const tag = typeof t === 'string' ? t : t.tag;
    return tag !== 'tag:yaml.org,2002:bool' && tag !== 'tag:yaml.org,2002:timestamp';
  });
  return [trueTag, falseTag, ...kept, referenceTag];
}

/** The reference's wording for the parse problems people usually make. */
const PROBLEMS: Record<string, string> = {
  BLOCK_AS_IMPLICIT_KEY: 'mapping values are not allowed in this context',
  MULTILINE_IMPLICIT_KEY: 'could not find expected \':\' while scanning a simple key',
  BAD_INDENT: 'did not find expected key while parsing a block mapping',
  TAB_AS_INDENT: 'found character that cannot start any token while scanning for the next token',
  MISSING_CHAR: 'found unexpected end of stream while scanning a quoted scalar',
  UNEXPECTED_TOKEN: 'did not find expected key while parsing a block mapping',
};

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lastBreak = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lastBreak = i;
    }
  }
  return { line, column: offset - lastBreak };
}

/**
 * `header`: the `spec:` document of a file made of a header and its content separated by `---`
 * (the reference's Yaml::Documents#header); `value` is then the content. Other files: the first
 * document, header null.
 */
export type LoadResult = { ok: true; value: YamlValue; header: YamlMap | null } | { ok: false; error: string };

const MAX_ALIAS_COUNT = 10_000;

export function loadYaml(text: string): LoadResult {
  const docs = parseAllDocuments(text, {
    version: '1.1',
    schema: 'yaml-1.1',
    merge: true,
    uniqueKeys: false,
    customTags,
    prettyErrors: false,
    logLevel: 'silent',
  });
  if (!Array.isArray(docs) || !docs[0]) return { ok: true, value: null, header: null };
  const first = toValue(text, docs[0]);
  if (!first.ok) return first;
  if (docs.length > 1 && isMap(first.value) && 'spec' in first.value) {
    const content = toValue(text, docs[1]!);
    return content.ok ? { ok: true, value: content.value, header: first.value } : content;
  }
  return { ok: true, value: first.value, header: null };
}

function toValue(text: string, doc: Document.Parsed): { ok: true; value: YamlValue } | { ok: false; error: string } {
  const err = doc.errors[0];
  if (err) {
    const { line, column } = lineColumn(text, err.pos[0]);
    const problem = PROBLEMS[err.code] ?? err.message.split('\n')[0]!.replace(/ at line \d+, column \d+.*$/, '');
    return { ok: false, error: `(<unknown>): ${problem} at line ${line} column ${column}` };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as YamlValue };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const alias = /Unresolved alias[^:]*: (.*)$/.exec(message);
    if (alias) return { ok: false, error: `Unknown alias: ${alias[1]}` };
    return { ok: false, error: `(<unknown>): ${message}` };
  }
}
