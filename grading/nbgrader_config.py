"""nbgrader configuration for the course; `grading/` is the course directory."""

import os
import re

from nbgrader.converters.generate_assignment import GenerateAssignment
from nbgrader.preprocessors import ClearSolutions

EXERCISE = "{exercise} is not written yet: write it in this cell, run the cell, then run its tests"
"""The message of the learners' stub; {exercise} becomes "Part A: parse_envelope" (see NamedStubs)."""


class NamedStubs(ClearSolutions):
    """ClearSolutions whose stubs name their exercise, tagging the cells that raise until it is written."""

    def preprocess(self, nb, resources):
        part = ""
        for cell in nb.cells:
            heading = re.search(r"^#+ *(Part [A-Z0-9]+)", cell.source, re.MULTILINE)
            if cell.cell_type == "markdown" and heading:
                part = heading.group(1)
            cell.metadata["course_part"] = part
        nb, resources = super().preprocess(nb, resources)
        for cell in nb.cells:
            del cell.metadata["course_part"]
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        cell, resources = super().preprocess_cell(cell, resources, index)
        marks = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and (marks.get("grade") or marks.get("solution")):
            lines, name, owner = cell.source.split("\n"), marks.get("grade_id", "this exercise"), ""
            for number, line in enumerate(lines):
                if found := re.match(r"(\s*)(def|class)\s+(\w+)", line):
                    indent, kind, name = found.groups()
                    owner = name if kind == "class" and not indent else owner if indent else ""
                    name = f"{owner}.{name}" if indent and owner and kind == "def" else name
                label = f"{cell.metadata['course_part']}: {name}".lstrip(": ")
                lines[number] = line.replace("{exercise}", label)
            cell.source = "\n".join(lines)
            tags = cell.metadata.setdefault("tags", [])
            if "raises-exception" not in tags:
                tags.append("raises-exception")
        return cell, resources


c = get_config()  # type: ignore[name-defined]  # noqa: F821  (nbgrader injects get_config)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "tool-call-boundary"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(c.CourseDirectory.root, "gradebook.db")

# The learners' versions: solutions become a stub that fails loudly, hidden tests are removed.
# The stub names its exercise ("Part B: ask_approver is not written yet ..."), and every cell that fails
# until the exercise is written is tagged raises-exception, so JupyterLab's Run All shows the message
# and goes on to the later demos instead of stopping dead at the first unwritten exercise.
c.ClearSolutions.code_stub = {"python": f"# YOUR CODE HERE\nraise NotImplementedError({EXERCISE!r})"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.GenerateAssignment.preprocessors = [
    NamedStubs if step is ClearSolutions else step
    for step in GenerateAssignment.class_traits()["preprocessors"].default()
]

# Grading runs learners' code: bound every cell and the output it may produce.
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True
c.LimitOutput.max_lines = 500
c.LimitOutput.max_traceback = 50

# Missing or edited test cells are restored from the instructors' versions.
c.Autograde.create_student = True
c.OverwriteCells.add_missing_cells = True
