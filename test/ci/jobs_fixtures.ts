// Fixtures of the jobs API tests: pipelines from hand-built plans through
// state.createPipelineRecords (the parser and the runner have their own tests), and the key
// sets of the Job and Bridge shapes.
import type { PlannedJob } from '../../src/ci/config/types.js';
import type { PipelineRow } from '../../src/db/repos/ci_pipelines.js';
import type { ProjectRow } from '../../src/db/repos/projects.js';
import { createPipelineRecords } from '../../src/domain/ci/state.js';
import type { TestApp } from '../helpers/build.js';

export const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

export const JOB_KEYS = [
  'allow_failure', 'artifacts', 'artifacts_expire_at', 'commit', 'coverage', 'created_at', 'duration', 'finished_at', 'id', 'name',
  'pipeline', 'queued_duration', 'ref', 'runner', 'stage', 'started_at', 'status', 'tag', 'tag_list', 'user', 'web_url',
].sort();
export const BRIDGE_KEYS = [
  'allow_failure', 'commit', 'coverage', 'created_at', 'downstream_pipeline', 'duration', 'finished_at', 'id', 'name', 'pipeline',
  'queued_duration', 'ref', 'stage', 'started_at', 'status', 'tag', 'user', 'web_url',
].sort();
export { PIPELINE_BASIC_KEYS as PIPELINE_KEYS } from '../helpers/keys.js';
export const COMMIT_KEYS = ['author_email', 'author_name', 'created_at', 'id', 'message', 'short_id', 'title'];
export const RUNNER_KEYS = ['active', 'description', 'id', 'ip_address', 'is_shared', 'name', 'online', 'paused', 'runner_type', 'status'];
export const USER_KEYS = [
  'avatar_url', 'bio', 'bot', 'created_at', 'followers', 'following', 'id', 'is_followed', 'job_title', 'linkedin', 'local_time',
  'location', 'name', 'organization', 'pronouns', 'public_email', 'skype', 'state', 'twitter', 'username', 'web_url', 'website_url',
  'work_information',
].sort();

export { plannedJob } from '../helpers/ci.js';

const STAGES = ['.pre', 'build', 'test', 'deploy', '.post'];

export async function seedPipeline(
  t: TestApp,
  project: ProjectRow,
  jobs: PlannedJob[],
  o: { userId?: number | null; ref?: string; parentPipelineId?: number } = {},
): Promise<PipelineRow> {
  return createPipelineRecords(t.c, {
    project,
    ref: o.ref ?? 'main',
    sha: SHA,
    beforeSha: '0'.repeat(40),
    tag: false,
    source: o.parentPipelineId ? 'parent_pipeline' : 'api',
    userId: o.userId ?? null,
    commit: { message: 'Add CI\n\nwith a body\n', authorName: 'Ada Author', authorEmail: 'ada@example.com', createdAt: '2024-01-02T03:04:05.000Z' },
    variables: [],
    parentPipelineId: o.parentPipelineId ?? null,
    plan: { stages: STAGES, variables: {}, jobs },
  });
}

