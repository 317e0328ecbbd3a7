"""pytest plugin for Anvil: one ephemeral server per test session, reset before each test.

Load it from the npm package (`npm install anvil`), in the conftest.py at your suite's root:

    import sys, pathlib
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "node_modules/anvil/dist/python"))
    pytest_plugins = ["anvil_pytest"]

Options (command line, or the ini file without the leading dashes and with _):
  --anvil-seed FILE      the seed file (YAML or JSON), applied before the server is ready
  --anvil-command CMD    how to run anvil (default: ANVIL_COMMAND, else `npx anvil`)
  --anvil-clock          let tests move the clock
  --anvil-no-reset       do not reset before each test

Fixtures:
  anvil      the server (session): url, token, pid, data_dir, reset(), snapshot(), restore(),
             deliveries(), seed(), clock, requests(), request_count(), faults, inbox_faults,
             gitlab(token=None)
  gl         a python-gitlab client as root
Nothing but the standard library is needed, and python-gitlab for `gl` / `anvil.gitlab()`.
"""
import json
import os
import shlex
import signal
import subprocess
import urllib.parse
import urllib.request

import pytest


class AnvilError(Exception):
    pass


class _Rules:
    """Fault and latency rules at `base` (/-/test/faults or /-/test/inbox/faults)."""

    def __init__(self, anvil, base):
        self._anvil, self._base = anvil, base

    def add(self, **rule):
        return self._anvil.call("POST", self._base, rule)

    def list(self):
        return self._anvil.call("GET", self._base)

    def clear(self):
        self._anvil.call("DELETE", self._base)


class _Clock:
    def __init__(self, anvil):
        self._anvil = anvil

    def _move(self, **body):
        return self._anvil.call("POST", "/-/test/clock", body)["now"]

    def now(self):
        return self._anvil.call("GET", "/-/test/clock")["now"]

    def advance(self, duration):
        return self._move(advance=duration)

    def set(self, at):
        return self._move(set=at)

    def freeze(self, at=None):
        return self._move(freeze=True, **({} if at is None else {"set": at}))

    def unfreeze(self):
        return self._move(freeze=False)

    def real(self):
        return self._move(real=True)


class Anvil:
    """A running ephemeral server: its ready line and the test endpoints."""

    def __init__(self, ready, proc=None):
        self.url, self.token, self.pid, self.data_dir = ready["url"], ready["token"], ready["pid"], ready["data_dir"]
        self._proc = proc
        self.clock = _Clock(self)
        self.faults = _Rules(self, "/-/test/faults")
        self.inbox_faults = _Rules(self, "/-/test/inbox/faults")

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"PRIVATE-TOKEN": self.token}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req) as res:
                text = res.read().decode()
        except urllib.error.HTTPError as e:
            raise AnvilError(f"{method} {path} answered {e.code}: {e.read().decode()}") from None
        return json.loads(text) if text else None

    def reset(self):
        self.call("POST", "/-/test/reset")

    def snapshot(self, name):
        self.call("POST", "/-/test/snapshots", {"name": name})

    def restore(self, name):
        self.call("POST", f"/-/test/snapshots/{urllib.parse.quote(name, safe='')}/restore")

    def seed(self, seed):
        self.call("POST", "/-/test/seed", {"seed": seed})

    def deliveries(self, since=None, wait=None):
        q = {k: v for k, v in (("since", since), ("wait", wait)) if v is not None}
        return self.call("GET", "/-/test/deliveries" + (f"?{urllib.parse.urlencode(q)}" if q else ""))

    def requests(self, **filters):
        """The journal: method=, path= (a pattern: * within a segment, ** across), user=, status= (404, '4xx', 'none'), since=."""
        return self.call("GET", "/-/test/requests" + (f"?{urllib.parse.urlencode(filters)}" if filters else ""))

    def request_count(self, **filters):
        return self.call("GET", "/-/test/requests/count" + (f"?{urllib.parse.urlencode(filters)}" if filters else ""))["count"]

    def gitlab(self, token=None):
        """A python-gitlab client of this server, as root unless another token is given."""
        import gitlab

        return gitlab.Gitlab(self.url, private_token=token or self.token)

    def stop(self):
        """Stops the server itself (npx passes no signal on) and waits for its launcher."""
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        if self._proc is not None:
            self._proc.wait(timeout=60)


def start(seed=None, command=None, clock=False, env=None):
    """Starts `anvil serve --ephemeral`; should this process die first, the server ends within two seconds."""
    cmd = shlex.split(command or os.environ.get("ANVIL_COMMAND") or "npx anvil")
    args = [*cmd, "serve", "--ephemeral"]
    if seed:
        args += ["--seed", os.path.abspath(seed)]
    if clock:
        args.append("--clock")
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("ANVIL_")}
    child_env.update(env or {})
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env, text=True)
    line = proc.stdout.readline()
    if not line:
        raise AnvilError(f"anvil exited ({proc.wait()}) before it was ready: {proc.stderr.read().strip()}")
    # Its logs are not kept; the pipes must not fill.
    proc.stderr.close()
    return Anvil(json.loads(line), proc)


def pytest_addoption(parser):
    group = parser.getgroup("anvil")
    group.addoption("--anvil-seed", help="the seed file for Anvil")
    group.addoption("--anvil-command", help="how to run anvil (default: ANVIL_COMMAND, else npx anvil)")
    group.addoption("--anvil-clock", action="store_true", default=None, help="let tests move Anvil's clock")
    group.addoption("--anvil-no-reset", action="store_true", default=None, help="do not reset Anvil before each test")
    parser.addini("anvil_seed", "the seed file for Anvil (relative to the ini file)")
    parser.addini("anvil_command", "how to run anvil")
    parser.addini("anvil_clock", "let tests move Anvil's clock", type="bool", default=False)
    parser.addini("anvil_no_reset", "do not reset Anvil before each test", type="bool", default=False)


def _option(config, name):
    given = config.getoption(f"--anvil-{name.replace('_', '-')}")
    if given is not None:
        return given
    value = config.getini(f"anvil_{name}")
    if name == "seed" and value:
        return str(config.inipath.parent / value) if config.inipath else value
    return value


@pytest.fixture(scope="session")
def anvil(pytestconfig):
    server = start(seed=_option(pytestconfig, "seed"), command=_option(pytestconfig, "command"), clock=bool(_option(pytestconfig, "clock")))
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _anvil_reset(request):
    """Every test that uses Anvil starts from the seeded state."""
    if "anvil" in request.fixturenames and not _option(request.config, "no_reset"):
        request.getfixturevalue("anvil").reset()


@pytest.fixture
def gl(anvil):
    """python-gitlab as root."""
    return anvil.gitlab()
