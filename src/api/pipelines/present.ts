// Pipeline views → the API's Pipeline shapes.
import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { PipelineListItem, PipelineView } from '../../domain/ci/pipelines.js';
import type { TestReport as TestReportData } from '../../domain/ci/test_reports.js';
import { pipelineWebUrl } from '../../domain/ci/variables.js';
import { presentUserBasic } from '../users/present.js';
import type { Pipeline, PipelineBasic, TestReport } from './schemas.js';

export function presentPipelineBasic(c: Container, v: PipelineListItem): Static<typeof PipelineBasic> {
  const p = v.pipeline;
  return {
    id: p.id,
    iid: p.iid,
    project_id: p.project_id,
    sha: p.sha,
    ref: p.ref,
    status: p.status,
    source: p.source,
    created_at: p.created_at,
    updated_at: p.updated_at,
    web_url: pipelineWebUrl(c, v.project, p.id),
  };
}

export function presentPipeline(c: Container, v: PipelineView): Static<typeof Pipeline> {
  const p = v.pipeline;
  return {
    ...presentPipelineBasic(c, v),
    before_sha: p.before_sha,
    tag: p.tag === 1,
    yaml_errors: p.yaml_errors,
    user: v.user ? presentUserBasic(c, v.user) : null,
    started_at: p.started_at,
    finished_at: p.finished_at,
    committed_at: p.committed_at,
    duration: p.duration === null ? null : Math.round(p.duration),
    queued_duration: p.queued_duration,
    coverage: p.coverage,
  };
}

/** suite_error appears only on a suite that has one. */
export function presentTestReport(r: TestReportData): Static<typeof TestReport> {
  return {
    ...r,
    test_suites: r.test_suites.map(({ suite_error, ...s }) => (suite_error ? { ...s, suite_error } : s)),
  };
}
