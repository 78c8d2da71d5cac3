#!/usr/bin/env python3
"""Set up and run the course: `python3 course.py lab` opens it, `python3 course.py test` checks everything.

Maintainers: `python3 course.py build` regenerates the notebooks' stored outputs and the learners' versions,
and `python3 course.py docs` builds the documentation site into docs/_build/html.
Instructors: `python3 course.py hub [--port N]` starts a demo JupyterHub of the course on loopback (as root).
Authors: `python3 course.py mutants [ASSIGNMENT [PART]] [--sample N]` scores the hidden tests by mutation, and
`python3 course.py differential [ASSIGNMENT ...] [--answers]` prints the differential hidden tests (the
reference as oracle) and, with --answers, judges the solutions, independent and wrong answers with them.

Each command creates the virtual environment in .venv and installs into it first, when needed, what that
command needs (EXTRAS): `lab` the course and JupyterLab alone, `test` every extra. A fresh machine with
Python 3.11+ needs nothing else.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
NODE_CLIENTS = ROOT / "tests" / "e2e" / "node"
"""The official Node SDKs that tests/e2e/test_node_sdks.py runs against the stand-in (package.json + lock file)."""

HUB = ROOT / "hub"
"""The hub's JupyterHub config and its proxy, configurable-http-proxy (package.json + lock file)."""


def ensure_npm_packages(folder: Path, what: str) -> None:
    """Install `folder`'s packages from its lock file with `npm ci`, when npm exists and the lock changed."""
    npm = shutil.which("npm")
    if npm is None:  # the tests that need them then skip (or fail under CI), saying so
        return
    lock = folder / "package-lock.json"
    stamp = folder / "node_modules" / f".installed-{hashlib.sha256(lock.read_bytes()).hexdigest()[:16]}"
    if stamp.exists():
        return
    print(f"installing {what} (npm ci in {folder.relative_to(ROOT)}) ...", flush=True)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder, check=True)
    stamp.touch()


EXTRAS: dict[str, tuple[str, ...]] = {
    "lab": (),  # a learner's first run: the notebooks' imports and JupyterLab, nothing of the tests or the grader
    "build": ("grade",),  # grading/build_notebooks.py runs the instructor notebooks through course_grade
    "hub": ("grade", "hub"),
    "mutants": ("grade", "test"),  # mutmut's operators are in the test extra
    "differential": ("grade",),  # the differential hidden tests: hypothesis and course_grade.score.oracle
    "docs": ("docs", "grade"),  # the course-grade reference reads its parser, which imports the grader
    "test": ("docs", "frameworks", "grade", "hub", "test"),  # the suite covers every command
}
"""The optional dependencies (pyproject.toml's extras) each command installs before it runs."""


def _stamp_digest() -> str:
    """The short hash of pyproject.toml that an install's stamp carries: a changed pyproject installs again."""
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]


def installed_sets(digest: str) -> list[frozenset[str]]:
    """The sets of extras installed into .venv from this pyproject.toml (one stamp file per set)."""
    sets = []
    for stamp in VENV.glob(f".installed-{digest}*"):
        names = stamp.name.removeprefix(f".installed-{digest}").removeprefix("-")
        sets.append(frozenset(filter(None, names.split("+"))))
    return sets


def stamp_name(digest: str, extras: frozenset[str]) -> str:
    """The stamp file of one installed set: `.installed-DIGEST` for the base, `.installed-DIGEST-a+b` else."""
    return f".installed-{digest}" + (f"-{'+'.join(sorted(extras))}" if extras else "")


def ensure_environment(extras: tuple[str, ...] = ()) -> None:
    """Create .venv and install the course with these extras, unless a stamp says this pyproject.toml's are in."""
    if sys.version_info < (3, 11):  # noqa: UP036  (this script may be started by an older python3)
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}.")
    digest, wanted = _stamp_digest(), frozenset(extras)
    if any(wanted <= done for done in installed_sets(digest)):
        return  # installed by this command, or by one that needs more (a second run installs nothing)
    if not (BIN / "python").exists():
        print("creating the environment in .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    what = f"the course with {', '.join(sorted(wanted))}" if wanted else "the course"
    print(f"installing {what} into .venv (a minute or more the first time) ...", flush=True)
    target = "." + (f"[{','.join(sorted(wanted))}]" if wanted else "")
    pip = [str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-e", target], cwd=ROOT, check=True)
    for old in VENV.glob(".installed-*"):
        if not old.name.startswith(f".installed-{digest}"):
            old.unlink()  # installed from another pyproject.toml: no longer proof of anything
    (VENV / stamp_name(digest, wanted)).touch()


def run(*command: str) -> int:
    """Run one command from the environment and return its exit status."""
    print("$", " ".join(command), flush=True)
    return subprocess.run([str(BIN / command[0]), *command[1:]], cwd=ROOT, env=_environment()).returncode


def _environment() -> dict[str, str]:
    env = {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")])}
    env.pop("OPENAI_MODEL", None)  # the stored outputs show the stand-in's default model name
    return env


def run_beside(command: tuple[str, ...], main: tuple[str, ...]) -> tuple[int, int]:
    """Run `command` while `main` runs (its output kept and printed once `main` ends); both exit statuses."""
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as kept:
        side = subprocess.Popen(
            [str(BIN / command[0]), *command[1:]], cwd=ROOT, env=_environment(), stdout=kept, stderr=kept
        )
        try:
            status = run(*main)
        finally:
            side_status = side.wait()
        kept.seek(0)
        print("$", " ".join(command), "(ran beside the command above)", flush=True)
        print(kept.read(), end="", flush=True)
    return side_status, status


LEARNER_CONFIG = ROOT / "learner_config"
"""Jupyter config for learners: nbgrader's instructor tools (formgrader, create assignment, course list) are
disabled; the Assignments tab, with which learners on a hub fetch and submit, stays. `lab` puts it first on
JUPYTER_CONFIG_PATH for its own run only; the hub's learners' servers use it too (course_grade/hub)."""


def lab(extra: list[str]) -> int:
    """Open the learners' notebooks in JupyterLab, without nbgrader's instructor tools."""
    as_root = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []  # containers, CI
    command = [str(BIN / "jupyter"), "lab", f"--ServerApp.root_dir={ROOT / 'notebooks'}", *as_root, *extra]
    print("$", " ".join(command[1:]), flush=True)
    os.chdir(ROOT)
    paths = [str(LEARNER_CONFIG), *filter(None, [os.environ.get("JUPYTER_CONFIG_PATH")])]
    os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)  # this process and JupyterLab only
    os.execv(command[0], command)  # become JupyterLab, so Ctrl-C and signals reach it directly


def apt_install(package: str, reason: str) -> None:
    """Install one Debian package with apt-get, non-interactively, waiting for another apt's lock if need be."""
    print(f"installing Debian's {package} for {reason} ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = ["-o", "DPkg::Lock::Timeout=600"]  # another apt-get at work: wait for it (bounded), do not fail
    subprocess.run(["apt-get", *wait, "update", "-qq"], env=env, check=True)
    install = ["apt-get", *wait, "install", "-y", "-qq", "--no-install-recommends", package]
    subprocess.run(install, env=env, check=True)


def can_apt_install() -> bool:
    """True as root where apt-get exists (Debian): the tests' system packages can be installed."""
    return shutil.which("apt-get") is not None and hasattr(os, "geteuid") and os.geteuid() == 0


def ensure_postgresql() -> None:
    """Install Debian's PostgreSQL server for the gradebook tests, as root on Debian, when no initdb is there.

    tests/support/postgres.py starts its own server from these binaries (initdb in a temporary folder, loopback only);
    the system's own cluster is kept from starting while the package installs.
    """
    if list(Path("/usr/lib/postgresql").glob("*/bin/initdb")) or not can_apt_install():
        return  # not root, or not Debian: tests/support/postgres.py says what is missing
    policy = Path("/usr/sbin/policy-rc.d")
    had_policy = policy.exists()
    if not had_policy:
        policy.write_text("#!/bin/sh\nexit 101\n")  # do not start the system's cluster
        policy.chmod(0o755)
    try:
        apt_install("postgresql", "the gradebook tests")
    finally:
        if not had_policy:
            policy.unlink()


CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium, which tests/support/browser.py drives with Playwright (never Playwright's own download)."""


def ensure_chromium() -> None:
    """Install Debian's Chromium for the browser tests, as root on Debian, when /usr/bin/chromium is missing."""
    if CHROMIUM.exists() or not can_apt_install():
        return  # not root, or not Debian: tests/support/browser.py says what is missing
    apt_install("chromium", "the browser tests")


def test(extra: list[str]) -> int:
    """Lint; run the tests (on every core) with the type check beside them; then nbval twice over the instructor
    notebooks."""
    ensure_npm_packages(NODE_CLIENTS, "the Node SDKs for the compatibility tests")  # `lab` never needs npm
    ensure_npm_packages(HUB, "JupyterHub's proxy for the hub tests")
    ensure_postgresql()
    ensure_chromium()
    checks = [
        ("ruff", "check", "course_lib", "course_grade", "tests", "grading", "benchmarks", "hub", "course.py"),
        (
            "ruff",
            "format",
            "--check",
            "course_lib",
            "course_grade",
            "tests",
            "grading",
            "benchmarks",
            "hub",
            "course.py",
        ),
    ]
    failed = [" ".join(check) for check in checks if run(*check) != 0]
    types, tests = ("mypy",), ("python", "-m", "pytest", "-n", "auto", "--dist", "loadgroup", *extra)
    statuses = run_beside(types, tests)  # mypy runs in the time the tests spend waiting
    failed += [" ".join(check) for check, status in zip([types, tests], statuses, strict=True) if status != 0]
    nbval = ("python", "-m", "pytest", "--nbval", "-p", "no:xdist", "grading/source", *extra)
    # nbval twice in a row, each time on fresh kernels: stored outputs must not depend on a first run
    failed += [" ".join(nbval) for _ in range(2) if run(*nbval) != 0]
    if failed:
        print("FAILED:", "; ".join(failed), flush=True)
    return 1 if failed else 0


def hub(extra: list[str]) -> int:
    """A demo hub of the course on 127.0.0.1 (root: it creates Unix accounts); see docs/instructors/hub.md."""
    ensure_npm_packages(HUB, "JupyterHub's proxy")
    command = [str(BIN / "python"), "-m", "course_grade.hub", *extra]
    print("$", " ".join(command[1:]), flush=True)
    os.chdir(ROOT)
    os.execv(command[0], command)  # become the demo, so Ctrl-C reaches it and it removes what it made


def build(extra: list[str]) -> int:
    """Re-execute the instructor notebooks, store their outputs, regenerate the learners' versions."""
    return run("python", "grading/build_notebooks.py", *extra)


def mutants(extra: list[str]) -> int:
    """Score the hidden tests by mutation: mutmut's mutants of each instructor solution, killed or not."""
    return run("python", "grading/mutants.py", *extra)


def differential(extra: list[str]) -> int:
    """Print each part's differential hidden tests: families, sentences, examples, time (--answers: judge them)."""
    return run("python", "grading/differential.py", *extra)


def docs(extra: list[str]) -> int:
    """Build the documentation site offline into docs/_build/html, every warning an error."""
    html = str(ROOT / "docs" / "_build" / "html")
    return run("python", "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs", html, *extra)


COMMANDS = {
    "lab": lab,
    "test": test,
    "build": build,
    "hub": hub,
    "mutants": mutants,
    "differential": differential,
    "docs": docs,
}

PASSED_ON = {
    "lab": "passed on to `jupyter lab` (e.g. --no-browser --port 8890)",
    "test": "passed on to each pytest run (e.g. -k stand_in -x); ruff and mypy take none",
    "build": "passed on to grading/build_notebooks.py: ASSIGNMENT ... to build only those, --check",
    "hub": "passed on to `python -m course_grade.hub`: --port N, --learners N",
    "mutants": "passed on to grading/mutants.py: [ASSIGNMENT [PART]] [--sample N]",
    "differential": "passed on to grading/differential.py: [ASSIGNMENT ...] [--answers]",
    "docs": "passed on to sphinx-build (e.g. -E to read every page again)",
}


def parser() -> argparse.ArgumentParser:
    """The command line: a command, then arguments passed on, unread, to the tool the command runs."""
    top = argparse.ArgumentParser(
        prog="python3 course.py",
        description="Create .venv with what the command needs (installed once per set), then run the command.",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, function in COMMANDS.items():
        summary = (function.__doc__ or "").split("\n")[0]
        extras = ", ".join(EXTRAS[name]) or "none: the course and JupyterLab alone"
        one = commands.add_parser(
            name, help=summary, description=f"{summary} Extras installed: {extras}.", add_help=False
        )
        one.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARGUMENT", help=PASSED_ON[name])
    return top


def main(argv: list[str]) -> int:
    """Parse the command's name (what follows it goes to its tool unread), set up, run it."""
    command = parser().parse_args(argv[:1]).command
    ensure_environment(EXTRAS[command])
    return COMMANDS[command](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
