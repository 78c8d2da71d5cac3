"""A real JupyterHub for the tests: this course's hub on loopback, with Unix accounts the test creates.

`running_hub` lays the hub out with `course_grade.hub.layout.lay_out_hub` (accounts, the two environments,
the exchange, the instructor's course with its assignments released) under a fresh folder, starts
`jupyterhub -f hub/jupyterhub_config.py` as root on free loopback ports, waits (bounded) until it answers,
and on the way out stops it with every server it spawned, then removes its accounts and folder. It needs
root (LocalProcessSpawner starts each server as its user): without it the test skips, except under CI.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from course_grade.hub import accounts
from course_grade.hub.layout import (
    REPOSITORY,
    HubSettings,
    instructor_environment,
    lay_out_hub,
    release,
    remove_hub,
)
from tests.lab_server import free_port

START_TIMEOUT = 60.0
"""Seconds the hub may take to answer (it answered in about 3 s on a quiet 2-core machine)."""

STOP_TIMEOUT = 30.0
"""Seconds the hub may take to stop its users' servers and exit after SIGTERM, before it is killed."""


def root_or_skip() -> None:
    """Skip unless root (the hub creates accounts and starts servers as them); fail instead under CI."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return
    if os.environ.get("CI") == "true":
        pytest.fail("CI must run the hub tests, as root", pytrace=False)
    pytest.skip("the hub tests create Unix accounts: run them as root")


def account_names(*roles: str) -> list[str]:
    """One account name per role, unique to this run (a crashed earlier run's accounts never collide)."""
    tag = secrets.token_hex(2)
    return [f"ctb{tag}-{role}" for role in roles]


@contextlib.contextmanager
def running_hub(root: Path, *, learners: int, assignments: list[str]) -> Iterator[HubSettings]:
    """Lay out a hub in the new folder `root` with an instructor and `learners` learners, release
    `assignments` into its exchange, start it, and yield its settings; stop and remove it all afterwards."""
    root_or_skip()
    instructor, *learner_names = account_names("teach", *(f"l{i}" for i in range(1, learners + 1)))
    ports = (free_port(), free_port(), free_port())
    settings = None
    hub = None
    try:
        settings = lay_out_hub(
            root, instructor=instructor, learners=learner_names, assignments=assignments, ports=ports
        )
        for assignment in assignments:
            release(settings, assignment)
        log = (root / "state" / "hub.log").open("wb")
        hub = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "jupyterhub"),
                "-f",
                str(REPOSITORY / "hub" / "jupyterhub_config.py"),
            ],
            cwd=root / "state",
            env={**os.environ, "COURSE_HUB_SETTINGS": str(root / "hub.json")},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        wait_until_up(settings, hub)
        yield settings
    finally:
        if hub is not None:
            stop(hub)
        if settings is not None:
            remove_hub(settings)


def wait_until_up(settings: HubSettings, hub: subprocess.Popen[bytes]) -> None:
    """Return once the hub's login page answers; fail with the end of its log if it exits or takes too long."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            raise AssertionError(f"JupyterHub exited ({hub.returncode}):\n{hub_log(settings)}")
        with (
            contextlib.suppress(urllib.error.URLError, OSError),
            urllib.request.urlopen(settings.url("hub/login"), timeout=5) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.25)
    raise AssertionError(f"JupyterHub did not answer within {START_TIMEOUT:.0f} s:\n{hub_log(settings)}")


def stop(hub: subprocess.Popen[bytes]) -> None:
    """Stop the hub (it stops the servers it spawned), or kill its whole process group."""
    hub.send_signal(signal.SIGTERM)
    try:
        hub.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(hub.pid, signal.SIGKILL)
        hub.wait()


def hub_log(settings: HubSettings) -> str:
    """The end of the hub's log, for failure messages."""
    log = Path(settings.root) / "state" / "hub.log"
    return log.read_text(errors="replace")[-4000:] if log.exists() else "(no log)"


def as_instructor(settings: HubSettings, *command: str) -> str:
    """Run a command in the instructor's course directory, as the instructor would in their hub terminal."""
    return accounts.run_as(
        settings.instructor, list(command), cwd=settings.course, env=instructor_environment(settings)
    )


def as_learner(settings: HubSettings, learner: str, *command: str) -> subprocess.CompletedProcess[str]:
    """Run a command as a learner in their home, with their server's environment; the outcome, failed or not."""
    python = Path(settings.python["learner"])
    env = {
        "HOME": str(settings.home(learner)),
        "PATH": f"{python.parent}:/usr/bin:/bin",
        "JUPYTER_CONFIG_PATH": settings.config_path["learner"],
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        ["runuser", "-u", learner, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()), *command],
        cwd=settings.home(learner),
        capture_output=True,
        text=True,
        timeout=120,
    )
