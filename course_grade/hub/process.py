"""The hub's process: JupyterHub started as root on a laid-out hub folder, waited for, and stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from course_grade.hub.errors import HubError
from course_grade.hub.layout import REPOSITORY, HubSettings, release, remove_hub

CONFIG = REPOSITORY / "hub" / "jupyterhub_config.py"
"""JupyterHub's configuration for this course's hub (it reads hub.json)."""

START_TIMEOUT = 60.0
"""Seconds JupyterHub may take to answer (about 3 s on a quiet 2-core machine)."""

STOP_TIMEOUT = 30.0
"""Seconds JupyterHub may take to stop the servers it spawned and exit after SIGTERM, before it is killed."""


def free_ports(count: int) -> list[int]:
    """`count` distinct TCP ports on 127.0.0.1 that nothing listens on right now."""
    with contextlib.ExitStack() as held:  # all bound at once, so no two are the same
        probes = [held.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]


def port_is_free(port: int) -> bool:
    """True when nothing listens on `port` of 127.0.0.1 (so the hub can)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def start_hub(settings: HubSettings) -> subprocess.Popen[bytes]:
    """Start JupyterHub on the hub folder of `settings`, its log in state/hub.log; return once it answers."""
    state = Path(settings.root) / "state"
    with (state / "hub.log").open("ab") as log:
        hub = subprocess.Popen(
            [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(CONFIG)],
            cwd=state,
            env={**os.environ, "COURSE_HUB_SETTINGS": str(Path(settings.root) / "hub.json")},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in the terminal reaches the demo, which stops the hub in order
        )
    try:
        wait_until_up(settings, hub)
    except BaseException:  # a hub of root's never outlives a start that failed or was interrupted
        stop_hub(hub)
        raise
    return hub


def wait_until_up(settings: HubSettings, hub: subprocess.Popen[bytes]) -> None:
    """Return once the hub's login page answers; HubError with the end of its log if it exits or takes too long."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            raise HubError(f"JupyterHub exited ({hub.returncode}):\n{hub_log(settings)}")
        with (
            contextlib.suppress(urllib.error.URLError, OSError),
            urllib.request.urlopen(settings.url("hub/login"), timeout=5) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.25)
    raise HubError(f"JupyterHub did not answer within {START_TIMEOUT:.0f} s:\n{hub_log(settings)}")


def stop_hub(hub: subprocess.Popen[bytes]) -> None:
    """Stop JupyterHub (it stops the servers it spawned), or kill its whole process group."""
    if hub.poll() is not None:
        return
    hub.send_signal(signal.SIGTERM)
    try:
        hub.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(hub.pid, signal.SIGKILL)
        hub.wait()


def hub_log(settings: HubSettings) -> str:
    """The end of the hub's log, for error messages."""
    log = Path(settings.root) / "state" / "hub.log"
    return log.read_text(errors="replace")[-4000:] if log.exists() else "(no log)"


@contextlib.contextmanager
def running(settings: HubSettings, assignments: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """Release `assignments` into the exchange, start the hub, and yield it; stop and remove it all afterwards."""
    hub = None
    try:
        for assignment in assignments:
            release(settings, assignment)
        hub = start_hub(settings)
        yield hub
    finally:
        if hub is not None:
            stop_hub(hub)
        remove_hub(settings)
