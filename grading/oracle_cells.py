"""Write each differential hidden test into its test cell: the last lines of the cell's hidden region.

For every family of `course_grade.score.oracle` (a part of the notebook's registry module), the test cell the
family names ends its hidden region with

    from course_lib.oracle import against_reference  # the reference as oracle (course_grade.score.oracle)
    # rule: <the family's sentence>
    against_reference("<assignment>.<part>", "<family>", <part>)

`python3 course.py build` writes them (`update`), and `build --check` fails on a stale cell (`stale`), so a
notebook's hidden tests and the registry never tell two stories. The `# rule:` line is what a learner's feedback
names when the call fails ("hidden test k of N failed ...; the rule it checks: ...").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from course_grade.score.oracle.registry import parts

IMPORT = (
    "from course_lib.oracle import against_reference  # the reference as oracle (course_grade.score.oracle)"
)
END = "### END HIDDEN TESTS"
BEGIN = "### BEGIN HIDDEN TESTS"


def blocks(assignment: str) -> dict[str, list[str]]:
    """grade_id -> the oracle lines its hidden region ends with."""
    found: dict[str, list[str]] = {}
    for name, part in parts(assignment).items():
        for key, family in part.families.items():
            lines = found.setdefault(family.cell, [IMPORT])
            lines += [
                f"# rule: {family.sentence}",
                f'against_reference("{assignment}.{name}", "{key}", {name})',
            ]
    return found


def _without_oracle(lines: list[str]) -> list[str]:
    """The lines with any oracle block removed (the import, and each rule line followed by its call)."""
    kept: list[str] = []
    for line in lines:
        if line == IMPORT or line.startswith("against_reference("):
            if kept and kept[-1].startswith("# rule:") and line.startswith("against_reference("):
                kept.pop()
            continue
        kept.append(line)
    return kept


def rewritten(source: str, block: list[str]) -> str:
    """`source` with its hidden region ending in `block` (an old block replaced; no block when it is empty)."""
    lines = _without_oracle(source.split("\n"))
    if not block:
        return "\n".join(lines)
    if END not in lines:
        return "\n".join([*lines, BEGIN, *block, END])
    at = len(lines) - 1 - lines[::-1].index(END)
    return "\n".join([*lines[:at], *block, *lines[at:]])


def _wanted(notebook: nbformat.NotebookNode, assignment: str) -> list[tuple[int, str]]:
    found = blocks(assignment)
    cells = {
        cell.metadata.get("nbgrader", {}).get("grade_id"): index for index, cell in enumerate(notebook.cells)
    }
    missing = sorted(set(found) - set(cells))
    if missing:
        raise LookupError(
            f"{assignment}: the oracle's families name test cells the notebook lacks: {missing}"
        )
    changes = []
    for index, cell in enumerate(notebook.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
            source = rewritten(cell.source, found.get(grade_id, []))
            if source != cell.source:
                changes.append((index, source))
    return changes


def stale(path: Path) -> bool:
    """Whether a test cell of the notebook at `path` lacks its oracle lines or holds old ones."""
    return bool(_wanted(nbformat.read(path, as_version=4), path.stem))


def update(path: Path) -> bool:
    """Write the oracle lines into the notebook at `path`; return whether anything changed."""
    notebook = nbformat.read(path, as_version=4)
    changes = _wanted(notebook, path.stem)
    for index, source in changes:
        notebook.cells[index].source = source
    if changes:
        nbformat.write(notebook, path)
    return bool(changes)


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, verify) the oracle lines of the named notebooks."""
    parser = argparse.ArgumentParser(prog="python3 -m grading.oracle_cells", description=main.__doc__)
    parser.add_argument("names", nargs="+")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    source = Path(__file__).resolve().parent / "source"
    paths = [source / name / f"{name}.ipynb" for name in args.names]
    if args.check:
        found = [path.stem for path in paths if stale(path)]
        print("\n".join(f"{name}: its oracle lines are stale" for name in found))
        return 1 if found else 0
    for path in paths:
        print(f"{path.stem}: {'oracle lines written' if update(path) else 'oracle lines up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
