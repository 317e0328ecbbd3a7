"""pytest with the anvil plugin: one Anvil per test session, seeded from ../seed.yml (pytest.ini),
reset before each test that uses it.

The plugin ships in the npm package (node_modules/anvil/dist/python); here it is the package's
own copy. The server is `npx anvil serve --ephemeral`; set ANVIL_COMMAND (or --anvil-command) to
run another build of it.
"""
import pathlib
import sys

import pytest

# In your project: pathlib.Path(__file__).parent / "node_modules/anvil/dist/python"
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent.parent / "dist" / "python"))
pytest_plugins = ["anvil_pytest"]

ALICE = "alice-test-token-0000000001"


@pytest.fixture
def gl(anvil):
    """python-gitlab as alice (the plugin's own `gl` is root)."""
    return anvil.gitlab(ALICE)


@pytest.fixture
def admin(anvil):
    """python-gitlab as root."""
    return anvil.gitlab()
