// The language breakdown of a tree, roughly as the reference's linguist gives it: bytes per language
// of the files at a revision, counting only programming and markup languages (prose and data such
// as Markdown, JSON or YAML are not languages here), and skipping vendored code, documentation and
// files whose language is unknown (binaries among them). Shares are percentages rounded to 2
// decimals, largest first. Detection is by file name and extension only: no content heuristics.
import { git, safeArg } from './git.js';

const EXTENSIONS: Record<string, string> = {
  '.ts': 'TypeScript', '.tsx': 'TypeScript', '.mts': 'TypeScript', '.cts': 'TypeScript',
  '.js': 'JavaScript', '.mjs': 'JavaScript', '.cjs': 'JavaScript', '.jsx': 'JavaScript',
  '.py': 'Python', '.pyw': 'Python', '.pyi': 'Python',
  '.rb': 'Ruby', '.rake': 'Ruby', '.gemspec': 'Ruby', '.ru': 'Ruby',
  '.go': 'Go',
  '.rs': 'Rust',
  '.java': 'Java',
  '.kt': 'Kotlin', '.kts': 'Kotlin',
  '.scala': 'Scala', '.sc': 'Scala',
  '.groovy': 'Groovy', '.gradle': 'Groovy',
  '.c': 'C', '.h': 'C',
  '.cc': 'C++', '.cpp': 'C++', '.cxx': 'C++', '.c++': 'C++', '.hh': 'C++', '.hpp': 'C++', '.hxx': 'C++', '.h++': 'C++', '.ino': 'C++',
  '.cs': 'C#',
  '.fs': 'F#', '.fsx': 'F#', '.fsi': 'F#',
  '.vb': 'Visual Basic .NET',
  '.m': 'Objective-C', '.mm': 'Objective-C++',
  '.swift': 'Swift',
  '.php': 'PHP', '.phtml': 'PHP',
  '.pl': 'Perl', '.pm': 'Perl',
  '.lua': 'Lua',
  '.r': 'R',
  '.jl': 'Julia',
  '.dart': 'Dart',
  '.ex': 'Elixir', '.exs': 'Elixir',
  '.erl': 'Erlang', '.hrl': 'Erlang',
  '.hs': 'Haskell', '.lhs': 'Haskell',
  '.ml': 'OCaml', '.mli': 'OCaml',
  '.clj': 'Clojure', '.cljs': 'Clojure', '.cljc': 'Clojure',
  '.el': 'Emacs Lisp',
  '.lisp': 'Common Lisp',
  '.scm': 'Scheme',
  '.zig': 'Zig',
  '.nim': 'Nim',
  '.v': 'V',
  '.sh': 'Shell', '.bash': 'Shell', '.zsh': 'Shell', '.ksh': 'Shell',
  '.ps1': 'PowerShell', '.psm1': 'PowerShell',
  '.bat': 'Batchfile', '.cmd': 'Batchfile',
  '.sql': 'PLpgSQL',
  '.html': 'HTML', '.htm': 'HTML', '.xhtml': 'HTML',
  '.css': 'CSS', '.scss': 'SCSS', '.sass': 'Sass', '.less': 'Less', '.styl': 'Stylus',
  '.vue': 'Vue', '.svelte': 'Svelte',
  '.haml': 'Haml', '.slim': 'Slim', '.erb': 'HTML+ERB',
  '.coffee': 'CoffeeScript',
  '.tex': 'TeX',
  '.asm': 'Assembly', '.s': 'Assembly',
  '.cmake': 'CMake',
  '.tf': 'HCL', '.hcl': 'HCL',
  '.proto': 'Protocol Buffer',
  '.elm': 'Elm',
  '.pas': 'Pascal',
  '.f90': 'Fortran', '.f': 'Fortran', '.for': 'Fortran',
  '.d': 'D',
  '.cr': 'Crystal',
  '.vim': 'Vim Script',
  '.mk': 'Makefile', '.mak': 'Makefile',
};

const FILENAMES: Record<string, string> = {
  Makefile: 'Makefile', GNUmakefile: 'Makefile', makefile: 'Makefile',
  Dockerfile: 'Dockerfile', Containerfile: 'Dockerfile',
  Rakefile: 'Ruby', Gemfile: 'Ruby', Vagrantfile: 'Ruby', Guardfile: 'Ruby', Podfile: 'Ruby',
  'CMakeLists.txt': 'CMake',
  Jenkinsfile: 'Groovy',
};

// Paths linguist treats as vendored or documentation (a practical subset of its lists).
const EXCLUDED = [
  /(^|\/)node_modules\//,
  /(^|\/)bower_components\//,
  /(^|\/)vendor\//,
  /(^|\/)third[-_]?party\//,
  /(^|\/)deps\//,
  /(^|\/)Godeps\//,
  /(^|\/)dist\//,
  /(^|\/)\.(git|github|gitlab|yarn)\//,
  /\.min\.(js|css)$/,
  /(^|\/)[Dd]ocs?\//,
  /(^|\/)[Dd]ocumentation\//,
  /(^|\/)[Ee]xamples\//,
];

/** The language of a path, or null when it is not counted. */
export function languageOf(filePath: string): string | null {
  if (EXCLUDED.some((re) => re.test(filePath))) return null;
  const name = filePath.slice(filePath.lastIndexOf('/') + 1);
  const byName = FILENAMES[name];
  if (byName) return byName;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  return EXTENSIONS[name.slice(dot).toLowerCase()] ?? null;
}

/** [language, share %] pairs from file sizes, largest share first (ties by name). */
export function languageShares(files: Iterable<{ path: string; size: number }>): [string, number][] {
  const bytes = new Map<string, number>();
  let total = 0;
  for (const f of files) {
    const lang = languageOf(f.path);
    if (!lang || f.size <= 0) continue;
    bytes.set(lang, (bytes.get(lang) ?? 0) + f.size);
    total += f.size;
  }
  return [...bytes]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([lang, n]) => [lang, Math.round((n / total) * 10000) / 100]);
}

/** The breakdown of the tree at `rev` (a branch name); [] when the revision does not exist. */
export async function treeLanguages(gitDir: string, rev: string): Promise<[string, number][]> {
  const r = await git(['ls-tree', '-r', '-l', '-z', '--full-tree', `${safeArg(rev, 'revision')}^{tree}`], { gitDir, okCodes: [128] });
  if (r.code !== 0) return [];
  const files: { path: string; size: number }[] = [];
  // Each entry: "<mode> blob <sha> <size padded>\t<path>\0"; submodules (commit) and links are skipped.
  for (const entry of r.stdout.toString('utf8').split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, , size] = entry.slice(0, tab).trim().split(/\s+/);
    if (type !== 'blob' || mode === '120000') continue;
    files.push({ path: entry.slice(tab + 1), size: Number(size) });
  }
  return languageShares(files);
}
