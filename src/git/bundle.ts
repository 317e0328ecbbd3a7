// Git bundles, the repository part of a project export (`project.bundle`).
import fs from 'node:fs';
import { git, gitText, safeArg } from './git.js';
import { isValidBranchName } from './refs.js';

/** Writes every ref of the repository (and HEAD) into a bundle file, as `git bundle create --all`. False when there are no refs. */
export async function createBundle(dir: string, file: string): Promise<boolean> {
  const refs = await gitText(['for-each-ref', '--count=1', '--format=%(refname)'], { gitDir: dir });
  if (!refs) return false; // git refuses to write an empty bundle
  await git(['bundle', 'create', '--quiet', safeArg(file, 'bundle path'), '--all'], { gitDir: dir });
  return fs.existsSync(file);
}

export interface FetchedBundle {
  /** The sha the bundle names as HEAD, if any. */
  head: string | null;
  /** Branches and tags the bundle lists. */
  offered: number;
  /** Those that did not arrive: names git refuses (`a..b`, `x.lock`, control characters…). */
  dropped: string[];
}

/**
 * Fetches every branch and tag of a bundle (from an archive: untrusted) into a repository.
 * Hooks are off and every object is checked as it arrives; nothing else in the bundle is read.
 * Refs whose names git refuses are not asked for (git would skip them, or fail the whole fetch
 * for a tag) and come back as dropped, with any other listed ref that did not arrive.
 */
export async function fetchBundle(dir: string, file: string): Promise<FetchedBundle> {
  const bundle = safeArg(file, 'bundle path');
  const env = { GIT_CONFIG_COUNT: '0' };
  const safety = ['-c', 'core.hooksPath=/dev/null', '-c', 'fetch.fsckObjects=true', '-c', 'transfer.fsckObjects=true'];
  const heads = (await gitText([...safety, 'bundle', 'list-heads', bundle], { gitDir: dir, env })).split('\n').map((l) => {
    const sp = l.indexOf(' ');
    return { sha: l.slice(0, sp), ref: l.slice(sp + 1) };
  });
  const listed = [...new Set(heads.map((h) => h.ref).filter((r) => /^refs\/(heads|tags)\//.test(r)))];
  const wanted = listed.filter((r) => isValidBranchName(r.replace(/^refs\/(heads|tags)\//, '')));
  if (wanted.length > 0) {
    await git([...safety, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--stdin', bundle], { gitDir: dir, env, input: wanted.map((r) => `+${r}:${r}\n`).join('') });
  }
  // --no-tags: the wanted tags are asked for by name; following others would bring the refused ones back
  const arrived = new Set((await gitText(['for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/tags/'], { gitDir: dir })).split('\n'));
  const head = heads.find((h) => h.ref === 'HEAD');
  return {
    head: head && /^[0-9a-f]{40,64}$/.test(head.sha) ? head.sha : null,
    offered: listed.length,
    dropped: listed.filter((r) => !arrived.has(r)),
  };
}
