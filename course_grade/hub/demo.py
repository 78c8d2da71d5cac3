"""`python3 course.py hub`: this course's hub on loopback for trying it, with an instructor and learner accounts.

It lays out a hub (course_grade.hub.layout) in a new folder, releases 01_envelope into nbgrader's exchange,
starts JupyterHub, prints the address and each account's name and password, and runs until interrupted;
then it stops the hub and removes its accounts and folder. It needs root (it creates Unix accounts).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path

from course_grade.hub.errors import HubError
from course_grade.hub.layout import HubSettings, lay_out_hub
from course_grade.hub.process import free_port, port_is_free, running

INSTRUCTOR = "demo-instructor"
LEARNERS = ("demo-learner1", "demo-learner2")
RELEASED = ["01_envelope"]


def parser() -> argparse.ArgumentParser:
    """The demo's command line."""
    command = argparse.ArgumentParser(prog="course.py hub", description=__doc__.split("\n\n")[0])
    command.add_argument("--port", type=int, default=8000, help="the hub's port on 127.0.0.1 (default 8000)")
    command.add_argument(
        "--learners", type=int, default=len(LEARNERS), help="how many learner accounts (1-20)"
    )
    command.add_argument("--folder", type=Path, help="a new folder for the hub (default: one under /tmp)")
    return command


def accounts_text(settings: HubSettings) -> str:
    """The lines that tell a person where the hub is and how each account logs in."""
    lines = [
        f"The course's hub is running at {settings.url()} (loopback only). Log in as:",
        f"  {settings.instructor:<16} password {settings.admin_password}   (instructor: formgrader, course/)",
        *(f"  {name:<16} password {settings.user_password}   (learner)" for name in settings.learners),
        f"{RELEASED[0]} is released: learners fetch it from Nbgrader > Assignment List.",
        "Stop with Ctrl-C: the hub, its accounts and its folder are removed.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the demo hub until interrupted; the exit status."""
    args = parser().parse_args(argv)
    if not 1 <= args.learners <= 20:
        parser().error("--learners takes 1 to 20")
    learners = [*LEARNERS, *(f"demo-learner{i}" for i in range(len(LEARNERS) + 1, args.learners + 1))]
    base = args.folder or Path(tempfile.mkdtemp(prefix="course-hub-")) / "hub"
    if base.parent.name.startswith("course-hub-"):
        base.parent.chmod(0o755)
    if not port_is_free(args.port):
        parser().error(f"port {args.port} is in use on 127.0.0.1: choose another with --port")
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # even where the shell ignored SIGINT (`&`)
        signal.signal(number, lambda *_: stop.set())
    try:
        ports = (args.port, free_port(), free_port())
        settings = lay_out_hub(base, instructor=INSTRUCTOR, learners=learners[: args.learners], assignments=RELEASED,
                               ports=ports)  # fmt: skip
        with running(settings, RELEASED):
            print(accounts_text(settings), flush=True)
            stop.wait()
            print("stopping the hub ...", flush=True)
    except HubError as error:
        print(f"course.py hub: {error}", file=sys.stderr)
        return 1
    finally:
        if base.parent.name.startswith("course-hub-"):
            shutil.rmtree(base.parent, ignore_errors=True)
    return 0
