// `/pattern/flags` as the CI file writes regular expressions (the reference reads them with RE2
// in Ruby syntax), turned into JavaScript RegExps.

const SLASHED = /^\/(.*)\/([a-zA-Z]*)$/s;

/** True for a string written as `/…/` (optionally with flags). */
export function looksLikeRegexp(value: string): boolean {
  return SLASHED.test(value);
}

/** Translates the few Ruby/RE2-only constructs that JavaScript spells differently. */
function translateSource(source: string): { source: string; flags: string } {
  let flags = '';
  let src = source;
  const inline = /^\(\?([imsx]+)\)/.exec(src);
  if (inline) {
    if (inline[1]!.includes('i')) flags += 'i';
    if (inline[1]!.includes('s')) flags += 's';
    if (inline[1]!.includes('m')) flags += 'm';
    src = src.slice(inline[0].length);
  }
  src = src
    .replace(/\\A/g, '^')
    .replace(/\\[zZ]/g, '$')
    .replace(/\[\[:alpha:\]\]/g, '[A-Za-z]')
    .replace(/\[\[:digit:\]\]/g, '[0-9]')
    .replace(/\[\[:alnum:\]\]/g, '[A-Za-z0-9]')
    .replace(/\[\[:space:\]\]/g, '\\s')
    .replace(/\[\[:upper:\]\]/g, '[A-Z]')
    .replace(/\[\[:lower:\]\]/g, '[a-z]')
    .replace(/\(\?P</g, '(?<');
  return { source: src, flags };
}

/** A RegExp from a pattern body and Ruby/RE2 flags (`i`, `m`, `s`, `U`); null when invalid. */
export function compileRegexp(body: string, rubyFlags = ''): RegExp | null {
  const { source, flags: inline } = translateSource(body);
  const flags = new Set(inline.split('').filter(Boolean));
  for (const f of rubyFlags) {
    if (f === 'i') flags.add('i');
    else if (f === 'm' || f === 's') flags.add('s');
    else if (f !== 'U' && f !== 'x') return null;
  }
  try {
    return new RegExp(source, [...flags].join(''));
  } catch {
    return null;
  }
}

/** `/re/flags` → RegExp; null when the string is not slashed or the pattern is invalid. */
export function parseSlashedRegexp(value: string): RegExp | null {
  const m = SLASHED.exec(value);
  if (!m) return null;
  return compileRegexp(m[1]!, m[2]!);
}
