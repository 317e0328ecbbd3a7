"""Drives labels, milestones and issues with python-gitlab as a user would. Prints one JSON line with what it saw."""
import json
import os

import gitlab

url, token, suffix = os.environ["ANVIL_URL"], os.environ["ANVIL_TOKEN"], os.environ["SUFFIX"]
gl = gitlab.Gitlab(url, private_token=token)
gl.auth()

group = gl.groups.create({"name": f"Py Issues {suffix}", "path": f"py-issues-{suffix}"})
project = gl.projects.create({"name": "tracker", "namespace_id": group.id})

bug = project.labels.create({"name": "bug", "color": "#d9534f", "priority": 2})
bug.description = "Broken things"
bug.save()
bug_seen = {"description": bug.description, "priority": bug.priority, "is_project_label": bug.is_project_label}
bug.subscribe()
subscribed = bug.subscribed
bug.unsubscribe()
glabel = group.labels.create({"name": "team", "color": "red"})
labels = sorted(l.name for l in project.labels.list(get_all=True))

ms = project.milestones.create({"title": "v1.0", "due_date": "2999-01-01"})
ms.state_event = "close"
ms.save()
closed_state = project.milestones.get(ms.id).state
ms.state_event = "activate"
ms.save()
gms = group.milestones.create({"title": "Q3"})

issue = project.issues.create({"title": "It breaks", "description": "Steps", "labels": ["bug", "team"], "milestone_id": ms.id})
second = project.issues.create({"title": "Idea", "confidential": True})
issue.labels = ["bug"]
issue.save()
issue.state_event = "close"
issue.save()
fetched = project.issues.get(issue.iid)
issue.time_estimate("3h30m")
issue.add_spent_time("1h")
stats = project.issues.get(issue.iid).time_stats()
link_src, link_tgt = issue.links.create({"target_project_id": project.id, "target_issue_iid": second.iid})
links = [l.iid for l in issue.links.list()]
by_label = [i.iid for i in project.issues.list(labels=["bug"], state="all", get_all=True)]
no_label = [i.iid for i in project.issues.list(labels="None", get_all=True)]
milestone_issues = [i.iid for i in ms.issues()]
statistics = project.issues_statistics.get()
participants = [u["username"] for u in issue.participants()]
second.delete()
remaining = [i.iid for i in project.issues.list(state="all", get_all=True)]

print(json.dumps({
    "labels": labels,
    "bug": bug_seen,
    "subscribed": subscribed,
    "group_label_color": glabel.color,
    "closed_state": closed_state,
    "group_milestone_iid": gms.iid,
    "issue": {"iid": fetched.iid, "state": fetched.state, "labels": fetched.labels, "milestone": fetched.milestone["title"], "author": fetched.author["username"]},
    "stats": {"time_estimate": stats["time_estimate"], "total_time_spent": stats["total_time_spent"], "human_time_estimate": stats["human_time_estimate"]},
    "link": [link_src.iid, link_tgt.iid],
    "links": links,
    "by_label": by_label,
    "no_label": no_label,
    "milestone_issues": milestone_issues,
    "statistics": statistics.statistics["counts"],
    "participants": participants,
    "remaining": remaining,
}))
