"""The learners' notebooks read before they run: every worked example keeps the output the instructor's stored.

`grading/build_notebooks.py` gives each cell of a learners' version that runs no learner code (see
`runs_learner_code`) the outputs of the instructor's version, and leaves empty the cells that do: solutions,
tests, self-checks tagged raises-exception, and cells reading what those bind. tests/notebooks/test_notebooks.py runs
each learners' version as Run All does and checks that it reproduces the outputs kept.
"""

from __future__ import annotations

import html
import re

import nbformat
import pytest
from nbconvert import HTMLExporter

from grading.build_notebooks import GRADING, LEARNERS, assignments, runs_learner_code

NAMES = assignments()
WORKED = "requests: 2 | roles sent in the second: ['user', 'assistant', 'tool']"
"""The output of one of 03's worked examples: the prose reads it back."""


def _pairs(name: str) -> list[tuple[nbformat.NotebookNode, nbformat.NotebookNode, bool]]:
    """(instructor's cell, learners' cell, runs learner code) for each code cell, matched by id."""
    instructor = nbformat.read(GRADING / "source" / name / f"{name}.ipynb", as_version=4)
    learners = {
        cell.get("id"): cell for cell in nbformat.read(LEARNERS / f"{name}.ipynb", as_version=4).cells
    }
    return [
        (cell, learners[cell.get("id")], learner)
        for cell, learner in zip(instructor.cells, runs_learner_code(instructor), strict=True)
        if cell.cell_type == "code"
    ]


@pytest.mark.parametrize("name", NAMES)
def test_every_worked_example_keeps_its_output_and_no_learner_cell_has_one(name: str) -> None:
    pairs = _pairs(name)
    missing = [
        cell.source[:60] for cell, mine, learner in pairs if not learner and mine.outputs != cell.outputs
    ]
    assert missing == [], f"{name}: worked examples without the instructor's output in notebooks/"
    filled = [cell.source[:60] for _, cell, learner in pairs if learner and cell.outputs]
    assert filled == [], f"{name}: cells that run learner code show an output in notebooks/"
    assert sum(bool(cell.outputs) for cell, _, learner in pairs if not learner) >= 5


def test_a_cell_reading_what_learner_code_bound_is_the_learners() -> None:
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("import json\nprint(json.dumps(1))"),
            nbformat.v4.new_code_cell("def f(x):\n    return x", metadata={"nbgrader": {"solution": True}}),
            nbformat.v4.new_code_cell("loops = {'mine': f}", metadata={"tags": []}),
            nbformat.v4.new_code_cell("for key in loops:\n    print(key, json.dumps(2))"),
            nbformat.v4.new_code_cell("loops = {}\nprint(loops)"),
            nbformat.v4.new_code_cell("print(f(1))", metadata={"tags": ["raises-exception"]}),
            nbformat.v4.new_code_cell("f(1)", metadata={"nbgrader": {"grade": True}}),
            nbformat.v4.new_code_cell("def g(f):\n    return f(2)\nprint(g(abs))"),
        ]
    )
    assert runs_learner_code(notebook) == [False, True, True, True, False, True, True, False]


def test_the_learners_03_renders_its_worked_examples_outputs_as_html() -> None:
    """As GitHub, nbviewer or a course site show it: nbconvert's HTML of notebooks/03_loop.ipynb."""
    body, _ = HTMLExporter().from_notebook_node(nbformat.read(LEARNERS / "03_loop.ipynb", as_version=4))
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    assert WORKED in text
