// The Pipeline resources (spec "Pipeline", pipeline variable, test report and summary; the
// reference's Entities::Ci::PipelineBasic < Pipeline of 15.1 in their field order, without the
// detailed_status the spec does not list) and the list parameters.
import { Type as T } from '@sinclair/typebox';
import { PIPELINE_ORDERS, PIPELINE_SCOPES, PIPELINE_SOURCES, PIPELINE_STATUSES } from '../../domain/ci/pipelines.js';
import { IdOrPath, Nullable, OneOf, Timestamp } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

const basicFields = {
  id: T.Integer(),
  iid: T.Integer(),
  project_id: T.Integer(),
  sha: T.String(),
  ref: T.String(),
  status: T.String(),
  source: T.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  web_url: T.String(),
};

/** The list form. */
export const PipelineBasic = T.Object(basicFields);

export const Pipeline = T.Object({
  ...basicFields,
  before_sha: T.String(),
  tag: T.Boolean(),
  yaml_errors: Nullable(T.String()),
  user: Nullable(UserBasic),
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  committed_at: Nullable(T.String()),
  duration: Nullable(T.Integer()),
  queued_duration: Nullable(T.Number()),
  coverage: Nullable(T.String()),
});

export const PipelineVariable = T.Object({
  variable_type: T.String(),
  key: T.String(),
  value: T.String(),
});

export const TestCase = T.Object({
  status: T.String(),
  name: Nullable(T.String()),
  classname: Nullable(T.String()),
  execution_time: T.Number(),
  system_output: Nullable(T.String()),
  stack_trace: Nullable(T.String()),
});

/** The totals a test report, its suites and the summary's suites each carry. */
const TEST_COUNTS = {
  total_time: T.Number(),
  total_count: T.Integer(),
  success_count: T.Integer(),
  failed_count: T.Integer(),
  skipped_count: T.Integer(),
  error_count: T.Integer(),
};

export const TestSuite = T.Object({
  name: T.String(),
  ...TEST_COUNTS,
  /** Only when a report of the suite could not be read, as the reference shows it. */
  suite_error: T.Optional(T.String()),
  test_cases: T.Array(TestCase),
});

export const TestReport = T.Object({
  ...TEST_COUNTS,
  test_suites: T.Array(TestSuite),
});

export const TestReportSummary = T.Object({
  total: T.Object({
    time: T.Number(),
    count: T.Integer(),
    success: T.Integer(),
    failed: T.Integer(),
    skipped: T.Integer(),
    error: T.Integer(),
    suite_error: Nullable(T.String()),
  }),
  test_suites: T.Array(
    T.Object({
      name: T.String(),
      ...TEST_COUNTS,
      build_ids: T.Array(T.Integer()),
      suite_error: Nullable(T.String()),
    }),
  ),
});

export const ListParams = T.Object({
  id: IdOrPath,
  scope: T.Optional(OneOf(PIPELINE_SCOPES)),
  status: T.Optional(OneOf(PIPELINE_STATUSES)),
  source: T.Optional(OneOf(PIPELINE_SOURCES)),
  ref: T.Optional(T.String()),
  sha: T.Optional(T.String()),
  yaml_errors: T.Optional(T.Boolean()),
  username: T.Optional(T.String()),
  updated_after: T.Optional(T.String()),
  updated_before: T.Optional(T.String()),
  order_by: T.Optional(OneOf(PIPELINE_ORDERS)),
  sort: T.Optional(OneOf(['asc', 'desc'] as const)),
});

export const PipelineParams = T.Object({ id: IdOrPath, pipeline_id: T.Integer() });

export const CreateParams = T.Object({
  id: IdOrPath,
  ref: T.String(),
  /** Array of {key, value, variable_type}; checked in the domain (per-item errors in Grape's words). */
  variables: T.Optional(T.Any()),
});
