// The hand-over from CI to merge-when-pipeline-succeeds: a finished pipeline queues the check of
// the requests waiting in its project (merge.ts runAutoMerge does it). Small on purpose: the
// pipeline state machine imports it, and nothing of the merge.
import type { Kysely } from 'kysely';
import type { Container } from '../context.js';
import type { DB } from '../../db/schema.js';
import type { PipelineRow } from '../../db/repos/ci_pipelines.js';
import { waitingForPipelines } from '../../db/repos/merge_requests.js';

export const MERGE_REQUEST_AUTO_MERGE_JOB = 'merge_request_auto_merge';

/** In the transaction that finished the pipeline. */
export async function enqueueAutoMerge(c: Container, tx: Kysely<DB>, pipeline: PipelineRow): Promise<void> {
  if ((await waitingForPipelines(tx, pipeline.project_id)).length === 0) return;
  await c.queue.enqueue(MERGE_REQUEST_AUTO_MERGE_JOB, { pipelineId: pipeline.id }, { trx: tx, maxAttempts: 5 });
}
