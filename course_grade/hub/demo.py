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
from pathlib import Path

from course_grade.hub.errors import HubError
from course_grade.hub.layout import HubSettings, lay_out_hub
from course_grade.hub.process import free_ports, port_is_free, running

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
    if not port_is_free(args.port):
        parser().error(f"port {args.port} is in use on 127.0.0.1: choose another with --port")
    learners = [*LEARNERS, *(f"demo-learner{i}" for i in range(len(LEARNERS) + 1, args.learners + 1))]
    made = None if args.folder else Path(tempfile.mkdtemp(prefix="course-hub-"))  # removed at the end
    if made is not None:
        made.chmod(0o755)
    root = args.folder.resolve() if made is None else made / "hub"
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even where the shell ignored it (`&`)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _interrupt)
    try:
        settings = lay_out_hub(
            root,
            instructor=INSTRUCTOR, learners=learners[: args.learners], assignments=RELEASED,
            ports=(args.port, *free_ports(2)),
        )  # fmt: skip
        with running(settings, RELEASED):
            print(accounts_text(settings), flush=True)
            try:
                while True:
                    signal.pause()
            except KeyboardInterrupt:
                for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                    signal.signal(number, signal.SIG_IGN)  # the clean-up runs to its end
                print("stopping the hub ...", flush=True)
    except KeyboardInterrupt:
        print("course.py hub: interrupted; what was laid out is removed", file=sys.stderr)
        return 130
    except HubError as error:
        print(f"course.py hub: {error}", file=sys.stderr)
        return 1
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
    return 0


def _interrupt(number: int, frame: object) -> None:
    """SIGTERM and SIGHUP stop the demo as Ctrl-C does."""
    raise KeyboardInterrupt
