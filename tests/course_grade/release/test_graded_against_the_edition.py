"""Grading against the learners' edition: no key of an open assignment in the learner's kernel or the trusted
checks' learner process, the hidden tests on the trusted side only, the honest learner's marks unchanged.

One class of 01 is graded once, sandboxed: the instructor's solution, three attempts at reaching the
reference, a learner's code that prints every cell it runs, and a published wrong answer for each set of cells
they fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from course_grade.cells import visible
from course_grade.course import Course
from course_grade.notebooks import read
from course_grade.notes import load_notes
from course_grade.release.bundle import EditionError
from course_grade.release.library import for_assignment, search_path
from course_grade.run.kernels import KernelCommandError, without_site
from course_grade.run.workers import HIDDEN_FAILED, hidden_failures
from course_grade.score.gradebook import cell_scores, scores
from course_grade.score.hidden import hidden_lines
from course_grade.score.trusted.runner import CellVerdict, NotebookVerdict
from grading.wrong_answers import WrongAnswer, published
from tests.support.grading_helpers import Run, course_grade, fresh_course, write_class

pytestmark = [pytest.mark.timeout(900), pytest.mark.xdist_group("course_grade")]

ASSIGNMENT = "01_envelope"
NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"
PRINTER = "get_ipython().input_transformers_post.append(lambda lines: (print(''.join(lines)), lines)[1])\n"
REACHES = {
    "importer": "from course_lib.envelope import parse_envelope\n",
    "reader": (
        "import pathlib, course_lib\n"
        "exec((pathlib.Path(course_lib.__file__).parent / 'envelope.py').read_text(), globals())\n"
    ),
    "installer": (  # the course's editable install, brought back by processing the .pth files -S skipped
        "import site, sys, sysconfig\n"
        "for name in [m for m in sys.modules if m.startswith('course_lib')]:\n"
        "    del sys.modules[name]\n"
        "site.addsitedir(sysconfig.get_paths()['purelib'])\n"
        "from course_lib.envelope import parse_envelope\n"
    ),
}
"""Solution cells that take `parse_envelope` from the instructor's library instead of writing it."""


def _with_cell(source: nbformat.NotebookNode, grade_id: str, code: str) -> nbformat.NotebookNode:
    """A copy of `source` whose cell `grade_id` holds `code`."""
    notebook = nbformat.from_dict(json.loads(nbformat.writes(source)))
    [cell] = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    cell.source = code
    return notebook


def one_for_each_set_of_cells(answers: list[WrongAnswer]) -> list[WrongAnswer]:
    """The first wrong answer for each set of cells they fail: every way a class loses points here, at less than
    half the grading (each answer's own cells are checked in the forked sweep, tests/notebooks/test_notebooks.py)."""
    first: dict[tuple[str, ...], WrongAnswer] = {}
    for answer in answers:
        first.setdefault(tuple(sorted(answer.fails)), answer)
    return list(first.values())


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run, dict[str, str]]:
    root = tmp_path_factory.mktemp("edition-graded")
    course = fresh_course(root)
    assert course_grade(course, "release", ASSIGNMENT).returncode == 0
    solution = read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    first = next(c for c in solution.cells if c.metadata.get("nbgrader", {}).get("solution"))
    graded_cell = first.metadata["nbgrader"]["grade_id"]
    class_ = {"honest": solution, "printer": _with_cell(solution, graded_cell, PRINTER + first.source)}
    class_ |= {name: _with_cell(solution, graded_cell, code) for name, code in REACHES.items()}
    wrong = {
        f"wrong{n:02d}": answer for n, answer in enumerate(one_for_each_set_of_cells(published(ASSIGNMENT)))
    }
    class_ |= {name: _with_cell(solution, answer.cell, answer.code) for name, answer in wrong.items()}
    pack = write_class(root / "pack", ASSIGNMENT, class_)
    run = course_grade(course, "run", str(pack), ASSIGNMENT, "--jobs", "2", "--sandbox", "on", cwd=root)
    assert run.returncode == 0, run.stderr
    return root, run, {name: ",".join(answer.fails) for name, answer in wrong.items()}


def _scores(run: Run, student: str) -> dict[str, float | None]:
    """grade_id -> the score of one student's cell."""
    table = cell_scores(run.db_url, Course.open(run.course).course_id)
    return {key[3]: value for key, value in table.items() if key[1] == student}


def _autograded(run: Run, student: str) -> str:
    return (run.course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text(
        encoding="utf-8"
    )


def test_the_run_says_what_each_assignment_is_graded_against(
    graded: tuple[Path, Run, dict[str, str]],
) -> None:
    assert f"{ASSIGNMENT}: graded against its learners' library (keys published: none)" in graded[1].stdout


def test_the_honest_learner_keeps_full_marks_and_no_note(graded: tuple[Path, Run, dict[str, str]]) -> None:
    _, run, _ = graded
    score, maximum = scores(run.db_url, Course.open(run.course).course_id, ASSIGNMENT, ["honest"])["honest"]
    assert maximum > 0 and score == maximum
    assert not load_notes(run.course / "grading_notes" / "honest" / f"{ASSIGNMENT}.json")


@pytest.mark.parametrize("student", sorted(REACHES))
def test_a_learner_reaching_for_the_reference_finds_none(
    graded: tuple[Path, Run, dict[str, str]], student: str
) -> None:
    _, run, _ = graded
    assert "course_lib.envelope" in _autograded(run, student) or "envelope.py" in _autograded(run, student)
    honest, reached = _scores(run, "honest"), _scores(run, student)
    assert sum(v or 0 for v in reached.values()) < sum(v or 0 for v in honest.values())
    assert all(reached[cell] == 0 for cell in reached if cell.startswith("test_parse_envelope"))


def test_no_hidden_test_enters_the_learners_kernel_or_feedback(
    graded: tuple[Path, Run, dict[str, str]],
) -> None:
    _, run, _ = graded
    source = read(run.course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    shown = "\n".join(visible(cell.source) for cell in source.cells)  # a solution may share a hidden line
    secret = {line for cell in source.cells for line in hidden_lines(cell.source) if len(line) >= 12}
    secret = {line for line in secret if line not in shown}
    autograded = _autograded(run, "printer")
    feedback = "".join(
        p.read_text(encoding="utf-8") for p in (run.course / "feedback" / "printer").rglob("*.html")
    )
    assert secret and "parse_envelope" in autograded and feedback
    leaked = [line for line in sorted(secret) if json.dumps(line)[1:-1] in autograded or line in feedback]
    assert leaked == []


def test_each_wrong_answer_loses_its_cells_without_a_tampering_note(
    graded: tuple[Path, Run, dict[str, str]],
) -> None:
    _, run, wrong = graded
    for student, fails in wrong.items():
        scores = _scores(run, student)
        assert [cell for cell in fails.split(",") if scores.get(cell)] == [], student
        kinds = {
            note.kind for note in load_notes(run.course / "grading_notes" / student / f"{ASSIGNMENT}.json")
        }
        assert "possible-tampering" not in kinds, student


def test_a_failing_hidden_test_shows_one_line_and_scores_zero(
    graded: tuple[Path, Run, dict[str, str]],
) -> None:
    _, run, wrong = graded
    shown = []
    for student in wrong:
        notebook = json.loads(_autograded(run, student))
        scores = _scores(run, student)
        for cell in notebook["cells"]:
            for output in cell.get("outputs", []):
                if output.get("ename") == HIDDEN_FAILED:
                    shown.append(output["evalue"])
                    assert scores[cell["metadata"]["nbgrader"]["grade_id"]] == 0
    assert shown and all(line.startswith("hidden test ") and " of " in line for line in shown), shown


# The parts, without a class to grade.


def test_the_library_holds_no_key_of_the_assignment_until_it_is_published() -> None:
    notebooks = [NOTEBOOKS / f"{ASSIGNMENT}.ipynb"]
    closed = for_assignment(ASSIGNMENT, [], notebooks)
    opened = for_assignment(ASSIGNMENT, [ASSIGNMENT], notebooks)
    assert "course_lib/envelope.py" not in closed.files and "course_lib/envelope.py" in opened.files
    assert (
        "course_lib/standin.py" in closed.files
        and "course_grade/score/trusted/pipe/learner.py" in closed.files
    )
    assert not any(name.startswith("grading/") for name in closed.files)


def test_a_learners_notebook_importing_a_key_cannot_be_graded_against_the_library(tmp_path: Path) -> None:
    notebook = new_notebook(cells=[new_code_cell("from course_lib import envelope\n")])
    nbformat.write(notebook, tmp_path / f"{ASSIGNMENT}.ipynb")
    with pytest.raises(EditionError, match=r"`from course_lib import envelope` needs course_lib\.envelope"):
        for_assignment(ASSIGNMENT, [], [tmp_path / f"{ASSIGNMENT}.ipynb"])


def test_publishing_the_key_of_an_unknown_assignment_is_refused_as_the_bundle_refuses_it() -> None:
    with pytest.raises(EditionError, match=r"no such assignment to publish the key of: 01_envelop \(known: "):
        for_assignment(ASSIGNMENT, ["01_envelop"], [NOTEBOOKS / f"{ASSIGNMENT}.ipynb"])


def test_the_learners_python_searches_the_library_first(tmp_path: Path) -> None:
    path = search_path(tmp_path)
    assert path[0] == str(tmp_path) and all(Path(entry).is_absolute() for entry in path)


def test_a_kernel_that_is_not_python_cannot_be_graded_against_the_library() -> None:
    assert without_site(["/usr/bin/python3", "-m", "ipykernel_launcher"])[:2] == ["/usr/bin/python3", "-S"]
    with pytest.raises(KernelCommandError, match="must start Python"):
        without_site(["/usr/bin/R", "--slave"])


def _notebook(*cells: dict[str, object]) -> bytes:
    return json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _test_cell(grade_id: str, outputs: list[dict[str, object]]) -> dict[str, object]:
    meta = {"nbgrader": {"grade": True, "solution": False, "grade_id": grade_id, "points": 1}}
    return {"cell_type": "code", "source": "assert True", "metadata": meta, "outputs": outputs}


def test_hidden_failures_marks_only_the_cells_whose_hidden_tests_failed_or_did_not_run() -> None:
    error = {"output_type": "error", "ename": "AssertionError", "evalue": "visible", "traceback": []}
    data = _notebook(
        _test_cell("passed", []), _test_cell("hidden", []), _test_cell("visible", []),
        _test_cell("kernel", [error]), _test_cell("unchecked", []),
    )  # fmt: skip
    verdict = NotebookVerdict("nb", (
        CellVerdict("passed", True),
        CellVerdict("hidden", False, "AssertionError: 42", "hidden test 2 of 3 failed"),
        CellVerdict("visible", False, "AssertionError: 1"),
        CellVerdict("kernel", False, "x", "hidden test 1 of 1 failed"),
        CellVerdict("unchecked", None, "the trusted setup failed"),
    ))  # fmt: skip
    cells = json.loads(hidden_failures(data, (verdict,), "nb"))["cells"]
    shown = {
        cell["metadata"]["nbgrader"]["grade_id"]: [o["evalue"] for o in cell["outputs"]] for cell in cells
    }
    assert shown["passed"] == [] and shown["visible"] == [] and shown["kernel"] == ["visible"]
    assert shown["hidden"] == ["hidden test 2 of 3 failed"] and "42" not in json.dumps(cells)
    assert shown["unchecked"] == ["its hidden tests could not be run; an instructor will look at it"]
