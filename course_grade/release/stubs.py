"""The learners' stubs: nbgrader's ClearSolutions, with a stub that names its exercise and lets Run All go on.

`grading/nbgrader_config.py` puts `NamedStubs` in ClearSolutions' place in `generate_assignment`. It lives in
an importable module, not in the config file, so that the configuration `course-grade` reads once can travel
to its worker processes (a class defined in a config file cannot be pickled).
"""

from __future__ import annotations

import re
from typing import Any

from nbgrader.preprocessors import ClearSolutions  # type: ignore[import-untyped]

EXERCISE = "{exercise} is not written yet: write it in this cell, run the cell, then run its tests"
"""The message of the learners' stub; {exercise} becomes "Part A: parse_envelope" (see NamedStubs)."""

CODE_STUB = f"# YOUR CODE HERE\nraise NotImplementedError({EXERCISE!r})"
"""What replaces each solution in the learners' versions."""


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
