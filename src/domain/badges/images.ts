// The images badges point at: `/{project}/badges/{ref}/pipeline.svg` and `…/coverage.svg`.
// The pipeline image shows the status of the newest pipeline of the ref at its current commit;
// the coverage image the coverage of the ref's newest successful pipeline (or of one job of it).
import type { Container } from '../context.js';
import { jobCoverage, latestPipelineAt, latestSuccessfulPipeline } from '../../db/repos/badges.js';
import { resolveRevision } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import { ciAccess } from '../ci/policy.js';
import { DomainError, notFound } from '../errors.js';
import { findProject, type FoundProject } from '../projects/find.js';
import { repositoryDir } from '../repository/service.js';
import { canSeeBadgeImages } from './policy.js';
import { coverageTemplate, drawBadge, pipelineTemplate, type BadgeOptions } from './svg.js';

export type BadgeImageKind = 'pipeline' | 'coverage';

export interface BadgeImageOptions {
  key_text?: string;
  /** As given; a value that is not a number counts as none (the reference's `to_i`). */
  key_width?: string;
  style?: string;
  job?: string;
  ignore_skipped?: string;
}

const TRUE = new Set(['1', 'true', 't', 'yes', 'y', 'on']);

/**
 * `group/project/badges/some/ref` → the project and the ref. A path may hold `/badges/` more than
 * once (a group named `badges`, a ref holding it): the first split that names a visible project wins.
 */
async function projectAndRef(c: Container, actor: Actor | null, path: string): Promise<{ found: FoundProject; ref: string }> {
  for (let at = path.indexOf('/badges/'); at > 0; at = path.indexOf('/badges/', at + 1)) {
    const ref = path.slice(at + '/badges/'.length);
    if (!ref) break;
    try {
      return { found: await findProject(c, actor, path.slice(0, at)), ref };
    } catch (e) {
      if (!(e instanceof DomainError) || e.detail.kind !== 'not_found') throw e;
    }
  }
  throw notFound();
}

/** The SVG of a badge image; 404 unless the actor may read the project's jobs. */
export async function badgeImage(c: Container, actor: Actor | null, kind: BadgeImageKind, path: string, o: BadgeImageOptions): Promise<string> {
  const { found, ref } = await projectAndRef(c, actor, path);
  if (!canSeeBadgeImages(await ciAccess(c, actor, found))) throw notFound();
  const width = o.key_width !== undefined ? Number.parseInt(o.key_width, 10) : undefined;
  const opts: BadgeOptions = { key_text: o.key_text, key_width: Number.isNaN(width) ? undefined : width };
  const project = found.row;
  if (kind === 'pipeline') {
    const sha = await resolveRevision(repositoryDir(c, project.id), ref).catch(() => null);
    const pipeline = sha ? await latestPipelineAt(c.db, project.id, ref, sha, TRUE.has(String(o.ignore_skipped ?? '').toLowerCase())) : undefined;
    return drawBadge(pipelineTemplate(pipeline?.status ?? 'unknown', opts), o.style);
  }
  const pipeline = await latestSuccessfulPipeline(c.db, project.id, ref);
  let coverage: number | null = null;
  if (pipeline) {
    const raw = o.job ? await jobCoverage(c.db, pipeline.id, o.job) : pipeline.coverage;
    coverage = raw === null || raw === undefined || Number.isNaN(Number(raw)) ? null : Number(raw);
  }
  return drawBadge(coverageTemplate(coverage, opts), o.style);
}
