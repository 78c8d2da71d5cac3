"""The library a submission is graded against: the learners' edition of its assignment, as files.

Grading runs learners' code in two places: nbgrader's kernel and the trusted checks' learner process. With
the instructor's library in view there, a submission can reach the reference at run time (import it, walk a
function's `__globals__`, read its source), so by default both see only the learners' edition of the
assignment: the library without the keys the assignment's learners do not have (its own and those of the
assignments still open; the keys it builds on and those the course publishes are in). The trusted side,
the grader's own process, keeps the instructor's library: the hidden tests that need the reference run
there and nowhere else (`course_grade.score.trusted`).

`for_assignment` plans it (or says why the assignment cannot be graded so: its learners' notebooks import a
key), `write_library` writes it into a job's scratch folder, and `kernel_argv`/`learner_argv` start a Python that
imports only from it and the installed third-party packages (`-S`: the course's editable install is not
loaded). The files travel with every grading task, so a remote worker needs no edition of its own.
"""

from __future__ import annotations

import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from course_grade.release.bundle import (
    LIBRARY,
    REPOSITORY,
    EditionError,
    kept_modules,
    key_imports,
    published_for,
)
from course_grade.release.imports import modules
from course_grade.release.keys import KEYS, unpublished

PIPE = REPOSITORY / "course_grade" / "score" / "trusted" / "pipe"
"""The learner half of the trusted checks (and the pipe it talks over): it runs beside the learner's code."""

PACKAGES = ("course_grade", "course_grade/score", "course_grade/score/trusted")
"""The packages around it, each laid out as an `__init__.py` of one docstring (theirs may import more one day)."""


@dataclass(frozen=True)
class GradingLibrary:
    """The learners' library one assignment is graded against."""

    assignment: str
    published_keys: tuple[str, ...]
    """The assignments whose keys it holds (those the assignment builds on, and those the course publishes)."""
    files: Mapping[str, bytes] = field(default_factory=dict)
    """Path relative to the folder it is laid out in (`course_lib/...`, `course_grade/score/trusted/...`) -> bytes."""


def for_assignment(assignment: str, publish: Iterable[str], notebooks: Sequence[Path]) -> GradingLibrary:
    """The library `assignment` is graded against, its learners' notebooks being `notebooks` and the course
    publishing the keys of `publish`; EditionError when a notebook needs a key it leaves out."""
    if assignment not in KEYS:
        raise EditionError(f"{assignment} declares no key (course_grade/release/keys.py)")
    published = published_for([assignment], publish)
    left_out = unpublished(published)
    problems = key_imports(notebooks, left_out)
    if problems:
        raise EditionError("; ".join(problems))
    files = modules(LIBRARY)
    kept = kept_modules(left_out)
    found = {str(files[name].relative_to(REPOSITORY)): files[name].read_bytes() for name in kept}
    if "course_lib.fixtures" in kept:
        for data in [*(LIBRARY / "fixtures").glob("*.json"), LIBRARY / "py.typed"]:
            if data.is_file():
                found[str(data.relative_to(REPOSITORY))] = data.read_bytes()
    for package in PACKAGES:
        found[f"{package}/__init__.py"] = b'"""The learner half of the trusted checks only."""\n'
    for path in sorted(PIPE.glob("*.py")):
        found[str(path.relative_to(REPOSITORY))] = path.read_bytes()
    return GradingLibrary(assignment, tuple(published), found)


def write_library(library: GradingLibrary, folder: Path) -> Path:
    """Write the library's files under `folder` (created); return it."""
    for relative, data in library.files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def search_path(folder: Path) -> list[str]:
    """The module search path of a Python graded against the library in `folder`: it, then the installed
    third-party packages (without their `.pth` files, so no editable install of the course)."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys([str(folder), paths["purelib"], paths["platlib"]]))
