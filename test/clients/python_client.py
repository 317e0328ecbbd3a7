"""Drives Anvil with python-gitlab exactly as a user would. Prints one JSON line with what it saw."""
import json
import os
import sys

import gitlab

url, token, suffix = os.environ["ANVIL_URL"], os.environ["ANVIL_TOKEN"], os.environ["SUFFIX"]
gl = gitlab.Gitlab(url, private_token=token, per_page=2)
gl.auth()
me = gl.user.username

user = gl.users.create({
    "email": f"py{suffix}@example.com", "username": f"py{suffix}", "name": f"Py {suffix}",
    "password": "s3cret-password", "skip_confirmation": True,
})
pat = user.personal_access_tokens.create({"name": "py token", "scopes": ["api"]})
as_user = gitlab.Gitlab(url, private_token=pat.token)
as_user.auth()

group = gl.groups.create({"name": f"Py Group {suffix}", "path": f"py-group-{suffix}"})
# a project of the group and one shared with it: the group's detail and its project list show both
gl.projects.create({"name": "inside", "namespace_id": group.id})
outside = gl.projects.create({"name": f"outside-{suffix}"})
outside.share(group.id, 30)
detail = gl.groups.get(group.id)
group_projects = detail.projects.list(get_all=True)
own_projects = detail.projects.list(get_all=True, with_shared=False)

users = gl.users.list(get_all=True)
groups = gl.groups.list(get_all=True)
print(json.dumps({
    "me": me,
    "created_user": user.username,
    "token_user": as_user.user.username,
    "group_path": group.full_path,
    "user_count": len(users),
    "user_ids_unique": len({u.id for u in users}) == len(users),
    "group_paths": sorted(g.full_path for g in groups),
    # the detail's `projects` attribute is a manager in python-gitlab: the answer's lists are in attributes
    "detail_projects": [p["path"] for p in detail.attributes["projects"]],
    "detail_shared_projects": [p["path"] for p in detail.attributes["shared_projects"]],
    "group_projects": sorted(p.path for p in group_projects),
    "own_projects": [p.path for p in own_projects],
}))
