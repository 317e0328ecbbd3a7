// The `rules:if` / `only:variables` expression language, with the reference's semantics
// (lib/gitlab/ci/pipeline/expression): `$VAR`, "strings" and 'strings', /regexps/flags, `null`,
// `==`, `!=`, `=~`, `!~`, `&&`, `||`, parentheses. Comparisons bind tightest, then `&&`, then
// `||`. An undefined variable is null. `&&`/`||` return one of their operands as Ruby does
// (only null and false are falsy there), and the statement is true when its value is "present":
// true, a regexp, or a string that is not blank.
import { compileRegexp, parseSlashedRegexp } from './regex.js';

export class ExpressionError extends Error {}

export type ExprValue = string | boolean | RegExp | null;

type Token =
  | { kind: 'var'; name: string }
  | { kind: 'str'; value: string }
  | { kind: 're'; body: string; flags: string; re: RegExp }
  | { kind: 'null' }
  | { kind: 'op'; op: '==' | '!=' | '=~' | '!~' | '&&' | '||' }
  | { kind: '(' }
  | { kind: ')' };

type Node =
  | { kind: 'var'; name: string }
  | { kind: 'str'; value: string }
  | { kind: 're'; re: RegExp }
  | { kind: 'null' }
  | { kind: 'bin'; op: '==' | '!=' | '=~' | '!~' | '&&' | '||'; left: Node; right: Node };

const MAX_TOKENS = 100;

const PATTERN = /^\/((?:[^/\\]|\\.)+)\/([ismU]*)/;

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (true) {
    while (i < src.length && /\s/.test(src[i]!)) i++;
    if (i >= src.length) return tokens;
    if (tokens.length >= MAX_TOKENS) throw new ExpressionError('Too many tokens!');
    const rest = src.slice(i);
    let m: RegExpExecArray | null;
    if (rest[0] === '(' || rest[0] === ')') {
      tokens.push({ kind: rest[0] });
      i += 1;
    } else if ((m = /^\$(\w+)/.exec(rest))) {
      tokens.push({ kind: 'var', name: m[1]! });
      i += m[0].length;
    } else if ((m = /^"(.*?)"/s.exec(rest) ?? /^'(.*?)'/s.exec(rest))) {
      tokens.push({ kind: 'str', value: m[1]! });
      i += m[0].length;
    } else if ((m = PATTERN.exec(rest))) {
      const body = m[1]!.replace(/\\\//g, '/');
      const re = compileRegexp(body, m[2]!);
      if (!re) throw new ExpressionError('Invalid regular expression!');
      tokens.push({ kind: 're', body, flags: m[2]!, re });
      i += m[0].length;
    } else if (rest.startsWith('null')) {
      tokens.push({ kind: 'null' });
      i += 4;
    } else if ((m = /^(==|=~|!=|!~|&&|\|\|)/.exec(rest))) {
      tokens.push({ kind: 'op', op: m[1] as '==' });
      i += 2;
    } else {
      throw new ExpressionError('Unknown lexeme found!');
    }
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    if (this.tokens.length === 0) throw new ExpressionError('Empty parse tree');
    const node = this.or();
    if (this.pos < this.tokens.length) throw new ExpressionError('Unreachable nodes in parse tree');
    return node;
  }

  private peekOp(ops: readonly string[]): string | null {
    const t = this.tokens[this.pos];
    return t && t.kind === 'op' && ops.includes(t.op) ? t.op : null;
  }

  private or(): Node {
    let left = this.and();
    while (this.peekOp(['||'])) {
      this.pos++;
      left = { kind: 'bin', op: '||', left, right: this.and() };
    }
    return left;
  }

  private and(): Node {
    let left = this.comparison();
    while (this.peekOp(['&&'])) {
      this.pos++;
      left = { kind: 'bin', op: '&&', left, right: this.comparison() };
    }
    return left;
  }

  private comparison(): Node {
    let left = this.primary();
    let op: string | null;
    while ((op = this.peekOp(['==', '!=', '=~', '!~']))) {
      this.pos++;
      left = { kind: 'bin', op: op as '==', left, right: this.primary() };
    }
    return left;
  }

  private primary(): Node {
    const t = this.tokens[this.pos++];
    if (!t) throw new ExpressionError('Invalid operand');
    switch (t.kind) {
      case 'var':
        return { kind: 'var', name: t.name };
      case 'str':
        return { kind: 'str', value: t.value };
      case 're':
        return { kind: 're', re: t.re };
      case 'null':
        return { kind: 'null' };
      case '(': {
        const inner = this.or();
        const close = this.tokens[this.pos++];
        if (!close || close.kind !== ')') throw new ExpressionError('Unmatched parenthesis');
        return inner;
      }
      default:
        throw new ExpressionError('Invalid operand');
    }
  }
}

const parsed = new Map<string, Node>();

function parse(src: string): Node {
  let node = parsed.get(src);
  if (!node) {
    node = new Parser(tokenize(src)).parse();
    if (parsed.size > 2000) parsed.clear();
    parsed.set(src, node);
  }
  return node;
}

/** True when the statement parses (the reference's `Statement#valid?`). */
export function isValidExpression(src: unknown): boolean {
  if (typeof src !== 'string') return false;
  try {
    parse(src);
    return true;
  } catch {
    return false;
  }
}

function truthy(v: ExprValue): boolean {
  return v !== null && v !== false;
}

/** Ruby `present?`: not null/false, and not a blank string. */
function present(v: ExprValue): boolean {
  if (v === null || v === false) return false;
  if (typeof v === 'string') return v.trim() !== '';
  return true;
}

function same(a: ExprValue, b: ExprValue): boolean {
  if (a instanceof RegExp && b instanceof RegExp) return a.source === b.source && a.flags === b.flags;
  return a === b;
}

function asText(v: ExprValue): string {
  if (v === null || v === false) return '';
  if (v === true) return 'true';
  if (v instanceof RegExp) return `/${v.source}/`;
  return v;
}

/** `text =~ pattern`: a regexp, or a variable holding `/re/`; any other string is searched as text. */
function matches(left: ExprValue, right: ExprValue): boolean {
  const text = asText(left);
  if (right instanceof RegExp) return new RegExp(right.source, right.flags.replace('g', '')).test(text);
  if (typeof right === 'string') {
    const re = parseSlashedRegexp(right);
    if (re) return re.test(text);
    return right.includes(text);
  }
  return false;
}

function evaluate(node: Node, vars: Readonly<Record<string, string>>): ExprValue {
  switch (node.kind) {
    case 'var':
      return Object.prototype.hasOwnProperty.call(vars, node.name) ? vars[node.name]! : null;
    case 'str':
      return node.value;
    case 're':
      return node.re;
    case 'null':
      return null;
    case 'bin': {
      if (node.op === '&&') {
        const l = evaluate(node.left, vars);
        return truthy(l) ? evaluate(node.right, vars) : l;
      }
      if (node.op === '||') {
        const l = evaluate(node.left, vars);
        return truthy(l) ? l : evaluate(node.right, vars);
      }
      const l = evaluate(node.left, vars);
      const r = evaluate(node.right, vars);
      if (node.op === '==') return same(l, r);
      if (node.op === '!=') return !same(l, r);
      if (node.op === '=~') return r === null ? false : matches(l, r);
      return r === null ? true : !matches(l, r);
    }
  }
}

/** The statement's value (throws ExpressionError on a syntax error). */
export function evaluateExpression(src: string, vars: Readonly<Record<string, string>>): ExprValue {
  return evaluate(parse(src), vars);
}

/** The reference's `Statement#truthful?`: an invalid statement is false. */
export function isTruthful(src: string, vars: Readonly<Record<string, string>>): boolean {
  try {
    return present(evaluateExpression(src, vars));
  } catch {
    return false;
  }
}
