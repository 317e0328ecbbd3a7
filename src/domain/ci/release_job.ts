// The CI `release:` keyword: when its job succeeds, Anvil makes the release itself from the
// job's own values with the job's variables expanded (the reference runs release-cli in the job
// to call the same API), as the job's user, through the releases service.
import type { Container } from '../context.js';
import type { ReleaseSpec } from '../../ci/config/types.js';
import { expandVariables } from '../../ci/config/variables.js';
import type { JobRow } from '../../db/repos/ci_jobs.js';
import { findPipeline } from '../../db/repos/ci_pipelines.js';
import { findProjectById } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import { actingAs } from '../auth/actor.js';
import { DomainError } from '../errors.js';
import { createRelease } from '../releases/service.js';
import { LINK_TYPES, type LinkType } from '../releases/service.js';
import { jobVariableList } from './variables.js';

/** Makes the job's release; the reason it could not, or null when it was made. */
export async function releaseOfJob(c: Container, job: JobRow, spec: ReleaseSpec): Promise<string | null> {
  const project = await findProjectById(c.db, job.project_id);
  const pipeline = await findPipeline(c.db, job.pipeline_id);
  const user = job.user_id === null ? undefined : await findUserById(c.db, job.user_id);
  if (!project || !pipeline || !user) return 'the job has no user to make the release as';
  const vars: Record<string, string> = {};
  for (const v of await jobVariableList(c, project, pipeline, job)) vars[v.key] = v.value;
  const x = (s: string) => expandVariables(s, vars);
  const linkType = (t: string | null): LinkType | undefined => (t && (LINK_TYPES as readonly string[]).includes(x(t)) ? (x(t) as LinkType) : undefined);
  try {
    await createRelease(c, actingAs(user), project.id, {
      tag_name: x(spec.tagName),
      ...(spec.tagMessage !== null ? { tag_message: x(spec.tagMessage) } : {}),
      ...(spec.name !== null ? { name: x(spec.name) } : {}),
      description: x(spec.description),
      // release-cli's default: the pipeline's commit.
      ref: spec.ref !== null ? x(spec.ref) : pipeline.sha,
      ...(spec.milestones.length ? { milestones: spec.milestones.map(x) } : {}),
      ...(spec.releasedAt !== null ? { released_at: x(spec.releasedAt) } : {}),
      ...(spec.links.length
        ? { assets: { links: spec.links.map((l) => ({ name: x(l.name), url: x(l.url), ...(l.filepath ? { filepath: x(l.filepath) } : {}), link_type: linkType(l.linkType) })) } }
        : {}),
    });
    return null;
  } catch (e) {
    if (e instanceof DomainError) return JSON.stringify(e.detail);
    throw e;
  }
}
