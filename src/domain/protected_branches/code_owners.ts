// The CODEOWNERS file as the reference reads it (Gitlab::CodeOwners::File): one pattern per line
// followed by its owners; `#` comments and `[Section]` headers skipped; patterns are
// gitignore-like globs matched with fnmatch's PATHNAME|DOTMATCH|EXTGLOB flags against "/<path>";
// for a path, the LAST matching line wins.

export interface CodeOwnerEntry {
  /** As written in the file. */
  pattern: string;
  regex: RegExp;
  owners: string[];
}

/** The reference's normalize_pattern: unanchored patterns match at any depth, `dir/` means everything below. */
function normalize(pattern: string): string {
  let p = pattern.replace(/^\\#/, '#').replace(/\\\s+/g, ' ');
  if (p === '*') return '/**/*';
  if (!p.startsWith('/')) p = `/**/${p}`;
  if (p.endsWith('/')) p = `${p}**/*`;
  return p;
}

/** fnmatch (PATHNAME, DOTMATCH, EXTGLOB) as a regular expression. */
function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*') {
      if (glob[i + 1] === '*' && glob[i + 2] === '/' && (i === 0 || glob[i - 1] === '/')) {
        re += '(?:[^/]*/)*'; // `**/`: zero or more directories
        i += 2;
      } else {
        while (glob[i + 1] === '*') i++;
        re += '[^/]*';
      }
    } else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (ch === '{') {
      const end = glob.indexOf('}', i);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(',')
          .map((alt) => globRegex(alt).source.slice(1, -1))
          .join('|')})`;
        i = end;
      }
    } else if (ch === '\\' && i + 1 < glob.length) {
      re += glob[i + 1].replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      i++;
    } else re += ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function parseCodeOwners(text: string): CodeOwnerEntry[] {
  const out: CodeOwnerEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (/^\^?\[[^\]]+\](\[\d+\])?/.test(line)) continue; // a section header
    // The pattern ends at the first whitespace that is not escaped.
    const m = /^((?:\\.|[^\s\\])+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const owners = m[2].split(/\s+/).filter((o) => o !== '' && !o.startsWith('#'));
    out.push({ pattern: m[1], regex: globRegex(normalize(m[1])), owners });
  }
  return out;
}

/** For each touched path, the last line whose pattern matches it; the distinct patterns that own something. */
export function codeOwnerPatternsMatched(entries: CodeOwnerEntry[], paths: string[]): string[] {
  const matched = new Set<string>();
  for (const p of paths) {
    const full = `/${p}`;
    for (let i = entries.length - 1; i >= 0; i--) {
      if (entries[i].regex.test(full)) {
        if (entries[i].owners.length > 0) matched.add(entries[i].pattern);
        break;
      }
    }
  }
  return [...matched];
}
