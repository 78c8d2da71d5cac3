"""`course-grade bundle OUT [ASSIGNMENT ...]`: the learners' edition an instructor hands out.

OUT holds the learners' notebooks (`notebooks/`, as `course.py build` regenerates them: no solution, no
hidden test), a learners' `course_lib` (every module but the keys the edition does not publish, and the
modules that import them), its published fixtures, a README whose two commands open the edition in
JupyterLab and check it (`edition.py`), and `edition.json`: `{"assignments": [...], "published_keys": [...]}`.
Nothing of `grading/` (solutions, hidden tests, wrong answers) is copied. A notebook that imports a module
the edition leaves out stops the bundle, naming the notebook, the import and the key.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import course_lib
from course_grade.release import template
from course_grade.release.imports import closure, graph, modules, needs, notebook_code
from course_grade.release.keys import BUILDS_ON, KEYS, owners, unpublished, with_prerequisites

LIBRARY = Path(course_lib.__file__).resolve().parent
"""The instructor's library, every key included."""
REPOSITORY = LIBRARY.parent
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
RUNTIME = ("jupyterlab", "ipywidgets", "jupyter_client", "openai", "anthropic")
"""The course's dependencies a learners' edition needs (their tested ranges are read from pyproject.toml)."""


class EditionError(Exception):
    """The edition asked for cannot be built as asked (the instructor's problem, said plainly)."""


@dataclass(frozen=True)
class Edition:
    """What a learners' edition holds."""

    assignments: tuple[str, ...]
    published_keys: tuple[str, ...]
    """Assignments whose keys the edition holds: asked for, or built on by one that is."""
    library: tuple[str, ...]
    """The course_lib modules it holds."""
    notes: tuple[str, ...] = ()
    """What the instructor should know (the keys published because an assignment builds on them)."""


def plan_edition(assignments: Iterable[str], publish: Iterable[str], notebooks: Path) -> Edition:
    """The edition of `assignments` publishing the keys of `publish`; EditionError if a notebook needs one left out."""
    chosen = tuple(assignments)
    published = published_for(chosen, publish)
    notes = [
        f"{assignment} builds on the keys of {', '.join(BUILDS_ON[assignment])}: this edition publishes them"
        for assignment in chosen if BUILDS_ON.get(assignment)
    ]  # fmt: skip
    left_out = unpublished(published)
    paths = []
    for assignment in chosen:
        path = notebooks / f"{assignment}.ipynb"
        if not path.is_file():
            raise EditionError(
                f"{path} is missing: regenerate the learners' versions (python3 course.py build)"
            )
        paths.append(path)
    problems = key_imports(paths, left_out)
    if problems:
        raise EditionError(
            "these notebooks import keys this edition does not publish (publish them with --publish-keys, or "
            "rewrite the notebook so that it needs no key):\n  " + "\n  ".join(problems)
        )
    kept = kept_modules(left_out)
    return Edition(chosen, tuple(published), kept, tuple(notes))


def published_for(assignments: Iterable[str], publish: Iterable[str]) -> list[str]:
    """The assignments whose keys an edition of `assignments` holds: those of `publish` (checked to exist), those
    the assignments build on, and what those build on in turn."""
    asked = list(publish)
    unknown = sorted(set(asked) - set(KEYS))
    if unknown:
        raise EditionError(
            f"no such assignment to publish the key of: {', '.join(unknown)} (known: {', '.join(KEYS)})"
        )
    return with_prerequisites([*asked, *(name for one in assignments for name in BUILDS_ON.get(one, ()))])


def kept_modules(left_out: set[str]) -> tuple[str, ...]:
    """The library's modules an edition leaving out the key modules `left_out` holds: those reaching none."""
    files = modules(LIBRARY)
    edges = graph(files)
    return tuple(name for name in files if not closure(name, edges) & left_out)


def key_imports(paths: Iterable[Path], left_out: set[str]) -> list[str]:
    """What the learners' notebooks at `paths` import that is, or needs, one of the key modules `left_out`,
    one line each ("notebooks/x.ipynb: `import ...` needs course_lib.y (the key of z)"); empty when nothing.
    Raises EditionError on a notebook that holds a solution or a hidden test (not a learners' version)."""
    files = modules(LIBRARY)
    edges = graph(files)
    problems = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for marker in MARKERS:
            if marker in text:
                raise EditionError(f"{path} holds {marker!r}: it is not a learners' version")
        for need in needs(notebook_code(json.loads(text)), files):
            missing = sorted(closure(need.module, edges) & left_out)
            if need.module in files and missing:
                keys = "; ".join(f"{key} (the key of {', '.join(owners(key))})" for key in missing)
                problems.append(f"notebooks/{path.name}: `{need.statement}` needs {keys}")
    return list(dict.fromkeys(problems))


def build(out: Path, edition: Edition, notebooks: Path) -> None:
    """Write `edition` into the empty (or absent) folder `out`."""
    if out.exists() and any(out.iterdir()):
        raise EditionError(f"{out} is not empty: bundle into a new folder")
    files = modules(LIBRARY)
    (out / "notebooks").mkdir(parents=True, exist_ok=True)
    for assignment in edition.assignments:
        shutil.copyfile(notebooks / f"{assignment}.ipynb", out / "notebooks" / f"{assignment}.ipynb")
    for name in edition.library:
        target = out / files[name].relative_to(REPOSITORY)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files[name], target)
    for data in [*(LIBRARY / "fixtures").glob("*.json"), LIBRARY / "py.typed"]:
        if data.is_file() and "course_lib.fixtures" in edition.library:
            target = out / data.relative_to(REPOSITORY)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(data, target)
    record = {"assignments": list(edition.assignments), "published_keys": list(edition.published_keys)}
    (out / "edition.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    (out / "README.md").write_text(
        template.readme(edition.assignments, edition.published_keys, edition.notes)
    )
    (out / "edition.py").write_text(template.SCRIPT, encoding="utf-8")
    (out / "pyproject.toml").write_text(template.pyproject(_requirements()), encoding="utf-8")


def _requirements() -> list[str]:
    """The edition's dependencies, with the course's tested ranges where its pyproject.toml is at hand."""
    path = REPOSITORY / "pyproject.toml"
    if not path.is_file():
        return list(RUNTIME)
    declared = tomllib.loads(path.read_text(encoding="utf-8"))["project"]["dependencies"]
    return [
        spec
        for name in RUNTIME
        for spec in declared
        if spec.split(">")[0].split("=")[0].split("<")[0] == name
    ]
