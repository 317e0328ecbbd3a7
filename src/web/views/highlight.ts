// Syntax highlighting on the server (highlight.js), so a page arrives coloured: no script, no
// flash. The highlighter and each language load on first use (`await import()`), so starting the
// server pays nothing for them. Used by the file view and by diffs.
import crypto from 'node:crypto';
import type { HLJSApi, LanguageFn } from 'highlight.js';
import { escapeHtml, raw, type Html } from '../html.js';

/** Past these, a file is shown plain: highlighting it would cost more than it helps. */
const MAX_BYTES = 512 * 1024;
const MAX_LINES = 20_000;
/** Highlighting a 3,000-line file takes ~100 ms; the same text is shown again and again (a blob never changes). */
const CACHE_BYTES = 16 * 1024 * 1024;

type Loader = () => Promise<{ default: LanguageFn }>;

// The languages a forge shows most, each loaded when a file first needs it.
const LANGUAGES: Record<string, Loader> = {
  bash: () => import('highlight.js/lib/languages/bash'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  css: () => import('highlight.js/lib/languages/css'),
  diff: () => import('highlight.js/lib/languages/diff'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  go: () => import('highlight.js/lib/languages/go'),
  ini: () => import('highlight.js/lib/languages/ini'),
  java: () => import('highlight.js/lib/languages/java'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  makefile: () => import('highlight.js/lib/languages/makefile'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  php: () => import('highlight.js/lib/languages/php'),
  python: () => import('highlight.js/lib/languages/python'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  rust: () => import('highlight.js/lib/languages/rust'),
  scss: () => import('highlight.js/lib/languages/scss'),
  sql: () => import('highlight.js/lib/languages/sql'),
  swift: () => import('highlight.js/lib/languages/swift'),
  typescript: () => import('highlight.js/lib/languages/typescript'),
  xml: () => import('highlight.js/lib/languages/xml'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
};

const BY_EXTENSION: Record<string, string> = {
  sh: 'bash', bash: 'bash', zsh: 'bash',
  c: 'c', h: 'c',
  cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hh: 'cpp', hpp: 'cpp', hxx: 'cpp',
  cs: 'csharp',
  css: 'css',
  diff: 'diff', patch: 'diff',
  go: 'go',
  ini: 'ini', toml: 'ini', cfg: 'ini', conf: 'ini',
  java: 'java',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  json: 'json',
  kt: 'kotlin', kts: 'kotlin',
  mk: 'makefile',
  md: 'markdown', markdown: 'markdown',
  php: 'php',
  py: 'python',
  rb: 'ruby', rake: 'ruby', gemspec: 'ruby',
  rs: 'rust',
  scss: 'scss',
  sql: 'sql',
  swift: 'swift',
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'typescript',
  html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml', vue: 'xml',
  yml: 'yaml', yaml: 'yaml',
};

const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  containerfile: 'dockerfile',
  makefile: 'makefile',
  gnumakefile: 'makefile',
  gemfile: 'ruby',
  rakefile: 'ruby',
};

/** The highlight.js language of a file path, or null (shown plain). */
export function languageOf(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (BY_NAME[name]) return BY_NAME[name];
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (BY_EXTENSION[name.slice(dot + 1)] ?? null) : null;
}

let core: Promise<HLJSApi> | null = null;
const registered = new Map<string, Promise<void>>();

async function highlighter(language: string): Promise<HLJSApi> {
  const hljs = await (core ??= import('highlight.js/lib/core').then((m) => m.default));
  let ready = registered.get(language);
  if (!ready) {
    ready = LANGUAGES[language]().then((m) => hljs.registerLanguage(language, m.default));
    registered.set(language, ready);
  }
  await ready;
  return hljs;
}

/** A file's lines: split at '\n', a final newline ends the last line (it does not add one). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * (file path, text) → one HTML fragment per line: the text escaped, with `<span class="k">`-style
 * spans around the tokens app.css colours (TOKEN_CLASS). A token that spans lines (a block comment,
 * a string) is closed at each line's end and opened again on the next, so every line stands alone
 * (a diff shows lines apart). Unknown languages and very large texts come back escaped, unhighlighted.
 */
export async function highlightLines(path: string, text: string): Promise<Html[]> {
  const language = languageOf(path);
  const lines = splitLines(text);
  if (!language || text.length > MAX_BYTES || lines.length > MAX_LINES) return lines.map((l) => raw(escapeHtml(l)));
  const key = `${language}:${crypto.createHash('sha1').update(text).digest('base64')}`;
  let out = cache.get(key);
  if (out) {
    cache.delete(key); // most recently used goes last
  } else {
    const hljs = await highlighter(language);
    out = splitHighlighted(hljs.highlight(lines.join('\n'), { language, ignoreIllegals: true }).value);
    cacheBytes += sizeOf(out);
    for (const [k, v] of cache) {
      if (cacheBytes <= CACHE_BYTES) break;
      cache.delete(k);
      cacheBytes -= sizeOf(v);
    }
  }
  cache.set(key, out);
  return out.map(raw);
}

const cache = new Map<string, string[]>();
let cacheBytes = 0;
const sizeOf = (lines: string[]): number => lines.reduce((n, l) => n + l.length * 2, 0);

/**
 * highlight.js's scopes → the short class app.css gives their colour, one class per colour (as the
 * reference's highlighter writes `k`, `s`, `c`). A scope not listed keeps the text's colour and loses
 * its span: a highlighted file weighs little more than its text.
 */
const TOKEN_CLASS: Record<string, string> = {
  keyword: 'k', doctag: 'k', 'template-tag': 'k', type: 'k',
  title: 't',
  attr: 'a', attribute: 'a', literal: 'a', meta: 'a', number: 'a', operator: 'a', variable: 'a',
  'selector-attr': 'a', 'selector-class': 'a', 'selector-id': 'a',
  section: 'h',
  string: 's', regexp: 's',
  built_in: 'b', symbol: 'b', bullet: 'b',
  comment: 'c', quote: 'c',
  name: 'n', 'selector-tag': 'n', 'selector-pseudo': 'n', addition: 'n',
  deletion: 'd',
  subst: 'u',
  strong: 'w',
  emphasis: 'e',
};

/** `<span class="hljs-title function_">` → `<span class="t">`, or '' for a scope left uncoloured. */
function shortTag(tag: string): string {
  const scope = /class="hljs-([\w-]+)/.exec(tag)?.[1];
  const cls = scope === undefined ? undefined : TOKEN_CLASS[scope];
  return cls ? `<span class="${cls}">` : '';
}

/** highlight.js's HTML (only `<span class="…">`, `</span>` and escaped text) cut into lines, its spans shortened. */
function splitHighlighted(markup: string): string[] {
  const lines: string[] = [];
  /** The spans open at this point, as written ('' for a dropped one). */
  const open: string[] = [];
  const closeAll = () => open.reduce((s, t) => (t ? s + '</span>' : s), '');
  let line = '';
  const tag = /<span[^>]*>|<\/span>|\n/g;
  let at = 0;
  for (let m = tag.exec(markup); m; m = tag.exec(markup)) {
    line += markup.slice(at, m.index);
    at = tag.lastIndex;
    if (m[0] === '\n') {
      lines.push(line + closeAll());
      line = open.join('');
    } else if (m[0] === '</span>') {
      if (open.pop()) line += m[0];
    } else {
      const t = shortTag(m[0]);
      open.push(t);
      line += t;
    }
  }
  lines.push(line + markup.slice(at) + closeAll());
  return lines;
}
