import gitlab
import pytest


def test_alice_sees_the_seeded_project(gl):
    project = gl.projects.get("acme/demo")
    assert project.visibility == "private"
    assert project.files.raw("README.md", ref="main") == b"# demo"


def test_a_branch_is_created(gl):
    project = gl.projects.get("acme/demo")
    project.branches.create({"branch": "feature", "ref": "main"})
    assert sorted(b.name for b in project.branches.list()) == ["feature", "main"]


def test_after_the_reset_the_branch_is_gone(gl):
    assert [b.name for b in gl.projects.get("acme/demo").branches.list()] == ["main"]


def test_main_is_protected(gl):
    project = gl.projects.get("acme/demo")
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as err:
        project.files.create({"file_path": "x.txt", "branch": "main", "content": "x", "commit_message": "x"})
    assert err.value.response_code == 403


def test_root_sees_alice(admin):
    assert [u.username for u in admin.users.list(username="alice")] == ["alice"]


def test_a_fault_and_the_journal(anvil, gl):
    anvil.faults.add(method="GET", path="/api/v4/projects/*", status=503, times=1)
    with pytest.raises(gitlab.exceptions.GitlabGetError) as err:
        gl.projects.get("acme/demo")
    assert err.value.response_code == 503
    assert gl.projects.get("acme/demo").path == "demo"
    seen = anvil.requests(path="/api/v4/projects/*", user="alice")
    assert [e["status"] for e in seen] == [503, 200]
    assert anvil.request_count(status="5xx") == 1
