"""A learner's own globals with everyday names do not break what the notebook gives them.

nbgrader runs the tests in the learner's namespace: a read-only cell whose function looks up a helper by a
global name as plain as `answer` or `stop` (07's harness did) breaks, with every test after it, as soon as a
learner's cell binds that name for its own use.
"""

from __future__ import annotations

import pytest

from grading.build_notebooks import GRADING, assignments
from tests.support.forked_cells import ForkedCells
from tests.support.notebook_runner import grade_ids, instructor_notebook, with_cell_replaced, without_demos

EVERYDAY = (
    "answer",
    "result",
    "reply",
    "response",
    "turn",
    "stop",
    "gate",
    "refuse",
    "item",
    "message",
    "data",
)
"""Names a learner plausibly binds at the top level of a cell while working (`answer = adapter.start(...)`)."""


@pytest.mark.parametrize("name", assignments())
def test_binding_everyday_names_in_every_solution_cell_keeps_full_marks(
    name: str, forked: ForkedCells
) -> None:
    notebook = without_demos(instructor_notebook(name))
    for cell in grade_ids(notebook, tests=False):
        source = next(
            c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == cell
        )
        everyday = " = ".join(EVERYDAY) + ' = "a name of the learner\'s own"'
        notebook = with_cell_replaced(notebook, cell, source + "\n" + everyday + "\n")
    results = forked.results(notebook, GRADING / "source" / name)
    assert results and all(results.values()), [test for test, passed in results.items() if not passed]
