// A small glob matcher for `rules:changes`, `rules:exists`, `only:changes` and wildcard
// `include:local`, with the reference's File.fnmatch flags (FNM_PATHNAME | FNM_DOTMATCH |
// FNM_EXTGLOB): `*` and `?` never cross `/`, `**/` spans zero or more directories, dot files
// match like any other, `{a,b}` alternates, `[abc]` / `[!abc]` are classes, `\x` is literal `x`.

const cache = new Map<string, RegExp>();

/** The glob as an anchored RegExp; throws nothing (an unbalanced class or brace is literal). */
export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (!re) {
    re = new RegExp(`^${translate(glob, 0, glob.length)}$`, 's');
    if (cache.size > 1000) cache.clear();
    cache.set(glob, re);
  }
  return re;
}

export function globMatch(glob: string, path: string): boolean {
  return globToRegExp(glob).test(path);
}

/** True when any path matches any glob. */
export function anyGlobMatches(globs: readonly string[], paths: readonly string[]): boolean {
  const res = globs.map(globToRegExp);
  return paths.some((p) => res.some((re) => re.test(p)));
}

/** True when the glob has wildcard characters (otherwise it names one path). */
export function isGlob(glob: string): boolean {
  return /[*?[{]/.test(glob);
}

const SPECIAL = /[.+^$|()[\]{}*?\\/-]/;

function escapeChar(ch: string): string {
  return SPECIAL.test(ch) ? `\\${ch}` : ch;
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(glob: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    const ch = glob[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Splits `a,b{c,d},e` (between from and to) on top-level commas. */
function splitAlternatives(glob: string, from: number, to: number): Array<[number, number]> {
  const parts: Array<[number, number]> = [];
  let depth = 0;
  let start = from;
  for (let i = from; i < to; i++) {
    const ch = glob[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push([start, i]);
      start = i + 1;
    }
  }
  parts.push([start, to]);
  return parts;
}

function translate(glob: string, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const ch = glob[i]!;
    if (ch === '\\') {
      if (i + 1 < to) out += escapeChar(glob[++i]!);
      else out += '\\\\';
    } else if (ch === '*') {
      if (glob[i + 1] === '*') {
        const atSegmentStart = i === from || glob[i - 1] === '/';
        if (atSegmentStart && glob[i + 2] === '/') {
          out += '(?:[^/]*/)*';
          i += 2;
          // `**/**/` is the same as `**/` (and would only make the RegExp backtrack more).
          while (glob.startsWith('**/', i + 1)) i += 3;
          continue;
        }
        if (atSegmentStart && i + 2 >= to) {
          // A trailing `**` (FNM_PATHNAME): like `*`, within one segment.
          out += '[^/]*';
          i += 1;
          continue;
        }
        while (glob[i + 1] === '*') i++;
      }
      out += '[^/]*';
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0 || close >= to) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      let negate = false;
      if (body.startsWith('!') || body.startsWith('^')) {
        negate = true;
        body = body.slice(1);
      }
      const cls = body.replace(/[\\\]^]/g, (c) => `\\${c}`);
      out += negate ? `[^/${cls}]` : `(?!/)[${cls}]`;
      i = close;
    } else if (ch === '{') {
      const close = closingBrace(glob, i, to);
      if (close < 0) {
        out += '\\{';
        continue;
      }
      const alternatives = splitAlternatives(glob, i + 1, close).map(([a, b]) => translate(glob, a, b));
      out += `(?:${alternatives.join('|')})`;
      i = close;
    } else {
      out += escapeChar(ch);
    }
  }
  return out;
}
