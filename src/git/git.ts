// The one way Anvil runs system git. A user value never becomes an option (anything starting
// with `-` is refused), and the environment is pinned: no system or global config, C locale,
// no prompts, no pager. Large outputs stream; small ones are buffered. Object reads in the request
// path do not start a git each: they go to the repository's long-lived cat-file (cat_file.ts).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable } from 'node:stream';

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0]} failed (${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

/** Refuses a user-supplied value that git would read as an option. */
export function safeArg(value: string, what = 'argument'): string {
  if (value.startsWith('-')) throw new GitError([what], null, `${what} may not start with "-"`);
  if (value.includes('\0')) throw new GitError([what], null, `${what} may not contain NUL`);
  return value;
}

/** True when safeArg would accept the value: the readers answer "no such thing" for the rest, without running git. */
export const isSafeArg = (value: string): boolean => value !== '' && !value.startsWith('-') && !value.includes('\0');

export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin', // pinned: git and its helpers come from the system
    HOME: '/nonexistent',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    GIT_PAGER: 'cat',
    GIT_NO_REPLACE_OBJECTS: '1',
    ...extra,
  };
}

export interface GitRun {
  /** The repository (bare) the command runs in, given as --git-dir. */
  gitDir?: string;
  cwd?: string;
  input?: string | Buffer;
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). */
  okCodes?: number[];
}

function argv(args: string[], o: GitRun): string[] {
  return [...(o.gitDir ? [`--git-dir=${o.gitDir}`] : []), '-c', 'core.quotePath=false', ...args];
}

/** Runs git and buffers its output (for small answers: rev-parse, for-each-ref, cat-file of one blob…). */
export function git(args: string[], o: GitRun = {}): Promise<{ stdout: Buffer; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv(args, o), { cwd: o.cwd, env: gitEnv(o.env) });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0 || (code !== null && o.okCodes?.includes(code))) {
        resolve({ stdout: Buffer.concat(out), stderr, code: code ?? 0 });
      } else reject(new GitError(args, code, stderr));
    });
    if (o.input !== undefined) child.stdin.end(o.input);
    else child.stdin.end();
  });
}

/** git's stdout as trimmed text. */
export async function gitText(args: string[], o: GitRun = {}): Promise<string> {
  return (await git(args, o)).stdout.toString('utf8').trim();
}

/** Starts git with its streams open (smart HTTP, archives, large listings); the caller pipes and waits. */
export function gitStream(args: string[], o: GitRun = {}): ChildProcessWithoutNullStreams {
  return spawn('git', argv(args, o), { cwd: o.cwd, env: gitEnv(o.env) });
}

/** Waits for a streaming git to finish; rejects with its stderr on failure. */
export function finished(child: ChildProcessWithoutNullStreams, okCodes: number[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    const err: Buffer[] = [];
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || (code !== null && okCodes.includes(code))) resolve();
      else reject(new GitError(child.spawnargs.slice(1), code, Buffer.concat(err).toString('utf8')));
    });
  });
}

export type { Readable };

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** A path as git prints it outside `-z`: one with a control character, `"` or `\` comes C-quoted. */
export function unquotePath(printed: string): string {
  if (!printed.startsWith('"') || !printed.endsWith('"') || printed.length < 2) return printed;
  const parts: Buffer[] = [];
  // a run of plain text, or one escape: three octal digits (one byte of a UTF-8 name) or a letter
  for (const m of printed.slice(1, -1).matchAll(/\\([0-3][0-7]{2}|.)|[^\\]+/gs)) {
    const esc = m[1];
    parts.push(esc === undefined ? Buffer.from(m[0], 'utf8') : Buffer.from([esc.length === 3 ? parseInt(esc, 8) : (C_ESCAPES[esc] ?? esc.charCodeAt(0))]));
  }
  return Buffer.concat(parts).toString('utf8');
}
