// What a project hook test sends: a sample of the trigger's event built from the project's own
// data, as the reference's TestHooks::ProjectService does; or why there is nothing to send.
import type { Container } from '../context.js';
import { latestBuild, latestPipelineId } from '../../db/repos/hooks.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import { logCommits } from '../../git/log.js';
import { ZERO_SHA } from '../../git/repository.js';
import { repositoryDir } from '../repository/service.js';
import { jobPayload, pipelinePayload } from './ci_payloads.js';
import type { HookEvent } from './delivery.js';
import { pushFacts } from './events.js';
import { hookProject, pushPayload } from './payloads.js';

/** Commits in the sample push (the reference's build_sample takes the newest three). */
const SAMPLE_COMMITS = 3;

export async function sampleEvent(c: Container, project: ProjectRow, trigger: string, userId: number): Promise<HookEvent | string> {
  switch (trigger) {
    case 'push_events':
    case 'tag_push_events': {
      const branch = project.default_branch ?? 'main';
      const dir = repositoryDir(c, project.id);
      const commits = await logCommits(dir, { rev: `refs/heads/${branch}`, skip: 0, limit: SAMPLE_COMMITS }).catch(() => []);
      const user = await findUserById(c.db, userId);
      if (commits.length === 0 || !user) return 'Ensure the project has at least one commit.';
      const hp = await hookProject(c.db, project);
      const change = { ref: `refs/heads/${branch}`, before: commits.at(-1)!.parentIds[0] ?? ZERO_SHA, after: commits[0].id };
      const facts = await pushFacts(dir, hp, change, () => false);
      const tag = trigger === 'tag_push_events';
      return {
        trigger: tag ? 'tag_push_hooks' : 'push_hooks',
        eventHeader: tag ? 'Tag Push Hook' : 'Push Hook',
        payload: pushPayload(c, tag ? 'tag_push' : 'push', hp, user, facts),
      };
    }
    case 'pipeline_events': {
      const id = await latestPipelineId(c.db, project.id);
      const payload = id === null ? null : await pipelinePayload(c, c.db, id);
      return payload ? { trigger: 'pipeline_hooks', eventHeader: 'Pipeline Hook', payload } : 'Ensure the project has CI pipelines.';
    }
    case 'job_events': {
      const job = await latestBuild(c.db, project.id);
      const payload = job ? await jobPayload(c, c.db, job) : null;
      return payload ? { trigger: 'job_hooks', eventHeader: 'Job Hook', payload } : 'Ensure the project has CI jobs.';
    }
  }
  return NOTHING_TO_TEST[trigger] ?? 'Testing not available for this hook';
}

/** Triggers Anvil has no data for, with the reference's explanation. */
const NOTHING_TO_TEST: Record<string, string> = {
  merge_requests_events: 'Ensure the project has merge requests.',
  issues_events: 'Ensure the project has issues.',
  confidential_issues_events: 'Ensure the project has issues.',
  note_events: 'Ensure the project has notes.',
  confidential_note_events: 'Ensure the project has notes.',
  wiki_page_events: 'Ensure the wiki is enabled and has pages.',
  releases_events: 'Ensure the project has releases.',
  emoji_events: 'Ensure the project has notes.',
  resource_access_token_events: 'Ensure the project has access tokens.',
};
