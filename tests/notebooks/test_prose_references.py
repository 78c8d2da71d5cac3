"""Every place a notebook's text points at is there: a quiz question, a Part, a numbered section, a test cell.

A learner who reads "the quiz's question 7 asks ..." looks for it; when the quiz has six, the sentence costs
them time and trust. Each instructor notebook's text (markdown, and the comments and strings of its code) is
read for "question N", "Part X", "section N" and a backticked test cell's grade_id, and each is looked up in
the notebook it names: this one, or another when the reference says so ("notebook 03's Part A", "03's
section 5"). A section of a document outside the course ("RFC 8259, section 4") is not one of ours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import nbformat
import pytest

from course_lib.quiz import QUIZZES
from grading.build_notebooks import GRADING, assignments

OTHER = r"(?:(?:notebooks? )?(?P<other>\d\d)'s )?"
"""An optional "notebook 03's " or "03's " before a reference: it points into that notebook."""

REFERENCES = re.compile(
    OTHER
    + r"(?:(?P<kind>[Qq]uestions?|Parts?|[Ss]ections?) "
    + r"(?P<first>\d+|[A-H])\b(?:(?: and| to|,| or) (?P<last>\d+|[A-H])\b(?!'s))?"
    + r"|`(?P<cell>test_\w+)`)"
)
"""A reference to a question, part or section (one, or two joined by "and", "to", "or"), or to a test cell."""


@dataclass(frozen=True)
class Targets:
    """What one notebook holds that its text may point at."""

    questions: int
    parts: frozenset[str]
    sections: frozenset[str]
    cells: frozenset[str]


def targets(assignment: str) -> Targets:
    notebook = nbformat.read(GRADING / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    headings = [
        line
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]
    return Targets(
        questions=len(QUIZZES[assignment]),
        parts=frozenset(m.group(1) for h in headings if (m := re.match(r"## Part ([A-Z])\b", h))),
        sections=frozenset(m.group(1) for h in headings if (m := re.match(r"## (\d+) ·", h))),
        cells=frozenset(
            cell.metadata["nbgrader"]["grade_id"] for cell in notebook.cells if "nbgrader" in cell.metadata
        ),
    )


TARGETS = {assignment: targets(assignment) for assignment in assignments()}
BY_NUMBER = {assignment[:2]: assignment for assignment in TARGETS}


def _expand(first: str, last: str | None, joined_by: str) -> list[str]:
    if last is None:
        return [first]
    if " to " in joined_by and first.isdigit() == last.isdigit():
        if first.isdigit():
            return [str(n) for n in range(int(first), int(last) + 1)]
        return [chr(n) for n in range(ord(first), ord(last) + 1)]
    return [first, last]


def dangling(assignment: str, text: str) -> list[str]:
    """The references in `text`, written in `assignment`, to something that is not there."""
    problems = []
    for line in text.splitlines():
        for found in REFERENCES.finditer(line):
            kind = (found["kind"] or "cell").lower().rstrip("s")
            if kind == "section" and "RFC" in line[: found.start()]:
                continue  # a section of another document
            other = found["other"]
            where = BY_NUMBER.get(other, "") if other else assignment
            if not where:
                problems.append(f"{found[0]!r}: there is no notebook {other}")
                continue
            held = TARGETS[where]
            names = [found["cell"]] if found["cell"] else _expand(found["first"], found["last"], found[0])
            for name in names:
                present = {
                    "question": name.isdigit() and 1 <= int(name) <= held.questions,
                    "part": name in held.parts,
                    "section": name in held.sections,
                    "cell": name in held.cells,
                }[kind]
                if not present:
                    problems.append(f"{found[0]!r}: {where} has no {kind} {name}")
    return problems


@pytest.mark.parametrize("assignment", sorted(TARGETS))
def test_every_question_part_section_and_cell_the_text_names_exists(assignment: str) -> None:
    notebook = nbformat.read(GRADING / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    problems = [
        f"cell {index}: {problem}"
        for index, cell in enumerate(notebook.cells)
        for problem in dangling(assignment, cell.source)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("The quiz's question 7 asks you to check it.", "04_wire has no question 7"),
        ("Parts A to G write it.", "04_wire has no part G"),
        ("as in section 9.", "04_wire has no section 9"),
        ("notebook 02's Part C does that.", "02_dispatcher has no part C"),
        ("`test_not_a_cell` checks it.", "04_wire has no cell test_not_a_cell"),
    ],
)
def test_a_reference_to_nothing_is_found(text: str, problem: str) -> None:
    assert [p.split(": ", 1)[1] for p in dangling("04_wire", text)] == [problem]


def test_references_that_are_there_pass() -> None:
    text = (
        "Parts A to F, question 6, section 7, 03's section 5, RFC 8259, section 11, `test_tool_specs_chat`."
    )
    assert dangling("04_wire", text) == []
