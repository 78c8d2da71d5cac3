"""A test pack of hostile and broken submissions, built from an assignment's instructor and learner versions.

    python -m course_grade.selftest.hostile PACK [--course grading] [--assignment 01_envelope]

writes `PACK/<student>/<assignment>/...` in nbgrader's submitted layout, one student per case, then
`course-grade run PACK <assignment> --sandbox on` grades it. Every case states what its learner must get
with the sandbox on: the score ("full", "zero", "first": the points of the first exercise's tests and the
quiz's, for cases that break only the second exercise, "first-only" when that also loses the kernel, so nothing
after it runs, or "second") and the kinds of notes (see `course_grade.notes`).
An attack (course_grade/selftest/attacks.py) scores what the same notebook scores without it. Without the sandbox
some cases get other notes, and the attacks on classmates reach every grading run of the machine. The
pack is built, never stored: nothing here is a binary blob. Its cases are data (`course_grade.selftest.recipes`),
which `build` follows; the own-work cases and `other-assignment` depend on the assignment and are added here.
"""

from __future__ import annotations

import argparse
import ast
import copy
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from nbformat import NotebookNode

from course_grade.cells import cell_grade_id, is_quiz, is_test
from course_grade.course import REPOSITORY_COURSE, Course
from course_grade.notebooks import node, read, write
from course_grade.release.bundle import EditionError
from course_grade.release.library import for_assignment
from course_grade.selftest.attacks import attack
from course_grade.selftest.bypasses import ROUTES, bypass, reference_module
from course_grade.selftest.recipes import ODD_ID as ODD_ID
from course_grade.selftest.recipes import RECIPES, STDERR_WRAPPER, Case, Recipe

Notebook = NotebookNode


def solution_ids(notebook: Notebook) -> list[str]:
    """The grade_ids of the solution cells, in order."""
    return [
        cell_grade_id(cell) for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("solution")
    ]


def first_exercise_points(notebook: Notebook) -> float:
    """The points of the test cells between the first and the second solution cell."""
    seen, points = 0, 0.0
    for cell in notebook.cells:
        nbgrader = cell.metadata.get("nbgrader", {})
        seen += 1 if nbgrader.get("solution") else 0
        if seen == 1 and nbgrader.get("grade") and not nbgrader.get("solution"):
            points += float(nbgrader.get("points", 0))
    return points


def quiz_points(notebook: Notebook) -> float:
    """The points of the checkpoint quiz's test cells (every case of the pack keeps the instructor's answers)."""
    return sum(
        float(cell.metadata["nbgrader"].get("points", 0))
        for cell in notebook.cells
        if is_quiz(cell_grade_id(cell)) and cell.metadata["nbgrader"].get("grade")
    )


def _edit(notebook: Notebook, grade_id: str, change: Callable[[str], str]) -> Notebook:
    """A copy of the notebook whose cell `grade_id` has its source passed through `change`."""
    changed = copy.deepcopy(notebook)
    for cell in changed.cells:
        if cell_grade_id(cell) == grade_id:
            cell.source = change(cell.source)
    return changed


def _first_function(source: str) -> str | None:
    """The name of the first function a cell defines."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    return next((node.name for node in tree.body if isinstance(node, ast.FunctionDef)), None)


def build(course: Course, assignment: str, port: int = 9) -> dict[str, tuple[Case, Callable[[Path], object]]]:
    """Every case of the pack: student -> (case, a function writing its assignment folder).

    `port` is the loopback port the `loopback` case tries to reach (a test listens there and counts).
    """
    names = course.notebooks(assignment)
    name = names[0]
    instructor = read(course.folder("source", assignment=assignment) / f"{name}.ipynb")
    released = course.folder("release", assignment=assignment) / f"{name}.ipynb"
    if not released.exists():
        raise FileNotFoundError(f"{released} is missing: run `course-grade release {assignment}` first")
    learner = read(released)
    solutions = solution_ids(instructor)
    if len(solutions) < 2:
        raise ValueError(
            f"{assignment} needs two exercises (solution cells) for this pack; it has {len(solutions)}"
        )
    exercises = {"first": solutions[0], "second": solutions[1]}
    second = next(cell.source for cell in instructor.cells if cell_grade_id(cell) == exercises["second"])
    function = _first_function(second)
    values = {
        "stderr": STDERR_WRAPPER.format(name=function)
        if function
        else 'import sys\nprint("debug", file=sys.stderr)',
        "stub": next(cell.source for cell in learner.cells if cell_grade_id(cell) == exercises["second"]),
        "port": str(port),
    }
    versions = {"instructor": instructor, "learner": learner}
    recipes = [
        *RECIPES,
        *_own_work_recipes(instructor, exercises["first"], _against_edition(course, assignment)),
    ]
    cases = {r.case.student: (r.case, _make(r, versions, exercises, name, values)) for r in recipes}
    others = [other for other in course.assignments() if other != assignment]
    if others:
        other = others[0]
        foreign = course.folder("source", assignment=other) / f"{course.notebooks(other)[0]}.ipynb"
        case = Case("other-assignment", f"the notebook of {other}", "zero", ("other-assignment",))
        cases[case.student] = (case, lambda folder: shutil.copyfile(foreign, folder / f"{name}.ipynb"))
    return cases


def _make(
    recipe: Recipe,
    versions: dict[str, Notebook],
    exercises: dict[str, str],
    name: str,
    values: dict[str, str],
) -> Callable[[Path], object]:
    """The function writing `recipe`'s submission into an assignment folder (its notebook made now)."""
    filename = recipe.filename.format(name=name)
    if recipe.text is not None:
        text = recipe.text
        return lambda folder: (folder / filename).write_text(text, encoding="utf-8")

    def fill(code: str) -> str:
        for key, value in values.items():
            code = code.replace("{" + key + "}", value)
        return code

    def change(source: str) -> str:
        source = fill(recipe.replace) if recipe.replace else source
        source = fill(recipe.before) + "\n" + source if recipe.before else source
        source = attack(fill(recipe.attack)) + "\n" + source if recipe.attack else source
        return source + "\n" + fill(recipe.after) if recipe.after else source

    notebook = _with_tests(versions[recipe.start], recipe.tests)
    if recipe.replace or recipe.before or recipe.attack or recipe.after:
        notebook = _edit(notebook, exercises[recipe.cell], change)
    if recipe.markdown:
        notebook = copy.deepcopy(notebook)
        cell = node(cell_type="markdown", id="hostile-markdown", metadata={}, source=recipe.markdown)
        notebook.cells.insert(0, cell)
    return lambda folder: write(notebook, folder / filename)


def _with_tests(notebook: Notebook, change: str) -> Notebook:
    """A copy of `notebook` whose test cells are edited, deleted, duplicated or tagged (`Recipe.tests`)."""
    if not change:
        return notebook
    changed = copy.deepcopy(notebook)
    tests = [cell for cell in changed.cells if is_test(cell)]
    if change == "edited":
        for cell in tests:
            cell.source, cell.metadata.nbgrader["points"] = "pass", 100
    elif change == "deleted":
        changed.cells = [cell for cell in changed.cells if not is_test(cell)]
    elif change == "duplicated":
        twin = copy.deepcopy(tests[0])
        twin["id"] = f"{twin.get('id', 'cell')}-copy"[
            -64:
        ]  # a pasted cell gets a new id, never a new grade_id
        changed.cells.insert(next(i for i, cell in enumerate(changed.cells) if cell is tests[0]), twin)
    elif change == "tagged":
        for cell in tests:
            cell.metadata["tags"] = ["skip-execution", "raises-exception"]
    else:
        raise ValueError(f"unknown change to the test cells: {change!r}")
    return changed


def _against_edition(course: Course, assignment: str) -> bool:
    """Whether `course-grade` grades the assignment against its learners' library by default (its learners'
    notebooks import no key they are not given)."""
    publish = course.published_keys()
    try:
        for_assignment(
            assignment, publish, sorted(course.folder("release", assignment=assignment).glob("*.ipynb"))
        )
    except EditionError:
        return False
    return True


def _own_work_recipes(instructor: Notebook, first: str, edition: bool) -> list[Recipe]:
    """The trusted checks' cases: the first exercise answered by its reference through a hidden route.

    Graded against the learners' library (`edition`), the reference is not there to call: each route fails
    where it reaches for it, so only the source's own flag (and the rebound helper's) remains; with the
    instructor's library, the trusted checks also see the call."""
    function = _first_function(next(cell.source for cell in instructor.cells if cell_grade_id(cell) == first))
    module = reference_module(function) if function else None
    if function is None or module is None:
        return []
    recipes = []
    for student, (what, route) in ROUTES.items():
        if edition:
            kinds: tuple[str, ...] = ("flagged", "review") if route == "rebound" else ("flagged",)
        else:
            kinds = (
                ("flagged", "possible-tampering", "review") if route == "rebound" else ("flagged", "review")
            )
        recipes.append(Recipe(Case(student, what, "second", kinds), replace=bypass(route, function, module)))
    return recipes


def write_pack(course: Course, assignment: str, folder: Path, port: int = 9) -> list[Case]:
    """Write the pack into `folder` (nbgrader's submitted layout) and return its cases."""
    cases = []
    for student, (case, make) in build(course, assignment, port).items():
        target = folder / student / assignment
        target.mkdir(parents=True, exist_ok=True)
        make(target)
        cases.append(case)
    (folder / ".ipynb_checkpoints").mkdir(exist_ok=True)  # left behind by Jupyter: not a student
    return cases


def main(argv: list[str] | None = None) -> int:
    """Write the pack and list its cases."""
    parser = argparse.ArgumentParser(prog="python -m course_grade.selftest.hostile", description=main.__doc__)
    parser.add_argument("pack", type=Path, help="the folder to write the submissions into")
    parser.add_argument(
        "--course", type=Path, default=REPOSITORY_COURSE, help="the nbgrader course directory"
    )
    parser.add_argument("--assignment", help="the assignment to attack (default: the first one)")
    args = parser.parse_args(argv)
    course = Course.open(args.course)
    assignment = args.assignment or course.assignments()[0]
    for case in write_pack(course, assignment, args.pack):
        print(f"{case.student:24} {case.score:10} {','.join(case.kinds):18} {case.what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
