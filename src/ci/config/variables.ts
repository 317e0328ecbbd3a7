// `$VAR` / `${VAR}` expansion of the variables that exist (the reference's
// ExpandVariables.expand_existing): an unknown variable is left as written, or with `unknown:
// 'empty'` becomes nothing (its ExpandVariables.expand, used for workflow:name).

export function expandVariables(text: string, vars: Readonly<Record<string, string>>, opts: { unknown?: 'keep' | 'empty' } = {}): string {
  return text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    if (Object.prototype.hasOwnProperty.call(vars, name)) return vars[name]!;
    return opts.unknown === 'empty' ? '' : whole;
  });
}
