// go-gitlab (the reference's typed Go client, Debian's golang-github-xanzy-go-gitlab-dev) drives
// the CI a team uses every day: project, group and instance variables, pipeline schedules with
// their variables (take_ownership, play), trigger tokens and trigger/pipeline, protected tags,
// tags and CI lint (and a group's detail and projects), as different users. It prints one JSON
// object: what each call returned, or the HTTP status the client surfaced for a refused one.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/xanzy/go-gitlab"
)

var seen = map[string]interface{}{}

func client(token string) *gitlab.Client {
	c, err := gitlab.NewClient(token, gitlab.WithBaseURL(os.Getenv("ANVIL_URL")+"/api/v4"))
	if err != nil {
		fail("client", err)
	}
	return c
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
	os.Exit(1)
}

// must: the call succeeded, else the program stops with the client's error.
func must(what string, err error) {
	if err != nil {
		fail(what, err)
	}
}

// status: the HTTP status of a call expected to be refused (0 when it was not).
func status(what string, resp *gitlab.Response, err error) {
	if err == nil {
		fail(what, fmt.Errorf("expected a refusal, got success"))
	}
	if resp == nil {
		fail(what, err)
	}
	seen[what] = resp.StatusCode
}

func main() {
	pid, _ := strconv.Atoi(os.Getenv("PROJECT_ID"))
	gid, _ := strconv.Atoi(os.Getenv("GROUP_ID"))
	root := client(os.Getenv("ROOT_TOKEN"))
	maint := client(os.Getenv("MAINT_TOKEN"))
	maint2 := client(os.Getenv("MAINT2_TOKEN"))
	dev := client(os.Getenv("DEV_TOKEN"))
	stranger := client(os.Getenv("STRANGER_TOKEN"))
	anon := client("")

	// ---- project variables ----
	pv, _, err := maint.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.String("DEPLOY_KEY"), Value: gitlab.String("s3cr3t-value-1234"), Masked: gitlab.Bool(true),
		VariableType: gitlab.VariableType(gitlab.EnvVariableType),
	})
	must("create project variable", err)
	_, _, err = maint.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.String("DEPLOY_KEY"), Value: gitlab.String("production-value-99"), EnvironmentScope: gitlab.String("production"),
		VariableType: gitlab.VariableType(gitlab.FileVariableType), Protected: gitlab.Bool(true),
	})
	must("create scoped project variable", err)
	seen["project_variable_created"] = pv
	scoped, _, err := maint.ProjectVariables.GetVariable(pid, "DEPLOY_KEY", &gitlab.GetProjectVariableOptions{Filter: &gitlab.VariableFilter{EnvironmentScope: "production"}})
	must("get scoped project variable", err)
	seen["project_variable_scoped"] = scoped
	list, _, err := maint.ProjectVariables.ListVariables(pid, nil)
	must("list project variables", err)
	seen["project_variables_count"] = len(list)
	upd, _, err := maint.ProjectVariables.UpdateVariable(pid, "DEPLOY_KEY", &gitlab.UpdateProjectVariableOptions{
		Value: gitlab.String("n3w-secret-value-5678"), Filter: &gitlab.VariableFilter{EnvironmentScope: "*"},
	})
	must("update project variable", err)
	seen["project_variable_updated"] = upd
	_, resp, err := maint.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{Key: gitlab.String("bad key"), Value: gitlab.String("x")})
	status("project_variable_bad_key", resp, err)
	_, resp, err = maint.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{Key: gitlab.String("SHORT"), Value: gitlab.String("abc"), Masked: gitlab.Bool(true)})
	status("project_variable_unmaskable", resp, err)
	_, resp, err = dev.ProjectVariables.ListVariables(pid, nil)
	status("project_variables_developer", resp, err)
	_, resp, err = stranger.ProjectVariables.ListVariables(pid, nil)
	status("project_variables_stranger", resp, err)
	_, resp, err = anon.ProjectVariables.ListVariables(pid, nil)
	status("project_variables_anonymous", resp, err)
	_, resp, err = maint.ProjectVariables.GetVariable(pid, "NOPE", nil)
	status("project_variable_missing", resp, err)
	_, err = maint.ProjectVariables.RemoveVariable(pid, "DEPLOY_KEY", &gitlab.RemoveProjectVariableOptions{Filter: &gitlab.VariableFilter{EnvironmentScope: "production"}})
	must("remove scoped project variable", err)

	// ---- group variables (group owners) ----
	gv, _, err := root.GroupVariables.CreateVariable(gid, &gitlab.CreateGroupVariableOptions{Key: gitlab.String("GROUP_TOKEN"), Value: gitlab.String("group-secret-value"), Protected: gitlab.Bool(true)})
	must("create group variable", err)
	seen["group_variable_created"] = gv
	gget, _, err := root.GroupVariables.GetVariable(gid, "GROUP_TOKEN")
	must("get group variable", err)
	seen["group_variable_get"] = gget
	gupd, _, err := root.GroupVariables.UpdateVariable(gid, "GROUP_TOKEN", &gitlab.UpdateGroupVariableOptions{Value: gitlab.String("changed-group-value"), Protected: gitlab.Bool(false)})
	must("update group variable", err)
	seen["group_variable_updated"] = gupd
	glist, _, err := root.GroupVariables.ListVariables(gid, nil)
	must("list group variables", err)
	seen["group_variables_count"] = len(glist)
	_, resp, err = maint.GroupVariables.ListVariables(gid, nil)
	status("group_variables_maintainer", resp, err)
	_, resp, err = root.GroupVariables.CreateVariable(gid, &gitlab.CreateGroupVariableOptions{Key: gitlab.String("GROUP_TOKEN"), Value: gitlab.String("again")})
	status("group_variable_taken", resp, err)
	_, err = root.GroupVariables.RemoveVariable(gid, "GROUP_TOKEN")
	must("remove group variable", err)
	_, resp, err = root.GroupVariables.GetVariable(gid, "GROUP_TOKEN")
	status("group_variable_removed", resp, err)

	// ---- the group's detail and project list, as Project values ----
	grp, _, err := maint.Groups.GetGroup(gid, nil)
	must("get group", err)
	detailIDs := []int{}
	for _, p := range grp.Projects {
		detailIDs = append(detailIDs, p.ID)
	}
	seen["group_detail_projects"] = detailIDs
	seen["group_detail_shared_projects"] = len(grp.SharedProjects)
	listed, _, err := maint.Groups.ListGroupProjects(gid, &gitlab.ListGroupProjectsOptions{WithShared: gitlab.Bool(false)})
	must("list group projects", err)
	listedIDs := []int{}
	for _, p := range listed {
		listedIDs = append(listedIDs, p.ID)
	}
	seen["group_projects"] = listedIDs

	// ---- instance variables (administrators) ----
	iv, _, err := root.InstanceVariables.CreateVariable(&gitlab.CreateInstanceVariableOptions{Key: gitlab.String("INSTANCE_NAME"), Value: gitlab.String("anvil-ci"), VariableType: gitlab.VariableType(gitlab.FileVariableType)})
	must("create instance variable", err)
	seen["instance_variable_created"] = iv
	iupd, _, err := root.InstanceVariables.UpdateVariable("INSTANCE_NAME", &gitlab.UpdateInstanceVariableOptions{Value: gitlab.String("anvil-ci-2")})
	must("update instance variable", err)
	seen["instance_variable_updated"] = iupd
	iget, _, err := root.InstanceVariables.GetVariable("INSTANCE_NAME")
	must("get instance variable", err)
	seen["instance_variable_get"] = iget
	ilist, _, err := root.InstanceVariables.ListVariables(nil)
	must("list instance variables", err)
	seen["instance_variables_count"] = len(ilist)
	_, resp, err = maint.InstanceVariables.ListVariables(nil)
	status("instance_variables_non_admin", resp, err)
	_, err = root.InstanceVariables.RemoveVariable("INSTANCE_NAME")
	must("remove instance variable", err)

	// ---- trigger tokens and trigger/pipeline ----
	tr, _, err := maint.PipelineTriggers.AddPipelineTrigger(pid, &gitlab.AddPipelineTriggerOptions{Description: gitlab.String("deploy hook")})
	must("add trigger", err)
	seen["trigger_created"] = map[string]interface{}{"description": tr.Description, "owner": tr.Owner.Username, "token_length": len(tr.Token)}
	other, _, err := maint2.PipelineTriggers.GetPipelineTrigger(pid, tr.ID)
	must("get trigger as another maintainer", err)
	seen["trigger_token_for_other"] = other.Token
	seen["trigger_token_prefix"] = tr.Token[:len(other.Token)]
	trs, _, err := maint.PipelineTriggers.ListPipelineTriggers(pid, nil)
	must("list triggers", err)
	seen["triggers_count"] = len(trs)
	etr, _, err := maint.PipelineTriggers.EditPipelineTrigger(pid, tr.ID, &gitlab.EditPipelineTriggerOptions{Description: gitlab.String("renamed")})
	must("edit trigger", err)
	seen["trigger_edited"] = etr.Description
	pl, _, err := anon.PipelineTriggers.RunPipelineTrigger(pid, &gitlab.RunPipelineTriggerOptions{Ref: gitlab.String("main"), Token: gitlab.String(tr.Token), Variables: map[string]string{"FROM": "go"}})
	must("run trigger", err)
	seen["triggered_pipeline"] = map[string]interface{}{"source": pl.Source, "ref": pl.Ref, "user": pl.User.Username}
	_, resp, err = anon.PipelineTriggers.RunPipelineTrigger(pid, &gitlab.RunPipelineTriggerOptions{Ref: gitlab.String("main"), Token: gitlab.String("anvptt-not-a-token")})
	status("trigger_bad_token", resp, err)
	_, resp, err = anon.PipelineTriggers.RunPipelineTrigger(pid, &gitlab.RunPipelineTriggerOptions{Ref: gitlab.String("no-such-branch"), Token: gitlab.String(tr.Token)})
	status("trigger_bad_ref", resp, err)
	_, resp, err = dev.PipelineTriggers.ListPipelineTriggers(pid, nil)
	status("triggers_developer", resp, err)
	_, err = maint.PipelineTriggers.DeletePipelineTrigger(pid, tr.ID)
	must("delete trigger", err)

	// ---- pipeline schedules with variables ----
	sc, _, err := maint.PipelineSchedules.CreatePipelineSchedule(pid, &gitlab.CreatePipelineScheduleOptions{
		Description: gitlab.String("nightly"), Ref: gitlab.String("main"), Cron: gitlab.String("30 2 * * *"), CronTimezone: gitlab.String("Europe/Berlin"),
	})
	must("create schedule", err)
	seen["schedule_created"] = map[string]interface{}{"description": sc.Description, "cron": sc.Cron, "cron_timezone": sc.CronTimezone, "active": sc.Active, "owner": sc.Owner.Username, "has_next_run": sc.NextRunAt != nil}
	sv, _, err := maint.PipelineSchedules.CreatePipelineScheduleVariable(pid, sc.ID, &gitlab.CreatePipelineScheduleVariableOptions{Key: gitlab.String("NIGHTLY"), Value: gitlab.String("1")})
	must("create schedule variable", err)
	seen["schedule_variable"] = sv
	esv, _, err := maint.PipelineSchedules.EditPipelineScheduleVariable(pid, sc.ID, "NIGHTLY", &gitlab.EditPipelineScheduleVariableOptions{Value: gitlab.String("2")})
	must("edit schedule variable", err)
	seen["schedule_variable_edited"] = esv.Value
	esc, _, err := maint.PipelineSchedules.EditPipelineSchedule(pid, sc.ID, &gitlab.EditPipelineScheduleOptions{Cron: gitlab.String("0 3 * * 1"), Active: gitlab.Bool(false)})
	must("edit schedule", err)
	seen["schedule_edited"] = map[string]interface{}{"cron": esc.Cron, "active": esc.Active}
	gsc, _, err := maint.PipelineSchedules.GetPipelineSchedule(pid, sc.ID)
	must("get schedule", err)
	seen["schedule_get_variables"] = gsc.Variables
	own, _, err := maint2.PipelineSchedules.TakeOwnershipOfPipelineSchedule(pid, sc.ID)
	must("take ownership", err)
	seen["schedule_new_owner"] = own.Owner.Username
	resp, err = maint2.PipelineSchedules.RunPipelineSchedule(pid, sc.ID)
	must("play schedule", err)
	seen["schedule_play_status"] = resp.StatusCode
	scs, _, err := maint.PipelineSchedules.ListPipelineSchedules(pid, nil)
	must("list schedules", err)
	seen["schedules_count"] = len(scs)
	_, resp, err = maint.PipelineSchedules.CreatePipelineSchedule(pid, &gitlab.CreatePipelineScheduleOptions{Description: gitlab.String("bad"), Ref: gitlab.String("main"), Cron: gitlab.String("not a cron")})
	status("schedule_bad_cron", resp, err)
	_, resp, err = dev.PipelineSchedules.TakeOwnershipOfPipelineSchedule(pid, sc.ID)
	status("schedule_take_ownership_developer", resp, err)
	_, resp, err = stranger.PipelineSchedules.ListPipelineSchedules(pid, nil)
	status("schedules_stranger", resp, err)
	_, resp, err = anon.PipelineSchedules.ListPipelineSchedules(pid, nil)
	status("schedules_anonymous", resp, err)
	_, _, err = maint2.PipelineSchedules.DeletePipelineScheduleVariable(pid, sc.ID, "NIGHTLY")
	must("delete schedule variable", err)
	_, err = maint2.PipelineSchedules.DeletePipelineSchedule(pid, sc.ID)
	must("delete schedule", err)
	_, resp, err = maint.PipelineSchedules.GetPipelineSchedule(pid, sc.ID)
	status("schedule_deleted", resp, err)

	// ---- protected tags and tags ----
	pt, _, err := maint.ProtectedTags.ProtectRepositoryTags(pid, &gitlab.ProtectRepositoryTagsOptions{Name: gitlab.String("v*"), CreateAccessLevel: gitlab.AccessLevel(gitlab.MaintainerPermissions)})
	must("protect tags", err)
	seen["protected_tag"] = pt
	gpt, _, err := maint.ProtectedTags.GetProtectedTag(pid, "v*")
	must("get protected tag", err)
	seen["protected_tag_get"] = gpt.Name
	_, resp, err = maint.ProtectedTags.ProtectRepositoryTags(pid, &gitlab.ProtectRepositoryTagsOptions{Name: gitlab.String("v*")})
	status("protected_tag_taken", resp, err)
	_, resp, err = dev.ProtectedTags.ProtectRepositoryTags(pid, &gitlab.ProtectRepositoryTagsOptions{Name: gitlab.String("r*")})
	status("protected_tag_developer", resp, err)
	_, resp, err = dev.Tags.CreateTag(pid, &gitlab.CreateTagOptions{TagName: gitlab.String("v1.0"), Ref: gitlab.String("main")})
	status("tag_protected_developer", resp, err)
	tag, _, err := maint.Tags.CreateTag(pid, &gitlab.CreateTagOptions{TagName: gitlab.String("v1.0"), Ref: gitlab.String("main"), Message: gitlab.String("first release")})
	must("create tag", err)
	seen["tag_created"] = map[string]interface{}{"name": tag.Name, "message": tag.Message, "protected": tag.Protected, "has_commit": tag.Commit != nil}
	dtag, _, err := dev.Tags.CreateTag(pid, &gitlab.CreateTagOptions{TagName: gitlab.String("dev-1"), Ref: gitlab.String("main")})
	must("developer creates an unprotected tag", err)
	seen["tag_unprotected"] = map[string]interface{}{"name": dtag.Name, "protected": dtag.Protected}
	gtag, _, err := dev.Tags.GetTag(pid, "v1.0")
	must("get tag", err)
	seen["tag_get"] = gtag.Name
	tags, _, err := dev.Tags.ListTags(pid, nil)
	must("list tags", err)
	seen["tags_count"] = len(tags)
	_, resp, err = maint.Tags.CreateTag(pid, &gitlab.CreateTagOptions{TagName: gitlab.String("v1.0"), Ref: gitlab.String("main")})
	status("tag_taken", resp, err)
	_, resp, err = dev.Tags.GetTag(pid, "nope")
	status("tag_missing", resp, err)
	resp, err = dev.Tags.DeleteTag(pid, "v1.0")
	status("tag_delete_protected_developer", resp, err)
	_, err = maint.Tags.DeleteTag(pid, "v1.0")
	must("delete tag", err)
	_, err = maint.ProtectedTags.UnprotectRepositoryTags(pid, "v*")
	must("unprotect tags", err)
	_, resp, err = maint.ProtectedTags.GetProtectedTag(pid, "v*")
	status("protected_tag_removed", resp, err)

	// ---- CI lint ----
	good, _, err := dev.Validate.ProjectNamespaceLint(pid, &gitlab.ProjectNamespaceLintOptions{Content: gitlab.String("job:\n  script: echo hi\n")})
	must("lint content", err)
	seen["lint_valid"] = good
	bad, _, err := dev.Validate.ProjectNamespaceLint(pid, &gitlab.ProjectNamespaceLintOptions{Content: gitlab.String("job:\n  script: echo hi\n  stage: nowhere\n")})
	must("lint invalid content", err)
	seen["lint_invalid"] = bad
	file, _, err := dev.Validate.ProjectLint(pid, &gitlab.ProjectLintOptions{DryRun: gitlab.Bool(true)})
	must("lint project file", err)
	seen["lint_project_file"] = map[string]interface{}{"valid": file.Valid, "errors": file.Errors}
	_, resp, err = stranger.Validate.ProjectNamespaceLint(pid, &gitlab.ProjectNamespaceLintOptions{Content: gitlab.String("job:\n  script: x\n")})
	status("lint_stranger", resp, err)
	_, resp, err = anon.Validate.ProjectNamespaceLint(pid, &gitlab.ProjectNamespaceLintOptions{Content: gitlab.String("job:\n  script: x\n")})
	status("lint_anonymous", resp, err)
	_, resp, err = dev.Validate.ProjectNamespaceLint(pid, &gitlab.ProjectNamespaceLintOptions{})
	status("lint_no_content", resp, err)

	out, _ := json.Marshal(seen)
	fmt.Println(string(out))
	_ = http.StatusOK
}
