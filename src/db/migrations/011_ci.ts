import type { Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// CI: pipelines, their jobs (builds and bridges, one table as the reference keeps them), the
// variables given at creation or play (values encrypted), artifacts (one row per file type, the
// bytes in blob storage), and trace chunks (the log of a running job, readable from any node;
// folded into a `trace` artifact when the job finishes).
export async function up(db: Kysely<any>): Promise<void> {
  const d = dialectOf(db);
  await withId(db.schema.createTable('ci_pipelines'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('before_sha', 'text', (c) => c.notNull())
    .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('yaml_errors', 'text')
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('committed_at', 'text')
    .addColumn('duration', 'integer')
    .addColumn('queued_duration', 'integer')
    .addColumn('coverage', 'text')
    // A child pipeline (source parent_pipeline) points at its parent; deleting the parent keeps it.
    .addColumn('parent_pipeline_id', 'integer', (c) => c.references('ci_pipelines.id').onDelete('set null'))
    // The bridge job that triggered this pipeline (child or downstream), if any.
    .addColumn('parent_job_id', 'integer')
    // The commit, cached at creation so job lists never spawn git.
    .addColumn('commit_message', 'text')
    .addColumn('commit_author_name', 'text')
    .addColumn('commit_author_email', 'text')
    .addColumn('commit_created_at', 'text')
    .addUniqueConstraint('ci_pipelines_project_iid_uq', ['project_id', 'iid'])
    .execute();
  for (const [name, cols] of [
    ['ci_pipelines_project_id_idx', ['project_id', 'id']],
    ['ci_pipelines_project_status_idx', ['project_id', 'status', 'id']],
    ['ci_pipelines_project_ref_idx', ['project_id', 'ref', 'id']],
    ['ci_pipelines_project_sha_idx', ['project_id', 'sha', 'id']],
    ['ci_pipelines_project_updated_idx', ['project_id', 'updated_at', 'id']],
    ['ci_pipelines_project_user_idx', ['project_id', 'user_id', 'id']],
    ['ci_pipelines_parent_idx', ['parent_pipeline_id']],
  ] as const) {
    await db.schema.createIndex(name).on('ci_pipelines').columns([...cols]).execute();
  }

  await withId(db.schema.createTable('ci_pipeline_variables'), d)
    .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('encrypted_value', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_pipeline_variables_pipeline_idx').on('ci_pipeline_variables').columns(['pipeline_id', 'id']).execute();

  await withId(db.schema.createTable('ci_jobs'), d)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull()) // build | bridge
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('stage_idx', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('allow_failure', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('when', 'text', (c) => c.notNull())
    .addColumn('coverage', 'real')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'text')
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('scheduled_at', 'text') // delayed jobs: when they become pending
    .addColumn('duration', 'real')
    .addColumn('queued_duration', 'real')
    .addColumn('artifacts_expire_at', 'text')
    .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]')) // JSON array
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('retried', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retry_count', 'integer', (c) => c.notNull().defaultTo(0)) // automatic retries so far (`retry:`)
    .addColumn('options', 'text', (c) => c.notNull()) // JSON: the planned job (scripts, artifacts, needs, …)
    .addColumn('runner_id', 'integer') // the built-in runner (1) once picked
    .addColumn('exit_code', 'integer')
    .addColumn('token_digest', 'text') // SHA-256 of CI_JOB_TOKEN; set only while the job runs
    .addColumn('erased_at', 'text')
    .addColumn('erased_by_id', 'integer')
    .addColumn('downstream_pipeline_id', 'integer') // bridges: the pipeline they triggered
    .execute();
  for (const [name, cols] of [
    ['ci_jobs_project_idx', ['project_id', 'id']],
    ['ci_jobs_project_status_idx', ['project_id', 'status', 'id']],
    ['ci_jobs_pipeline_idx', ['pipeline_id', 'id']],
    ['ci_jobs_status_idx', ['status', 'id']],
  ] as const) {
    await db.schema.createIndex(name).on('ci_jobs').columns([...cols]).execute();
  }
  await db.schema.createIndex('ci_jobs_token_uq').on('ci_jobs').column('token_digest').unique().execute();

  await withId(db.schema.createTable('ci_job_variables'), d)
    .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('encrypted_value', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_job_variables_job_idx').on('ci_job_variables').columns(['job_id', 'id']).execute();

  await withId(db.schema.createTable('ci_job_artifacts'), d)
    .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('file_type', 'text', (c) => c.notNull()) // archive | metadata | trace | junit | sast | …
    .addColumn('file_format', 'text', (c) => c.notNull()) // zip | gzip | raw
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('expire_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ci_job_artifacts_job_type_uq', ['job_id', 'file_type'])
    .execute();
  await db.schema.createIndex('ci_job_artifacts_expire_idx').on('ci_job_artifacts').columns(['expire_at', 'id']).execute();
  await db.schema.createIndex('ci_job_artifacts_project_idx').on('ci_job_artifacts').columns(['project_id', 'job_id']).execute();

  // Base64 text so both dialects store the bytes alike; a chunk is at most a few KiB.
  await db.schema
    .createTable('ci_trace_chunks')
    .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ci_trace_chunks_pk', ['job_id', 'seq'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
