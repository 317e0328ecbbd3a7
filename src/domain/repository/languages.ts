// GET /projects/:id/languages: language name → share (%) of the default branch's files, largest
// first; {} for an empty repository. Served from the cached statistics (see statistics.ts).
import type { Container } from '../context.js';
import type { Actor } from '../auth/actor.js';
import { findProject } from '../projects/find.js';
import { repositoryStatistics } from './statistics.js';

export async function repositoryLanguages(c: Container, actor: Actor | null, idOrPath: number | string): Promise<Record<string, number>> {
  const { row } = await findProject(c, actor, idOrPath);
  const stats = (await repositoryStatistics(c, [row.id], { computeMissing: true })).get(row.id);
  return Object.fromEntries(stats?.languages ?? []);
}
