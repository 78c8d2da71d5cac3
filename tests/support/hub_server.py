"""A real JupyterHub for the tests: this course's hub on loopback, with Unix accounts the test creates.

`running_hub` lays the hub out with `course_grade.hub.layout.lay_out_hub` (accounts, the two environments,
the exchange, the instructor's course) under a fresh folder, releases the assignments into the exchange,
starts `jupyterhub -f hub/jupyterhub_config.py` as root on free loopback ports (course_grade.hub.process),
and on the way out stops it with every server it spawned, then removes its accounts and folder. It needs
root (LocalProcessSpawner starts each server as its user): without it the test skips, except under CI.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from course_grade.hub import accounts
from course_grade.hub.layout import HubSettings, instructor_environment, lay_out_hub
from course_grade.hub.process import free_ports, running


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
    """A running hub in the new folder `root`: an instructor, `learners` learners, `assignments` released."""
    root_or_skip()
    instructor, *learner_names = account_names("teach", *(f"l{i}" for i in range(1, learners + 1)))
    ports = tuple(free_ports(3))
    settings = lay_out_hub(
        root, instructor=instructor, learners=learner_names, assignments=assignments, ports=ports
    )
    with running(settings, assignments):
        yield settings


def as_instructor(settings: HubSettings, *command: str) -> str:
    """Run a command in the instructor's course directory, as the instructor would in their hub terminal."""
    environment = instructor_environment(settings)
    return accounts.run_as(settings.instructor, list(command), cwd=settings.course, env=environment)


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
