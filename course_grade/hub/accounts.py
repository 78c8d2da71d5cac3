"""The hub's Unix accounts: created for a class on one machine, marked as the course's, removed with it."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from course_grade.hub.errors import HubError

MARK = "tool-call-boundary hub account"
"""The comment (GECOS) field of every account this module creates: only such accounts are ever removed."""

ACCOUNT_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,30}")
"""A portable Unix user name (also a valid nbgrader student id)."""


def check_name(name: str) -> str:
    """The name, when it can be a Unix account and an nbgrader student id; else a HubError saying why."""
    if not ACCOUNT_NAME.fullmatch(name):
        raise HubError(
            f"{name!r} cannot be an account name: lower-case letters, digits, '-' and '_', 1-31 long"
        )
    return name


def is_ours(name: str) -> bool:
    """True when an account of this name exists and was created by this module (its comment is MARK)."""
    try:
        return pwd.getpwnam(name).pw_gecos == MARK
    except KeyError:
        return False


def exists(name: str) -> bool:
    """True when a Unix account of this name exists."""
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def require_root(what: str) -> None:
    """Raise a HubError unless this process is root on a system with useradd (a hub spawns other users)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        raise HubError(
            f"{what} needs root: JupyterHub's LocalProcessSpawner starts each user's server as that user"
        )
    if shutil.which("useradd") is None or shutil.which("userdel") is None:
        raise HubError(f"{what} needs useradd and userdel (Debian's passwd package)")


def create(names: Sequence[str], homes: Path) -> None:
    """Create each account with its home in `homes` (mode 0700); an earlier account of ours is replaced."""
    require_root("creating the hub's accounts")
    for name in names:
        check_name(name)
        if exists(name) and not is_ours(name):
            raise HubError(f"an account {name!r} exists already and is not the course's: choose another name")
    remove(names)  # what an interrupted earlier hub left behind
    for name in names:
        home = homes / name
        command = ["useradd", "--comment", MARK, "--home-dir", str(home), "--create-home"]
        subprocess.run(
            [*command, "--shell", "/bin/bash", "--user-group", name], check=True, capture_output=True
        )
        home.chmod(0o700)  # a learner reads no one else's files, the instructor's course least of all


def remove(names: Iterable[str]) -> None:
    """Remove the accounts of these names that this module created, their homes and processes with them."""
    for name in names:
        if not is_ours(name):
            continue
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)  # a server the hub left running
        subprocess.run(["userdel", "--remove", "--force", name], capture_output=True)
        if exists(name):
            raise HubError(f"the account {name!r} could not be removed")


def run_as(name: str, command: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    """Run `command` as the account `name` (runuser, no login shell) and return its output; HubError on failure."""
    entry = pwd.getpwnam(name)
    full_env = {"HOME": entry.pw_dir, "USER": name, "LOGNAME": name, "LANG": "C.UTF-8", **env}
    done = subprocess.run(
        ["runuser", "-u", name, "--", "env", "-i", *(f"{k}={v}" for k, v in full_env.items()), *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise HubError(
            f"{' '.join(command)} as {name} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )
    return done.stdout + done.stderr
