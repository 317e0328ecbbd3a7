// Drives Anvil's CI API with @gitbeaker/rest as a user would (pipelines, jobs, logs, actions).
// Reads ANVIL_URL, ANVIL_TOKEN, PROJECT_ID; prints one JSON line with what it saw. Waits poll the
// API (bounded): the built-in runner runs the jobs meanwhile.
import { Gitlab } from '@gitbeaker/rest';

const { ANVIL_URL: host, ANVIL_TOKEN: token } = process.env;
const projectId = Number(process.env.PROJECT_ID);
const api = new Gitlab({ host, token });
const FINISHED = ['success', 'failed', 'canceled', 'skipped'];
const seen = {};

async function wait(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const pipelineIn = (id, statuses) =>
  wait(`pipeline ${id} in ${statuses}`, async () => {
    const p = await api.Pipelines.show(projectId, id);
    return statuses.includes(p.status) ? p : null;
  });
const jobIn = (id, statuses) =>
  wait(`job ${id} in ${statuses}`, async () => {
    const j = await api.Jobs.show(projectId, id);
    return statuses.includes(j.status) ? j : null;
  });
const byName = (jobs) => Object.fromEntries(jobs.map((j) => [j.name, j]));
/** What the client hands back for a failed request: the status and message it read. */
const failure = async (p) => {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return { status: e.cause?.response?.status, message: e.cause?.description };
  }
};

// ---- a pipeline created with a variable, run to its end ----
const created = await api.Pipelines.create(projectId, 'main', { variables: [{ key: 'X', value: 'y' }] });
seen.created = { id: created.id, status: created.status, source: created.source, ref: created.ref };
seen.finished_status = (await pipelineIn(created.id, FINISHED)).status;
const jobs = await wait('the pipeline jobs', async () => {
  const all = byName(await api.Jobs.all(projectId, { pipelineId: created.id }));
  return all.build?.status === 'success' && all.deploy?.status === 'manual' ? all : null;
});
seen.job_statuses = Object.fromEntries(Object.values(jobs).map((j) => [j.name, j.status]));
seen.bridges = (await api.Jobs.allPipelineBridges(projectId, created.id)).map((b) => ({
  name: b.name, status: b.status, downstream: b.downstream_pipeline?.id ?? null,
}));
seen.variables = (await api.Pipelines.allVariables(projectId, created.id)).map((v) => ({ key: v.key, value: v.value, variable_type: v.variable_type }));
const report = await api.Pipelines.showTestReport(projectId, created.id);
seen.test_report = { total: report.total_count, success: report.success_count, failed: report.failed_count, suites: report.test_suites.map((s) => s.name) };
const summary = await api.Pipelines.showTestReportSummary(projectId, created.id);
seen.test_report_summary = { total: summary.total.count, build_ids: summary.test_suites[0].build_ids };
seen.build_id = jobs.build.id;

// ---- lists with filters ----
const second = await api.Pipelines.create(projectId, 'main');
await pipelineIn(second.id, FINISHED);
seen.second_id = second.id;
seen.list_failed_asc = (await api.Pipelines.all(projectId, { status: 'failed', ref: 'main', orderBy: 'id', sort: 'asc' })).map((p) => p.id);
seen.list_desc = (await api.Pipelines.all(projectId, { orderBy: 'id', sort: 'desc' })).map((p) => p.id);
seen.list_other_ref = (await api.Pipelines.all(projectId, { ref: 'no-such-branch' })).map((p) => p.id);
seen.list_success = (await api.Pipelines.all(projectId, { status: 'success' })).map((p) => p.id);
seen.list_paged = (await api.Pipelines.all(projectId, { perPage: 1, maxPages: 10 })).map((p) => p.id);
seen.project_jobs_scoped = [...new Set((await api.Jobs.all(projectId, { scope: ['success', 'failed'] })).map((j) => j.status))].sort();
seen.project_jobs_failed = (await api.Jobs.all(projectId, { scope: 'failed' })).map((j) => j.name).sort();
seen.bad_scope = await failure(api.Jobs.all(projectId, { scope: 'bogus' }));

// ---- one job, its log, retry, play ----
const build = await api.Jobs.show(projectId, jobs.build.id);
seen.job_get = { id: build.id, name: build.name, status: build.status, pipeline: build.pipeline.id, stage: build.stage };
seen.trace = await api.Jobs.showLog(projectId, build.id);
const retried = await api.Jobs.retry(projectId, jobs.broken.id);
seen.retried = { old: jobs.broken.id, new: retried.id, status: retried.status, name: retried.name };
await jobIn(retried.id, FINISHED);
const everything = await api.Jobs.all(projectId, { pipelineId: created.id, includeRetried: true });
seen.include_retried_broken = everything.filter((j) => j.name === 'broken').map((j) => j.id).sort((a, b) => a - b);
seen.current_broken = (await api.Jobs.all(projectId, { pipelineId: created.id })).filter((j) => j.name === 'broken').map((j) => j.id);

const played = await api.Jobs.play(projectId, jobs.deploy.id, { jobVariablesAttributes: [{ key: 'TARGET', value: 'staging' }] });
seen.play_result = { id: played.id, status: played.status };
seen.deploy_id = jobs.deploy.id;
const deploy = await jobIn(jobs.deploy.id, FINISHED);
seen.played = { status: deploy.status, trace: await api.Jobs.showLog(projectId, deploy.id) };
seen.play_unplayable = await failure(api.Jobs.play(projectId, jobs.build.id));

// ---- pipeline retry (the failed job runs again) ----
const beforeRetry = new Set((await api.Jobs.all(projectId, { pipelineId: created.id, includeRetried: true })).map((j) => j.id));
const retriedPipeline = await api.Pipelines.retry(projectId, created.id);
seen.pipeline_retry = { id: retriedPipeline.id, status: retriedPipeline.status };
await pipelineIn(created.id, FINISHED);
seen.pipeline_retry_new_jobs = (await api.Jobs.all(projectId, { pipelineId: created.id, includeRetried: true }))
  .filter((j) => !beforeRetry.has(j.id)).map((j) => j.name).sort();

// ---- cancel a running job, and a running pipeline ----
const slowRunning = (pipelineId) =>
  wait('slow job running', async () => (await api.Jobs.all(projectId, { pipelineId })).find((j) => j.name === 'slow' && j.status === 'running'));
const slowPipeline = await api.Pipelines.create(projectId, 'main', { variables: [{ key: 'SLOW', value: '1' }] });
const slow = await slowRunning(slowPipeline.id);
seen.slow_id = slow.id;
seen.running_trace = typeof (await api.Jobs.showLog(projectId, slow.id));
seen.running_retry = await failure(api.Jobs.retry(projectId, slow.id));
seen.running_erase = await failure(api.Jobs.erase(projectId, slow.id));
const canceled = await api.Jobs.cancel(projectId, slow.id);
seen.job_cancel = { id: canceled.id, status: canceled.status };

const slowPipeline2 = await api.Pipelines.create(projectId, 'main', { variables: [{ key: 'SLOW', value: '1' }] });
await slowRunning(slowPipeline2.id);
const pipelineCanceled = await api.Pipelines.cancel(projectId, slowPipeline2.id);
seen.pipeline_cancel = { id: pipelineCanceled.id, status: pipelineCanceled.status };
seen.pipeline_cancel_final = (await pipelineIn(slowPipeline2.id, FINISHED)).status;
seen.pipeline_cancel_jobs = [...new Set((await api.Jobs.all(projectId, { pipelineId: slowPipeline2.id })).map((j) => j.status))].sort();

seen.cancel_finished = (await api.Jobs.cancel(projectId, build.id)).status;

// ---- the project by its path; offset pagination as the client reports it ----
const projectPath = (await api.Projects.show(projectId)).path_with_namespace;
const expanded = await api.Pipelines.all(projectPath, { showExpanded: true, perPage: 2, page: 1, pagination: 'offset', scope: 'finished', source: 'api', username: 'root', yamlErrors: false });
seen.by_path = {
  pipelines: expanded.data.map((p) => p.id),
  pagination: { total: expanded.paginationInfo.total, totalPages: expanded.paginationInfo.totalPages, next: expanded.paginationInfo.next, perPage: expanded.paginationInfo.perPage },
  manual_jobs: (await api.Jobs.all(projectPath, { scope: ['manual'] })).map((j) => j.name),
  pipeline_jobs: (await api.Jobs.all(projectPath, { pipelineId: created.id, scope: ['success'] })).map((j) => j.name).sort(),
};
seen.bad_ref = await failure(api.Pipelines.create(projectId, 'no-such-ref'));

// ---- erase a job, delete a pipeline ----
const erased = await api.Jobs.erase(projectId, build.id);
seen.erased = { id: erased.id, status: erased.status, artifacts: erased.artifacts, download_url: erased.download_url };
seen.trace_after_erase = await failure(api.Jobs.showLog(projectId, build.id));
seen.delete_result = await api.Pipelines.remove(projectId, second.id);
seen.get_after_delete = await failure(api.Pipelines.show(projectId, second.id));
seen.missing_job = await failure(api.Jobs.show(projectId, 999_999_999));

console.log(JSON.stringify(seen));
