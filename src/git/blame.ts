// `git blame`: which commit last changed each line of a file, as runs of consecutive lines from
// one commit (the reference's blame ranges). One git run for the lines; the commits' details
// come from the object store.
import { git, safeArg } from './git.js';
import { commitsByShas } from './object_store.js';
import type { CommitInfo } from './objects.js';

export interface BlameRun {
  commit: CommitInfo;
  lines: string[];
}

const HEADER = /^([0-9a-f]{40}) \d+ \d+/;

/** Lines `start`..`end` (1-based, inclusive; all when not given) of `filePath` at `commit` (a sha). */
export async function blame(dir: string, commit: string, filePath: string, range?: { start: number; end: number }): Promise<BlameRun[]> {
  const args = ['blame', '--porcelain', ...(range ? [`-L${range.start},${range.end}`] : []), safeArg(commit, 'revision'), '--', filePath];
  const out = (await git(args, { gitDir: dir })).stdout.toString('utf8');
  // --porcelain: a header `<sha> <orig> <final>[ <count>]` per line, the commit's fields after its
  // first header only, then the line itself after a tab.
  const runs: { sha: string; lines: string[] }[] = [];
  let sha = '';
  for (const row of out.split('\n')) {
    if (row.startsWith('\t')) {
      const last = runs[runs.length - 1];
      if (last?.sha === sha) last.lines.push(row.slice(1));
      else runs.push({ sha, lines: [row.slice(1)] });
    } else {
      const m = HEADER.exec(row);
      if (m) sha = m[1];
    }
  }
  const commits = await commitsByShas(dir, [...new Set(runs.map((r) => r.sha))]);
  return runs.map((r) => ({ commit: commits.get(r.sha)!, lines: r.lines }));
}
