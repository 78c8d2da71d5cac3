"""The template gradebook every autograde job starts from: the real one's definitions, and no students."""

from __future__ import annotations

from pathlib import Path

import pytest
from nbgrader.api import Gradebook, MissingEntry  # type: ignore[import-untyped]

from course_grade.course import Course
from course_grade.score.gradebook import build_template, definitions
from tests.support.grading_helpers import fresh_course, nbgrader


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Course:
    """A course with two assignments released into its gradebook."""
    course = fresh_course(tmp_path_factory.mktemp("template"))
    for assignment in ("01_envelope", "02_dispatcher"):
        nbgrader(course, "generate_assignment", assignment, "--force")
    return Course.open(course)


def test_the_template_holds_the_definitions_of_the_assignments_asked_for_only(
    released: Course, tmp_path: Path
) -> None:
    template = tmp_path / "template.db"
    build_template(released.db_url, template, released.course_id, ["01_envelope"])
    url = f"sqlite:///{template}"
    copied = definitions(url, released.course_id, "01_envelope")
    assert copied and copied == definitions(released.db_url, released.course_id, "01_envelope")
    with Gradebook(url, released.course_id) as copy, Gradebook(released.db_url, released.course_id) as real:
        assert [assignment.name for assignment in copy.assignments] == ["01_envelope"]
        assert copy.students == []
        assert copy.find_assignment("01_envelope").max_score == real.find_assignment("01_envelope").max_score
        [notebook] = copy.find_assignment("01_envelope").notebooks
        cells = {cell.name: (cell.source, cell.checksum, cell.locked) for cell in notebook.source_cells}
        [original] = real.find_assignment("01_envelope").notebooks
        assert cells == {
            cell.name: (cell.source, cell.checksum, cell.locked) for cell in original.source_cells
        }


def test_a_template_of_an_assignment_never_released_is_refused(released: Course, tmp_path: Path) -> None:
    with pytest.raises(MissingEntry, match="03_loop"):
        build_template(
            released.db_url, tmp_path / "template.db", released.course_id, ["01_envelope", "03_loop"]
        )
