// `$VAR` / `${VAR}` expansion of the variables that exist (the reference's
// ExpandVariables.expand_existing): an unknown variable is left as written.

export function expandVariables(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    return Object.prototype.hasOwnProperty.call(vars, name) ? vars[name]! : whole;
  });
}
