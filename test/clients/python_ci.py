"""Drives Anvil's CI API with python-gitlab exactly as a user would (pipelines, jobs, logs, actions).
Reads ANVIL_URL, ANVIL_TOKEN, PROJECT_ID, CLI_CONFIG; prints one JSON line with what it saw.
Waits poll the API (bounded): the built-in runner runs the jobs meanwhile."""
import json
import os
import subprocess
import sys
import time

import gitlab

url, token = os.environ["ANVIL_URL"], os.environ["ANVIL_TOKEN"]
project_id = int(os.environ["PROJECT_ID"])
gl = gitlab.Gitlab(url, private_token=token)
project = gl.projects.get(project_id)
FINISHED = ("success", "failed", "canceled", "skipped")
seen = {}


def wait(what, check, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)


def refreshed_pipeline(pipeline, statuses):
    def check():
        pipeline.refresh()
        return pipeline if pipeline.status in statuses else None
    return wait(f"pipeline {pipeline.id} in {statuses}", check)


def job_in(job_id, statuses):
    def check():
        job = project.jobs.get(job_id)
        return job if job.status in statuses else None
    return wait(f"job {job_id} in {statuses}", check)


def by_name(jobs):
    return {j.name: j for j in jobs}


# ---- a pipeline created with a variable, run to its end ----
pipeline = project.pipelines.create({"ref": "main", "variables": [{"key": "X", "value": "y"}]})
seen["created"] = {"id": pipeline.id, "status": pipeline.status, "source": pipeline.source, "ref": pipeline.ref}
pipeline = refreshed_pipeline(pipeline, FINISHED)
seen["finished_status"] = pipeline.status


def pipeline_jobs_settled():
    jobs = by_name(pipeline.jobs.list(get_all=True))
    settled = jobs.get("build") and jobs["build"].status == "success" and jobs.get("deploy") and jobs["deploy"].status == "manual"
    return jobs if settled else None


jobs = wait("the pipeline's jobs", pipeline_jobs_settled)
seen["job_statuses"] = {name: j.status for name, j in jobs.items()}
seen["bridges"] = [{"name": b.name, "status": b.status, "downstream": b.downstream_pipeline["id"] if b.downstream_pipeline else None}
                   for b in pipeline.bridges.list(get_all=True)]
seen["variables"] = [{"key": v.key, "value": v.value, "variable_type": v.variable_type} for v in pipeline.variables.list(get_all=True)]
report = pipeline.test_report.get()
seen["test_report"] = {"total": report.total_count, "success": report.success_count, "failed": report.failed_count,
                       "suites": [s["name"] for s in report.test_suites]}
summary = pipeline.test_report_summary.get()
seen["test_report_summary"] = {"total": summary.total["count"], "build_ids": summary.test_suites[0]["build_ids"]}
seen["build_id"] = jobs["build"].id

# ---- lists with filters ----
second = project.pipelines.create({"ref": "main"})
refreshed_pipeline(second, FINISHED)
seen["second_id"] = second.id
seen["list_failed_asc"] = [p.id for p in project.pipelines.list(status="failed", ref="main", order_by="id", sort="asc", get_all=True)]
seen["list_desc"] = [p.id for p in project.pipelines.list(order_by="id", sort="desc", get_all=True)]
seen["list_other_ref"] = [p.id for p in project.pipelines.list(ref="no-such-branch", get_all=True)]
seen["list_success"] = [p.id for p in project.pipelines.list(status="success", get_all=True)]
seen["project_jobs_scoped"] = sorted({j.status for j in project.jobs.list(scope=["success", "failed"], get_all=True)})
seen["project_jobs_failed"] = sorted(j.name for j in project.jobs.list(scope="failed", get_all=True))

# ---- one job, its log, retry, play ----
build = project.jobs.get(jobs["build"].id)
seen["job_get"] = {"id": build.id, "name": build.name, "status": build.status, "pipeline": build.pipeline["id"], "stage": build.stage}
seen["trace"] = build.trace().decode("utf-8")
broken = project.jobs.get(jobs["broken"].id)
retried = broken.retry()
seen["retried"] = {"old": broken.id, "new": retried["id"], "status": retried["status"], "name": retried["name"]}
job_in(retried["id"], FINISHED)
everything = pipeline.jobs.list(include_retried=True, get_all=True)
seen["include_retried_broken"] = sorted(j.id for j in everything if j.name == "broken")
seen["current_broken"] = [j.id for j in pipeline.jobs.list(get_all=True) if j.name == "broken"]

deploy = project.jobs.get(jobs["deploy"].id)
seen["play_result"] = deploy.play()
deploy = job_in(deploy.id, FINISHED)
seen["played"] = {"status": deploy.status, "trace": deploy.trace().decode("utf-8")}

# ---- pipeline retry (the failed job runs again) ----
before_retry = {j.id for j in pipeline.jobs.list(include_retried=True, get_all=True)}
retried_pipeline = pipeline.retry()
seen["pipeline_retry"] = {"id": retried_pipeline["id"], "status": retried_pipeline["status"]}
refreshed_pipeline(pipeline, FINISHED)
after_retry = {j.id for j in pipeline.jobs.list(include_retried=True, get_all=True)}
seen["pipeline_retry_new_jobs"] = sorted(j.name for j in pipeline.jobs.list(include_retried=True, get_all=True) if j.id not in before_retry)
seen["pipeline_retry_grew"] = len(after_retry) > len(before_retry)

# ---- cancel a running job, and a running pipeline ----
slow_pipeline = project.pipelines.create({"ref": "main", "variables": [{"key": "SLOW", "value": "1"}]})


def slow_running():
    slow = [j for j in slow_pipeline.jobs.list(get_all=True) if j.name == "slow"]
    return slow[0] if slow and slow[0].status == "running" else None


slow = project.jobs.get(wait("slow job running", slow_running).id)
seen["slow_id"] = slow.id
seen["running_trace"] = type(slow.trace()).__name__
for action in ("retry", "erase"):
    try:
        getattr(slow, action)()
        seen[f"running_{action}"] = "no error"
    except (gitlab.exceptions.GitlabJobRetryError, gitlab.exceptions.GitlabJobEraseError) as e:
        seen[f"running_{action}"] = [e.response_code, e.error_message]
canceled = slow.cancel()
seen["job_cancel"] = {"id": canceled["id"], "status": canceled["status"]}
# its other jobs finish on their own time (a loaded machine): the finished list below counts this pipeline
refreshed_pipeline(slow_pipeline, FINISHED)

slow_pipeline2 = project.pipelines.create({"ref": "main", "variables": [{"key": "SLOW", "value": "1"}]})
wait("second slow job running", lambda: [j for j in slow_pipeline2.jobs.list(get_all=True) if j.name == "slow" and j.status == "running"])
pipeline_canceled = slow_pipeline2.cancel()
seen["pipeline_cancel"] = {"id": pipeline_canceled["id"], "status": pipeline_canceled["status"]}
seen["pipeline_cancel_final"] = refreshed_pipeline(slow_pipeline2, FINISHED).status
seen["pipeline_cancel_jobs"] = sorted({j.status for j in slow_pipeline2.jobs.list(get_all=True)})

seen["cancel_finished"] = build.cancel()["status"]

# ---- the project by its path (a lazy object: URL-encoded path in every request) ----
lazy = gl.projects.get(project.path_with_namespace, lazy=True)
seen["by_path"] = {
    "pipelines": [p.id for p in lazy.pipelines.list(scope="finished", source="api", username="root", yaml_errors=False, get_all=True)],
    "manual_jobs": [j.name for j in lazy.jobs.list(scope="manual", get_all=True)],
    "pipeline_jobs": sorted(j.name for j in lazy.pipelines.get(pipeline.id).jobs.list(scope=["success"], get_all=True)),
}
try:
    project.pipelines.create({"ref": "no-such-ref"})
    seen["bad_ref"] = "no error"
except gitlab.exceptions.GitlabCreateError as e:
    seen["bad_ref"] = [e.response_code, e.error_message]

# ---- erase a job, delete a pipeline ----
seen["erase_result"] = build.erase()
build.refresh()
seen["erased"] = {"artifacts": build.attributes["artifacts"], "status": build.status}
try:
    build.trace()
    seen["trace_after_erase"] = "still there"
except gitlab.exceptions.GitlabGetError as e:
    seen["trace_after_erase"] = e.response_code

seen["delete_result"] = second.delete()
try:
    project.pipelines.get(second.id)
    seen["get_after_delete"] = "still there"
except gitlab.exceptions.GitlabGetError as e:
    seen["get_after_delete"] = e.response_code

# ---- every page, two at a time (the client follows the Link header) ----
small = gitlab.Gitlab(url, private_token=token, per_page=2).projects.get(project_id, lazy=True)
all_jobs = [j.id for j in project.jobs.list(per_page=100, get_all=True)]
all_pipeline_jobs = [j.id for j in pipeline.jobs.list(include_retried=True, per_page=100, get_all=True)]
seen["paged"] = {
    "project_jobs": len(all_jobs) > 4 and [j.id for j in small.jobs.list(get_all=True)] == all_jobs,
    "pipeline_jobs": len(all_pipeline_jobs) > 4
    and [j.id for j in small.pipelines.get(pipeline.id).jobs.list(include_retried=True, get_all=True)] == all_pipeline_jobs,
    "descending": all_jobs == sorted(all_jobs, reverse=True),
}

# ---- the gitlab CLI ----
cli = subprocess.run(
    [sys.executable, "-m", "gitlab", "-c", os.environ["CLI_CONFIG"], "-g", "anvil", "-o", "json",
     "project-pipeline", "list", "--project-id", str(project_id)],
    capture_output=True, text=True, check=False,
)
seen["cli"] = {"rc": cli.returncode, "ids": [p["id"] for p in json.loads(cli.stdout)] if cli.returncode == 0 else cli.stderr}
cli_job = subprocess.run(
    [sys.executable, "-m", "gitlab", "-c", os.environ["CLI_CONFIG"], "-g", "anvil", "-o", "json",
     "project-job", "get", "--project-id", str(project_id), "--id", str(seen["retried"]["new"])],
    capture_output=True, text=True, check=False,
)
cli_jobs = subprocess.run(
    [sys.executable, "-m", "gitlab", "-c", os.environ["CLI_CONFIG"], "-g", "anvil", "-o", "json",
     "project-job", "list", "--project-id", str(project_id), "--scope", "failed,canceled"],
    capture_output=True, text=True, check=False,
)
seen["cli_jobs"] = sorted({j["status"] for j in json.loads(cli_jobs.stdout)}) if cli_jobs.returncode == 0 else cli_jobs.stderr
seen["cli_job"] = json.loads(cli_job.stdout)["status"] if cli_job.returncode == 0 else cli_job.stderr
cli_trace = subprocess.run(
    [sys.executable, "-m", "gitlab", "-c", os.environ["CLI_CONFIG"], "-g", "anvil",
     "project-job", "trace", "--project-id", str(project_id), "--id", str(seen["retried"]["new"])],
    capture_output=True, text=True, check=False,
)
seen["cli_trace"] = cli_trace.stdout if cli_trace.returncode == 0 else cli_trace.stderr

print(json.dumps(seen))
