"""pytest fixtures: one Anvil per test session, seeded from ../seed.yml, reset before each test.

The server is `npx anvil serve --ephemeral` (the anvil package installed with npm); set
ANVIL_COMMAND to run another build of it (the path of its `anvil` command).
"""
import json
import os
import shlex
import subprocess
import urllib.request
from pathlib import Path

import gitlab
import pytest

SEED = Path(__file__).resolve().parent.parent / "seed.yml"
ALICE = "alice-test-token-0000000001"


@pytest.fixture(scope="session")
def anvil():
    command = shlex.split(os.environ.get("ANVIL_COMMAND", "npx anvil"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANVIL_")}
    proc = subprocess.Popen(
        [*command, "serve", "--ephemeral", "--seed", str(SEED)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )
    line = proc.stdout.readline()  # the one JSON line, once it is ready
    if not line:
        raise RuntimeError(f"anvil exited with {proc.wait()} before it was ready")
    server = json.loads(line)
    yield server
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(autouse=True)
def reset(anvil):
    """Every test starts from the seeded state."""
    req = urllib.request.Request(
        f"{anvil['url']}/-/test/reset", method="POST", headers={"PRIVATE-TOKEN": anvil["token"]}
    )
    with urllib.request.urlopen(req) as res:
        assert res.status == 204


@pytest.fixture
def gl(anvil):
    """python-gitlab as alice."""
    return gitlab.Gitlab(anvil["url"], private_token=ALICE)


@pytest.fixture
def admin(anvil):
    """python-gitlab as root."""
    return gitlab.Gitlab(anvil["url"], private_token=anvil["token"])
