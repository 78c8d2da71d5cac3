"""The learners' stubs: nbgrader's ClearSolutions, with a stub that names its exercise and lets Run All go on.

A checkpoint quiz's answer cell (grade_id `quiz_NN`) gets a runnable template instead: each `q1 = "C"  # one of
"A", "B", "C", "D"` line of its solution becomes `q1 = None  # one of "A", "B", "C", "D"`, so Run All goes on
and an unanswered question fails its test with a message, not an error of the cell.

`grading/nbgrader_config.py` puts `NamedStubs` in ClearSolutions' place in `generate_assignment`. It lives in
an importable module, not in the config file, so that the configuration `course-grade` reads once can travel
to its worker processes (a class defined in a config file cannot be pickled).
"""

from __future__ import annotations

import re
from typing import Any

from nbgrader.preprocessors import ClearSolutions  # type: ignore[import-untyped]

from course_grade.cells import is_quiz_answer

EXERCISE = "{exercise} is not written yet: write it in this cell, run the cell, then run its tests"
"""The message of the learners' stub; {exercise} becomes "Part A: parse_envelope" (see NamedStubs)."""

CODE_STUB = f"# YOUR CODE HERE\nraise NotImplementedError({EXERCISE!r})"
"""What replaces each solution in the learners' versions."""

_ANSWER = re.compile(r"^(\s*)(\w+)\s*=\s*.*?(\s+#.*)?$")
"""One line of a quiz's answer cell: `q1 = "C"  # one of ...` (the comment says which kind of value)."""


def quiz_stub(source: str) -> str:
    """A quiz answer cell's source with its solution markers dropped and every answer replaced by None."""
    lines = []
    for line in source.split("\n"):
        if "BEGIN SOLUTION" in line or "END SOLUTION" in line:
            continue
        found = _ANSWER.match(line)
        lines.append(f"{found.group(1)}{found.group(2)} = None{found.group(3) or ''}" if found else line)
    return "\n".join(lines)


class NamedStubs(ClearSolutions):  # type: ignore[misc]
    """ClearSolutions whose stubs name their exercise, tagging the cells that raise until it is written."""

    def preprocess(self, nb: Any, resources: Any) -> tuple[Any, Any]:
        """Note each cell's `## Part X` heading, clear the solutions, then forget the headings."""
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

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> tuple[Any, Any]:
        """Clear one cell; name the exercise in its stub and tag graded cells raises-exception."""
        marks = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and marks.get("solution") and is_quiz_answer(marks.get("grade_id", "")):
            cell.source = quiz_stub(cell.source)  # runs as it is: no stub to raise, no tag
            return cell, resources
        cell, resources = super().preprocess_cell(cell, resources, index)
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
