"""The hub's folder: environments, exchange, the instructor's course, each role's config, and `hub.json`.

<root>/                      0755, every account enters it
  hub.json                   what hub/jupyterhub_config.py reads (ports, accounts, environments, passwords)
  state/                     0700, the hub's own database, cookie secret and log
  exchange/                  nbgrader's exchange: every account writes there (mode 1777: none renames another's)
  edition/                   the learners' edition of the assignments handed out (course-grade bundle)
  python/                    a copy of the interpreter behind the course's .venv, which every account runs
  envs/learner, envs/instructor   the two Python environments (course_grade.hub.environments)
  config/learner, config/instructor   JUPYTER_CONFIG_PATH of each role's server
  home/<account>/            each account's home (0700); the instructor's holds course/, the course
                             directory, and packages/, their copy of course_lib (every key) and course_grade
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from course_grade.hub import accounts
from course_grade.hub.environments import clone_environment, reachable_by_all, shared_interpreter
from course_grade.hub.errors import HubError

REPOSITORY = Path(__file__).resolve().parents[2]
"""This repository: the course (grading/), the learners' Jupyter config and the hub's proxy (hub/)."""

COURSE_ID = "tool-call-boundary"
"""nbgrader's course id of the course (as grading/nbgrader_config.py sets it)."""

PROXY = REPOSITORY / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
"""JupyterHub's proxy, installed from hub/package-lock.json by `npm ci` (course.py does it)."""

INSTRUCTOR_SERVER_CONFIG = {
    "ServerApp": {"tornado_settings": {"headers": {"Content-Security-Policy": "frame-ancestors 'self'"}}}
}
"""The instructor's server lets its own pages frame each other: JupyterHub's default, frame-ancestors 'none',
blanks the Formgrader tab JupyterLab opens from the Nbgrader menu."""


@dataclass(frozen=True)
class HubSettings:
    """What hub/jupyterhub_config.py needs to know of one hub: where, who, and which environment serves whom."""

    root: str
    port: int
    """The port the proxy serves the hub on, on 127.0.0.1."""
    hub_port: int
    api_port: int
    """The hub's own API and the proxy's API: given explicitly, so two hubs never pick the same."""
    instructor: str
    learners: list[str]
    user_password: str
    """The learners' shared password (SharedPasswordAuthenticator.user_password, 8 characters or more)."""
    admin_password: str
    """The instructor's (an admin of the hub; SharedPasswordAuthenticator.admin_password, 32 or more)."""
    python: dict[str, str] = field(default_factory=dict)
    """Role ("learner", "instructor") -> the python of that role's environment."""
    config_path: dict[str, str] = field(default_factory=dict)
    """Role -> the JUPYTER_CONFIG_PATH of that role's servers."""
    proxy: str = str(PROXY)

    def url(self, path: str = "") -> str:
        """The hub's address of `path` (e.g. "hub/login")."""
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    @property
    def exchange(self) -> Path:
        """nbgrader's exchange folder."""
        return Path(self.root) / "exchange"

    def home(self, account: str) -> Path:
        """An account's home folder."""
        return Path(self.root) / "home" / account

    @property
    def course(self) -> Path:
        """The instructor's course directory."""
        return self.home(self.instructor) / "course"

    def write(self) -> Path:
        """Write hub.json into the root (mode 0600 from the start: it holds the passwords); return its path."""
        path = Path(self.root) / "hub.json"
        path.unlink(missing_ok=True)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
            file.write(json.dumps(asdict(self), indent=2) + "\n")
        return path


def lay_out_hub(
    root: Path,
    *,
    instructor: str,
    learners: list[str],
    assignments: list[str],
    ports: tuple[int, int, int],
    environment: Path | None = None,
) -> HubSettings:
    """Lay out a hub for this course in the new folder `root` and create its accounts; return its settings.

    `environment` is the course's virtual environment (default: the one running this), `assignments` those
    the learners' edition holds, `ports` the proxy's public port, the hub's and the proxy's API port.
    """
    accounts.require_root("laying out a hub")
    for name in [instructor, *learners]:
        accounts.check_name(name)
    if instructor in learners or len(set(learners)) != len(learners):
        raise HubError("the instructor and the learners need distinct account names")
    if not PROXY.exists():
        raise HubError(f"{PROXY} is missing: run `npm ci` in {PROXY.parents[2]} (python3 course.py does it)")
    root = root.resolve()
    root.mkdir(parents=True)
    root.chmod(0o755)
    if not reachable_by_all(root):
        root.rmdir()
        raise HubError(
            f"{root} is inside a folder other accounts cannot enter: choose a folder under /srv or /tmp"
        )
    settings = HubSettings(
        root=str(root),
        port=ports[0],
        hub_port=ports[1],
        api_port=ports[2],
        instructor=instructor,
        learners=list(learners),
        user_password=secrets.token_urlsafe(12),
        admin_password=secrets.token_urlsafe(32),
    )
    try:
        return _fill(settings, Path(environment or sys.prefix), assignments)
    except BaseException:
        remove_hub(settings)  # no account or half-laid folder outlives a failed lay-out
        raise


def _fill(settings: HubSettings, source: Path, assignments: list[str]) -> HubSettings:
    """Create the accounts and lay out everything in the hub's (new, empty) folder; the settings completed."""
    root = Path(settings.root)
    interpreter = shared_interpreter(root / "python")
    (root / "state").mkdir(mode=0o700)
    settings.exchange.mkdir()
    settings.exchange.chmod(0o1777)  # every account writes there (nbgrader's docs); the sticky bit: none
    # renames or removes another's folder, the course's outbound/ and inbound/ least of all
    (root / "home").mkdir(mode=0o755)
    accounts.create([settings.instructor, *settings.learners], root / "home")
    _bundle_edition(source, root / "edition", assignments)
    packages = settings.home(settings.instructor) / "packages"  # every key: in the instructor's home (0700)
    _copy_packages(packages, settings.instructor)
    python = {
        "learner": clone_environment(source, root / "envs" / "learner", [root / "edition"], interpreter),
        "instructor": clone_environment(source, root / "envs" / "instructor", [packages], interpreter),
    }
    config = {role: _role_config(root / "config" / role, role, settings) for role in python}
    settings = HubSettings(
        **{
            **asdict(settings),
            "python": {role: str(path) for role, path in python.items()},
            "config_path": {role: str(path) for role, path in config.items()},
        }
    )
    _course_for(settings)
    settings.write()
    return settings


def _bundle_edition(environment: Path, target: Path, assignments: list[str]) -> None:
    """The learners' edition of these assignments (course-grade bundle), with no key of an open assignment."""
    done = subprocess.run(
        [str(environment / "bin" / "course-grade"), "bundle", str(target), *assignments],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise HubError(f"the learners' edition could not be bundled:\n{done.stdout}{done.stderr}")
    for folder in [target, *(p for p in target.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    for path in target.rglob("*"):
        if path.is_file():
            path.chmod(0o644)


def _copy_packages(target: Path, owner: str) -> None:
    """The instructor's copy of course_lib (every key) and course_grade, theirs alone (the repository may be
    where they cannot read, or where every account can)."""
    ignore = shutil.ignore_patterns("__pycache__", "node_modules")
    for package in ("course_lib", "course_grade"):
        shutil.copytree(REPOSITORY / package, target / package, ignore=ignore)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o700 if path.is_dir() else 0o600)
    subprocess.run(["chown", "-R", f"{owner}:{owner}", str(target)], check=True)


def _role_config(folder: Path, role: str, settings: HubSettings) -> Path:
    """The Jupyter config folder of a role's servers: nbgrader's exchange, and for learners no instructor tool."""
    folder.mkdir(parents=True)
    lines = [
        f"c.CourseDirectory.course_id = {COURSE_ID!r}",
        f"c.Exchange.root = {str(settings.exchange)!r}",
    ]
    if role == "instructor":
        lines.append(f"c.CourseDirectory.root = {str(settings.course)!r}")
    (folder / "nbgrader_config.py").write_text("".join(f"{line}\n" for line in lines))
    if role == "learner":
        shutil.copytree(REPOSITORY / "learner_config", folder, dirs_exist_ok=True)
    else:  # JupyterHub's servers forbid framing, which leaves JupyterLab's Formgrader tab (an iframe) blank
        (folder / "jupyter_server_config.json").write_text(
            json.dumps(INSTRUCTOR_SERVER_CONFIG, indent=2) + "\n"
        )
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def _course_for(settings: HubSettings) -> None:
    """The instructor's course directory: the repository's grading/ (sources and configuration), theirs."""
    ignore = shutil.ignore_patterns(
        "__pycache__", "gradebook.db", "release", "submitted", "autograded", "feedback", "exchange"
    )
    shutil.copytree(REPOSITORY / "grading", settings.course, ignore=ignore)
    subprocess.run(
        ["chown", "-R", f"{settings.instructor}:{settings.instructor}", str(settings.course)], check=True
    )


def instructor_environment(settings: HubSettings) -> dict[str, str]:
    """The environment variables of a command the instructor runs in their terminal on the hub."""
    python = Path(settings.python["instructor"])
    return {
        "PATH": f"{python.parent}:/usr/local/bin:/usr/bin:/bin",
        "JUPYTER_CONFIG_PATH": settings.config_path["instructor"],
    }


def release(settings: HubSettings, assignment: str) -> str:
    """As the instructor, in the course directory: nbgrader generate_assignment, then release_assignment."""
    env = instructor_environment(settings)
    out = accounts.run_as(
        settings.instructor,
        ["nbgrader", "generate_assignment", assignment, "--force"],
        cwd=settings.course,
        env=env,
    )
    return out + accounts.run_as(
        settings.instructor,
        ["nbgrader", "release_assignment", assignment, "--force"],
        cwd=settings.course,
        env=env,
    )


def remove_hub(settings: HubSettings) -> None:
    """Remove the hub's accounts (their servers stopped) and its folder."""
    accounts.remove([settings.instructor, *settings.learners])
    shutil.rmtree(settings.root, ignore_errors=True)
