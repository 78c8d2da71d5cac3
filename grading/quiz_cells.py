"""Write each instructor notebook's checkpoint quiz from `course_lib.quiz` (questions) and its key (answers).

`python3 course.py build NAME` calls `update` before it executes the notebook, and `build --check` fails when a
notebook's quiz differs from what `cells` makes of the data, so the questions are written in one place. The quiz
replaces the notebook's `## Checkpoint quiz` markdown cell (and the quiz cells a previous build wrote):

1. the questions, in markdown, with no answer (`quiz`);
2. the self-check, `self_check("01_envelope")`: widgets in JupyterLab, one fixed line headless (`quiz-self-check`);
3. the answer cell, an nbgrader solution cell with grade_id `quiz_01` (the notebook's number: see
   `course_grade.cells.quiz_id`) holding `q1 = "C"`, ... (the learners' version holds `q1 = None`, see
   `course_grade.release.stubs.quiz_stub`);
4. one test cell per question (`quiz_01_q1`, 1 point): a visible check of the answer's form, and a hidden check of
   its value under a `# rule:` comment naming the idea, shown to a learner who misses it (never the value).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from course_grade.cells import quiz_id
from course_lib.quiz import QUIZZES, Key, Question, answers

HEADING = "## Checkpoint quiz"
KINDS = {
    "choices": " *(a list of letters: every one that applies)*",
    "number": " *(a whole number)*",
    "choice": "",
}


def _markdown(questions: tuple[Question, ...]) -> str:
    lines = [
        f"{HEADING} ({len(questions)} points)",
        "",
        "Answer each question with a value in the answer cell below the self-check: a letter (`q1 = \"B\"`), a list "
        "of letters (`q2 = [\"A\", \"C\"]`) or a whole number (`q3 = 4`), as the question asks; then run that cell "
        "and the tests under it.",
        "Each question is worth 1 point.",
        "The tests you see check only the form of an answer; hidden tests check its value, and a wrong answer's "
        "feedback names the idea it missed.",
        "Where there is code, run it in a scratch cell to check.",
        "In JupyterLab the self-check cell shows the same questions with a Check button; what you click there "
        "never changes your answers.",
    ]  # fmt: skip
    for number, question in enumerate(questions, start=1):
        lines += ["", f"**{number}.** {question.text}{KINDS[question.kind]}"]
        if question.options:
            lines.append("")
            lines += [
                f"- **{letter}.** {text}"
                for letter, text in zip(question.letters, question.options, strict=True)
            ]
    return "\n".join(lines)


def _value(value: object) -> str:
    return repr(value).replace("'", '"')


def _answer_cell(questions: tuple[Question, ...], keys: tuple[Key, ...]) -> str:
    lines = [
        "# Your answers: replace each None with a value, then run this cell and the tests below.",
        "### BEGIN SOLUTION",
    ]
    lines += [
        f"q{number} = {_value(key.value)}  # {question.form()}"
        for number, (question, key) in enumerate(zip(questions, keys, strict=True), start=1)
    ]
    return "\n".join([*lines, "### END SOLUTION"])


def _wrong(question: Question, value: object) -> object:
    """Another answer of the same form: the next letter, the number plus one, the list with its first letter
    toggled."""
    if question.kind == "number":
        return int(value) + 1  # type: ignore[call-overload]
    if question.kind == "choice":
        return question.letters[(question.letters.index(str(value)) + 1) % len(question.letters)]
    first = question.letters[0]
    chosen = list(value)  # type: ignore[call-overload]
    return [letter for letter in chosen if letter != first] if first in chosen else [first, *chosen]


def wrong_answer_cells(notebook: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(why, answer cell source, grade_ids of the tests it must fail) for the quiz's published wrong answers."""
    questions, keys = QUIZZES[notebook], answers(notebook)
    assert keys is not None, f"{notebook}: its quiz key is missing"
    tests = tuple(f"{quiz_id(notebook)}_q{number}" for number in range(1, len(questions) + 1))
    found = [
        (
            "leaves every question of the quiz unanswered (None)",
            "\n".join(
                f"q{number} = None" for number in range(1, len(questions) + 1)
            ),  # the learners' stub, bare
            tests,
        )
    ]
    for number, question in enumerate(questions, start=1):
        changed = list(keys)
        changed[number - 1] = Key(_wrong(question, keys[number - 1].value), keys[number - 1].rule)
        why = f"answers quiz question {number} wrongly"
        code = "\n".join(
            line for line in _answer_cell(questions, tuple(changed)).split("\n") if "SOLUTION" not in line
        )
        found.append((why, code, (tests[number - 1],)))
    return found


def _form_check(name: str, question: Question) -> str:
    letters = "(" + ", ".join(f'"{letter}"' for letter in question.letters) + ")"
    if question.kind == "number":
        return f"type({name}) is int"
    if question.kind == "choice":
        return f"{name} in {letters}"
    return f"type({name}) is list and all(letter in {letters} for letter in {name})"


def _test_cell(number: int, question: Question, key: Key) -> str:
    name = f"q{number}"
    got = f"sorted({name})" if question.kind == "choices" else name
    want = _value(sorted(key.value) if isinstance(key.value, list) else key.value)
    form = question.form().replace('"', "")
    return "\n".join([
        f'"""Answer question {number} with {form}."""',
        f'assert {name} is not None, "question {number} is not answered yet: replace None in the answer cell"',
        f'assert {_form_check(name, question)}, f"question {number}: answer with {form}, got {{{name}!r}}"',
        "### BEGIN HIDDEN TESTS",
        f"# rule: {key.rule}",
        f"assert {got} == {want}",
        "### END HIDDEN TESTS",
    ])  # fmt: skip


def _nbgrader(grade_id: str, *, solution: bool = False, points: int = 0) -> dict[str, object]:
    marks: dict[str, object] = {
        "grade": points > 0, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
        "solution": solution, "task": False,
    }  # fmt: skip
    if points:
        marks["points"] = points
    return {"nbgrader": marks}


def cells(notebook: str) -> list[nbformat.NotebookNode]:
    """The quiz cells of `notebook`, from its questions and its key."""
    questions, keys = QUIZZES[notebook], answers(notebook)
    assert keys is not None and len(keys) == len(questions), (
        f"{notebook}: its quiz key is missing or incomplete"
    )
    made = [
        nbformat.v4.new_markdown_cell(_markdown(questions), id="quiz"),
        nbformat.v4.new_code_cell(
            f'from course_lib.quiz import self_check\n\nself_check("{notebook}")  # never changes q1, q2, ...',
            id="quiz-self-check",
        ),
        nbformat.v4.new_code_cell(
            _answer_cell(questions, keys),
            id="quiz-answers",
            metadata=_nbgrader(quiz_id(notebook), solution=True),
        ),
    ]
    for number, (question, key) in enumerate(zip(questions, keys, strict=True), start=1):
        made.append(
            nbformat.v4.new_code_cell(
                _test_cell(number, question, key),
                id=f"quiz-q{number}",
                metadata=_nbgrader(f"{quiz_id(notebook)}_q{number}", points=1),
            )
        )
    return made


def _is_quiz_cell(cell: nbformat.NotebookNode) -> bool:
    return str(cell.get("id", "")).startswith("quiz") or (
        cell.cell_type == "markdown" and cell.source.startswith(HEADING)
    )


def _same(one: nbformat.NotebookNode, two: nbformat.NotebookNode) -> bool:
    return (one.cell_type, one.source, one.get("id"), one.metadata) == (
        two.cell_type,
        two.source,
        two.get("id"),
        two.metadata,
    )


def stale(path: Path) -> bool:
    """Whether the quiz of the notebook at `path` differs from what `cells` makes of the data."""
    notebook = nbformat.read(path, as_version=4)
    found = [cell for cell in notebook.cells if _is_quiz_cell(cell)]
    wanted = cells(path.stem)
    return len(found) != len(wanted) or not all(_same(a, b) for a, b in zip(found, wanted, strict=True))


def update(path: Path) -> bool:
    """Write the quiz into the notebook at `path` in place of its old one (keeping outputs of unchanged cells);
    return whether anything changed. One read-modify-write."""
    if not stale(path):
        return False
    notebook = nbformat.read(path, as_version=4)
    at = next(i for i, cell in enumerate(notebook.cells) if _is_quiz_cell(cell))
    kept = [cell for cell in notebook.cells if not _is_quiz_cell(cell)]
    notebook.cells = kept[:at] + cells(path.stem) + kept[at:]
    nbformat.validate(notebook)
    nbformat.write(notebook, path)
    return True


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, verify) the quizzes of the named notebooks."""
    parser = argparse.ArgumentParser(prog="python3 -m grading.quiz_cells", description=main.__doc__)
    parser.add_argument("names", nargs="+")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    source = Path(__file__).resolve().parent / "source"
    paths = [source / name / f"{name}.ipynb" for name in args.names]
    if args.check:
        found = [path.stem for path in paths if stale(path)]
        print("\n".join(f"{name}: its quiz is stale" for name in found))
        return 1 if found else 0
    for path in paths:
        print(f"{path.stem}: {'quiz written' if update(path) else 'quiz up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
