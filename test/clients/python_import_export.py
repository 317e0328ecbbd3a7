"""Drives export, download, import and import status with python-gitlab, as a user would. Prints one JSON line."""
import json
import os
import time

import gitlab

url, token, project_id, suffix = os.environ["ANVIL_URL"], os.environ["ANVIL_TOKEN"], int(os.environ["PROJECT_ID"]), os.environ["SUFFIX"]
gl = gitlab.Gitlab(url, private_token=token)
project = gl.projects.get(project_id)

export = project.exports.create({"description": "from python"})
statuses = [export.export_status] if hasattr(export, "export_status") else []
export = project.exports.get()
deadline = time.time() + 60
while export.export_status != "finished" and time.time() < deadline:
    time.sleep(0.2)
    export.refresh()
statuses.append(export.export_status)
data = export.download()

output = gl.projects.import_project(data, path=f"py-import-{suffix}", name=f"Py import {suffix}", override_params={"description": "overridden"})
imported = gl.projects.get(output["id"])
status = imported.imports.get()
deadline = time.time() + 60
while status.import_status not in ("finished", "failed") and time.time() < deadline:
    time.sleep(0.2)
    status.refresh()
imported = gl.projects.get(output["id"])
print(json.dumps({
    "export_statuses": statuses,
    "links": sorted(export._links.keys()),
    "archive_starts_gzip": data[:2] == b"\x1f\x8b",
    "first_import_status": output["import_status"],
    "import_status": status.import_status,
    "import_error": status.import_error,
    "failed_relations": status.failed_relations,
    "path": imported.path,
    "description": imported.description,
    "branches": sorted(b.name for b in imported.branches.list(get_all=True)),
}))
