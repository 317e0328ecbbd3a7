"""Drives the CI a team uses every day with python-gitlab, as its users would: project, group and
instance variables, pipeline schedules with variables (take_ownership, play), trigger tokens and
trigger_pipeline, protected tags, tags and CI lint, as different users.
Reads ANVIL_URL, PROJECT_ID, GROUP_ID and the users' tokens; prints one JSON line with what it saw
(for a refused call: the HTTP status python-gitlab surfaced)."""
import json
import os

import gitlab

url = os.environ["ANVIL_URL"]
pid, gid = int(os.environ["PROJECT_ID"]), int(os.environ["GROUP_ID"])


def client(token):
    return gitlab.Gitlab(url, private_token=token) if token else gitlab.Gitlab(url)


root, maint, maint2, dev, stranger, anon = (
    client(os.environ[k]) if k else client(None)
    for k in ("ROOT_TOKEN", "MAINT_TOKEN", "MAINT2_TOKEN", "DEV_TOKEN", "STRANGER_TOKEN", None)
)
seen = {}


def refused(name, call):
    try:
        call()
    except gitlab.exceptions.GitlabError as e:
        seen[name] = e.response_code
        return
    raise SystemExit(f"{name}: expected a refusal")


project = maint.projects.get(pid, lazy=True)

# ---- project variables ----
v = project.variables.create({"key": "PY_SECRET", "value": "py-secret-value-42", "masked": True, "variable_type": "file"})
seen["project_variable_created"] = v.attributes
project.variables.create({"key": "PY_SECRET", "value": "staging-value-42", "environment_scope": "staging"})
got = project.variables.get("PY_SECRET", filter={"environment_scope": "staging"})
seen["project_variable_scoped"] = got.value
v = project.variables.get("PY_SECRET", filter={"environment_scope": "*"})
v.value = "py-changed-value-43"
v.save(filter={"environment_scope": "*"})
seen["project_variable_updated"] = project.variables.get("PY_SECRET", filter={"environment_scope": "*"}).value
seen["project_variables_count"] = len(project.variables.list(get_all=True))
refused("project_variable_bad_key", lambda: project.variables.create({"key": "no-dashes", "value": "x"}))
refused("project_variable_blank_key", lambda: project.variables.create({"key": "", "value": "x"}))
refused("project_variables_developer", lambda: dev.projects.get(pid, lazy=True).variables.list())
refused("project_variables_stranger", lambda: stranger.projects.get(pid, lazy=True).variables.list())
refused("project_variables_anonymous", lambda: anon.projects.get(pid, lazy=True).variables.list())
project.variables.delete("PY_SECRET", filter={"environment_scope": "staging"})
refused("project_variable_deleted", lambda: project.variables.get("PY_SECRET", filter={"environment_scope": "staging"}))

# ---- group variables (owners) and instance variables (administrators) ----
group = root.groups.get(gid, lazy=True)
gv = group.variables.create({"key": "PY_GROUP", "value": "group-value-1", "protected": True})
seen["group_variable_created"] = gv.attributes
gv.value = "group-value-2"
gv.save()
seen["group_variable_updated"] = group.variables.get("PY_GROUP").value
refused("group_variables_maintainer", lambda: maint.groups.get(gid, lazy=True).variables.list())
group.variables.delete("PY_GROUP")
iv = root.variables.create({"key": "PY_INSTANCE", "value": "instance-1"})
seen["instance_variable_created"] = iv.attributes
iv.value = "instance-2"
iv.save()
seen["instance_variable_updated"] = root.variables.get("PY_INSTANCE").value
refused("instance_variables_non_admin", lambda: maint.variables.list())
refused("instance_variable_bad_type", lambda: root.variables.create({"key": "PY_BAD", "value": "x", "variable_type": "nope"}))
root.variables.delete("PY_INSTANCE")

# ---- trigger tokens and trigger_pipeline ----
trigger = project.triggers.create({"description": "py hook"})
seen["trigger_created"] = {"description": trigger.description, "owner": trigger.owner["username"]}
seen["trigger_token_for_other"] = maint2.projects.get(pid, lazy=True).triggers.get(trigger.id).token
seen["trigger_token_full"] = trigger.token
pipeline = anon.projects.get(pid, lazy=True).trigger_pipeline("main", trigger.token, variables={"FROM": "python"})
seen["triggered_pipeline"] = {"source": pipeline.source, "ref": pipeline.ref}
refused("trigger_bad_token", lambda: anon.projects.get(pid, lazy=True).trigger_pipeline("main", "anvptt-wrong"))
refused("triggers_developer", lambda: dev.projects.get(pid, lazy=True).triggers.list())
trigger.delete()

# ---- pipeline schedules with variables ----
schedule = project.pipelineschedules.create({"description": "py nightly", "ref": "main", "cron": "0 4 * * *", "cron_timezone": "UTC"})
seen["schedule_created"] = {"cron": schedule.cron, "owner": schedule.owner["username"], "active": schedule.active}
schedule.variables.create({"key": "PY_NIGHTLY", "value": "yes"})
schedule = project.pipelineschedules.get(schedule.id)
seen["schedule_variables"] = schedule.attributes["variables"]
other = maint2.projects.get(pid, lazy=True).pipelineschedules.get(schedule.id)
other.take_ownership()
seen["schedule_new_owner"] = other.owner["username"]
schedule_id = other.id
# The run is queued; python-gitlab then holds the play answer as the object's attributes.
seen["schedule_play"] = other.play()
seen["schedule_pipelines"] = maint2.http_list(f"/projects/{pid}/pipeline_schedules/{schedule_id}/pipelines")
schedule.description = "py renamed"
refused("schedule_save_not_owner", lambda: schedule.save())
refused("schedule_bad_cron", lambda: project.pipelineschedules.create({"description": "x", "ref": "main", "cron": "61 * * * *"}))
refused("schedules_stranger", lambda: stranger.projects.get(pid, lazy=True).pipelineschedules.list())
maint2.projects.get(pid, lazy=True).pipelineschedules.delete(schedule_id)

# ---- protected tags and tags ----
project.protectedtags.create({"name": "rel-*", "create_access_level": 40})
seen["protected_tag"] = project.protectedtags.get("rel-*").attributes["create_access_levels"][0]["access_level"]
refused("protected_tag_developer", lambda: dev.projects.get(pid, lazy=True).protectedtags.create({"name": "x-*"}))
refused("tag_protected_developer", lambda: dev.projects.get(pid, lazy=True).tags.create({"tag_name": "rel-1", "ref": "main"}))
tag = project.tags.create({"tag_name": "rel-1", "ref": "main"})
seen["tag_created"] = {"name": tag.name, "protected": tag.protected}
refused("tag_bad_ref", lambda: project.tags.create({"tag_name": "rel-2", "ref": "nowhere"}))
refused("tag_delete_protected_developer", lambda: dev.projects.get(pid, lazy=True).tags.delete("rel-1"))
project.tags.delete("rel-1")
project.protectedtags.delete("rel-*")

# ---- CI lint ----
lint = dev.projects.get(pid, lazy=True).ci_lint
ok = lint.create({"content": "job:\n  script: echo hi\n", "include_jobs": True})
seen["lint_valid"] = {"valid": ok.valid, "jobs": [j["name"] for j in ok.jobs]}
bad = lint.create({"content": "job: [", "dry_run": True})
seen["lint_invalid"] = {"valid": bad.valid, "errors": bad.errors}
seen["lint_project_file"] = lint.get().valid
try:
    lint.validate({"content": "job:\n  script: x\n  bogus: 1\n"})
    seen["lint_validate_raised"] = False
except gitlab.exceptions.GitlabCiLintError:
    seen["lint_validate_raised"] = True
refused("lint_stranger", lambda: stranger.projects.get(pid, lazy=True).ci_lint.create({"content": "a:\n  script: x\n"}))
refused("lint_anonymous", lambda: anon.projects.get(pid, lazy=True).ci_lint.create({"content": "a:\n  script: x\n"}))

print(json.dumps(seen))
