// History reads for the repository extras: who committed (contributors), the tags and branches a
// commit is in, and the commits of a range with a given trailer (changelogs).
import { git, safeArg } from './git.js';
import { HEADS, TAGS } from './refs.js';

export interface AuthorCount {
  email: string;
  /** The name on the author's newest commit. */
  name: string;
  commits: number;
}

/**
 * Authors of the newest `limit` non-merge commits of `commit`, by email as recorded, in order of
 * their newest commit. Streamed line by line: only the tallies are kept.
 */
export async function authorCounts(dir: string, commit: string, limit: number): Promise<AuthorCount[]> {
  const r = await git(['log', '--no-merges', `--max-count=${limit}`, '--format=%ae%x1f%an', safeArg(commit, 'commit'), '--'], { gitDir: dir });
  const byEmail = new Map<string, AuthorCount>();
  for (const line of r.stdout.toString('utf8').split('\n')) {
    if (line === '') continue;
    const [email, name = ''] = line.split('\x1f');
    const seen = byEmail.get(email);
    if (seen) {
      seen.commits++;
      if (seen.name === '') seen.name = name;
    } else byEmail.set(email, { email, name, commits: 1 });
  }
  return [...byEmail.values()];
}

/** Names of the refs under `prefix` (refs/heads/, refs/tags/) whose history contains the commit, by name. */
async function refsContaining(dir: string, commit: string, prefix: string): Promise<string[]> {
  const r = await git(['for-each-ref', `--contains=${safeArg(commit, 'commit')}`, '--sort=refname', '--format=%(refname)', prefix], { gitDir: dir, okCodes: [128, 129] });
  if (r.code !== 0) return [];
  return r.stdout.toString('utf8').split('\n').filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
}

export const branchNamesContaining = (dir: string, commit: string) => refsContaining(dir, commit, HEADS);
export const tagNamesContaining = (dir: string, commit: string) => refsContaining(dir, commit, TAGS);

export interface TrailerCommit {
  id: string;
  title: string;
  authorName: string;
  authorEmail: string;
  /** The value of the asked trailer (the last one, when given twice). */
  trailer: string;
  /** The commit this one says it reverts (`This reverts commit <sha>`), if any. */
  reverts: string | null;
}

/**
 * Commits in `from..to` (from excluded; null: all of `to`), oldest first, that carry the trailer
 * `name` (case-insensitive key), with what they revert.
 */
export async function commitsWithTrailer(dir: string, from: string | null, to: string, name: string): Promise<TrailerCommit[]> {
  const key = name.replace(/[^A-Za-z0-9-]/g, '');
  const range = from ? `${safeArg(from, 'from')}..${safeArg(to, 'to')}` : safeArg(to, 'to');
  const format = `%x1e%H%x1f%s%x1f%an%x1f%ae%x1f%(trailers:key=${key},valueonly,separator=%x1d)%x1f%b`;
  const r = await git(['log', '--reverse', `--format=${format}`, range, '--'], { gitDir: dir });
  const out: TrailerCommit[] = [];
  for (const rec of r.stdout.toString('utf8').split('\x1e')) {
    if (rec === '') continue;
    const [id, title, authorName, authorEmail, trailers, body = ''] = rec.split('\x1f');
    const values = trailers.split('\x1d').map((v) => v.trim()).filter(Boolean);
    const reverts = /This reverts commit ([0-9a-f]{40})/.exec(body)?.[1] ?? null;
    out.push({ id, title, authorName, authorEmail, trailer: values[values.length - 1] ?? '', reverts });
  }
  return out;
}

/** Every tag with the commit (or object) it names, an annotated tag peeled. */
export async function tagTargets(dir: string): Promise<{ name: string; commit: string }[]> {
  const r = await git(['for-each-ref', '--format=%(refname)%00%(*objectname)%00%(objectname)', TAGS], { gitDir: dir });
  return r.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l.startsWith(TAGS))
    .map((l) => {
      const [ref, peeled, own] = l.split('\0');
      return { name: ref.slice(TAGS.length), commit: peeled || own };
    });
}
