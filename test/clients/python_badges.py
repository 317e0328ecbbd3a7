"""Drives project and group badges with python-gitlab as a user would (it has no vulnerabilities API).
Prints one JSON line with what it saw."""
import json
import os

import gitlab

url, token, suffix = os.environ["ANVIL_URL"], os.environ["ANVIL_TOKEN"], os.environ["SUFFIX"]
gl = gitlab.Gitlab(url, private_token=token)
gl.auth()

group = gl.groups.create({"name": f"Py Badges {suffix}", "path": f"py-badges-{suffix}"})
project = gl.projects.create({"name": "widget", "namespace_id": group.id})

gbadge = group.badges.create({"link_url": "https://g.example/%{project_path}", "image_url": "https://g.example/i.svg", "name": "group badge"})
pbadge = project.badges.create({"link_url": "https://p.example/%{project_id}", "image_url": "https://p.example/%{default_branch}.svg"})
pbadge.name = "renamed"
pbadge.save()
fetched = project.badges.get(pbadge.id)
rendered = project.badges.render("https://r.example/%{project_path}", "https://r.example/i.svg")
listed = project.badges.list(get_all=True)
group_listed = group.badges.list(get_all=True)
pbadge.delete()
after_delete = project.badges.list(get_all=True)
gbadge.delete()

print(json.dumps({
    "project_id": project.id,
    "project_path": project.path_with_namespace,
    "group_badge_kind": gbadge.kind,
    "project_badge": {"kind": fetched.kind, "name": fetched.name, "rendered_link_url": fetched.rendered_link_url, "rendered_image_url": fetched.rendered_image_url},
    "rendered": rendered,
    "listed": [[b.name, b.kind] for b in listed],
    "group_listed": [b.name for b in group_listed],
    "after_delete": [b.name for b in after_delete],
}))
