// Git bundles, the repository part of a project export (`project.bundle`).
import fs from 'node:fs';
import { git, gitText, safeArg } from './git.js';

/** Writes every ref of the repository (and HEAD) into a bundle file, as `git bundle create --all`. False when there are no refs. */
export async function createBundle(dir: string, file: string): Promise<boolean> {
  const refs = await gitText(['for-each-ref', '--count=1', '--format=%(refname)'], { gitDir: dir });
  if (!refs) return false; // git refuses to write an empty bundle
  await git(['bundle', 'create', '--quiet', safeArg(file, 'bundle path'), '--all'], { gitDir: dir });
  return fs.existsSync(file);
}

/**
 * Fetches every branch and tag of a bundle (from an archive: untrusted) into a repository.
 * Hooks are off and every object is checked as it arrives; nothing else in the bundle is read.
 * Returns the sha the bundle names as HEAD, if any.
 */
export async function fetchBundle(dir: string, file: string): Promise<{ head: string | null }> {
  const bundle = safeArg(file, 'bundle path');
  const env = { GIT_CONFIG_COUNT: '0' };
  const safety = ['-c', 'core.hooksPath=/dev/null', '-c', 'fetch.fsckObjects=true', '-c', 'transfer.fsckObjects=true'];
  const heads = (await gitText([...safety, 'bundle', 'list-heads', bundle], { gitDir: dir, env })).split('\n');
  await git([...safety, 'fetch', '--quiet', '--no-write-fetch-head', bundle, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'], { gitDir: dir, env });
  const head = heads.map((l) => l.split(' ')).find(([, ref]) => ref === 'HEAD');
  return { head: head && /^[0-9a-f]{40,64}$/.test(head[0]) ? head[0] : null };
}
