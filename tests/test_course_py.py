"""course.py installs per command: `lab` what a learner needs and nothing of the tests, the hub, the
agent frameworks or the grader; every other command adds the extras it needs, once (issue 44)."""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import course
from course_grade import __main__ as entry
from course_grade.release import bundle

PYPROJECT = tomllib.loads((course.ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXTRAS = PYPROJECT["optional-dependencies"]


def _names(specs: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(spec).name) for spec in specs}


def _closure(specs: list[str]) -> set[str]:
    """Every distribution these requirements pull in, as installed here (markers for this machine, no extras)."""
    seen: set[str] = set()
    todo = [Requirement(spec) for spec in specs]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        extras = requirement.extras
        for spec in importlib.metadata.requires(requirement.name) or []:
            needed = Requirement(spec)
            marker = needed.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in extras or {""}):
                needed.marker = None
                todo.append(needed)
    return seen


def test_a_learners_install_pulls_in_nothing_of_the_other_extras() -> None:
    """Checked on what is installed here, dependencies of dependencies included (nbgrader bringing dask would fail)."""
    learner = _closure(PYPROJECT["dependencies"])
    for extra in ("grade", "test", "hub", "frameworks", "docs"):
        assert not learner & _names(EXTRAS.get(extra, [])) - {"psutil"}, extra  # ipykernel needs psutil
    assert not learner & {"pytest", "hypothesis", "jupyterhub", "dask", "distributed", "matplotlib", "sphinx"}


def test_a_learners_install_holds_what_the_notebooks_import() -> None:
    imported = {"jupyterlab", "notebook", "nbgrader", "ipywidgets", "openai", "anthropic", "jsonschema"}
    assert imported <= _names(PYPROJECT["dependencies"])


def test_each_command_names_extras_that_exist() -> None:
    assert set(course.EXTRAS) == set(course.COMMANDS)
    assert course.EXTRAS["lab"] == ()
    for command, extras in course.EXTRAS.items():
        assert set(extras) <= set(EXTRAS), command
        assert set(extras) <= set(course.EXTRAS["test"]), f"the test suite covers {command}"
    assert "grade" in course.EXTRAS["build"] and "hub" in course.EXTRAS["hub"]


@pytest.fixture
def pips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """course.py's installs, recorded instead of run, into a .venv in tmp_path that already has its python."""
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    monkeypatch.setattr(course, "ROOT", tmp_path)
    monkeypatch.setattr(course, "VENV", venv)
    monkeypatch.setattr(course, "BIN", venv / "bin")
    calls: list[list[str]] = []

    def record(command: list[str], **_: Any) -> None:
        calls.append(command)

    monkeypatch.setattr(course.subprocess, "run", record)
    return calls


def test_a_second_run_installs_nothing(pips: list[list[str]]) -> None:
    course.ensure_environment(())
    course.ensure_environment(())
    assert [call[-1] for call in pips] == ["."]


def test_each_set_installs_once_and_a_bigger_set_covers_a_smaller(pips: list[list[str]]) -> None:
    course.ensure_environment(("grade",))
    course.ensure_environment(("test", "grade"))
    course.ensure_environment(("grade",))
    course.ensure_environment(())
    course.ensure_environment(("grade", "test"))
    assert [call[-1] for call in pips] == [".[grade]", ".[grade,test]"]


def test_a_changed_pyproject_installs_again(pips: list[list[str]]) -> None:
    course.ensure_environment(("grade",))
    (course.ROOT / "pyproject.toml").write_text("[project]\nname = 'changed'\n")
    course.ensure_environment(())
    assert [call[-1] for call in pips] == [".[grade]", "."]
    assert [p.name for p in course.VENV.glob(".installed-*")] == [f".installed-{course._stamp_digest()}"]


def test_course_grade_says_what_to_install_without_its_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(entry, "missing_grader_modules", lambda: ["dask", "hypothesis"])
    assert entry.main(["--help"]) == 1
    error = capsys.readouterr().err
    assert "dask, hypothesis" in error and "pip install -e '.[grade]'" in error


def test_course_grade_checks_every_module_of_its_extra() -> None:
    assert _names(EXTRAS["grade"]) <= {canonicalize_name(m) for m in entry.GRADER_MODULES}
    assert entry.missing_grader_modules() == []  # the test environment has the grader


def test_the_learners_edition_finds_its_ranges_in_a_learners_install() -> None:
    """`course-grade bundle` copies the tested ranges of its runtime from the base dependencies."""
    assert _names(bundle._requirements()) == {canonicalize_name(name) for name in bundle.RUNTIME}
