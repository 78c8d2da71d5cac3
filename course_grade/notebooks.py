"""nbformat's reading and writing, typed (nbformat's own functions are not annotated)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

MAX_NOTEBOOK_BYTES = 50_000_000
"""A submitted notebook larger than this is not graded (stored outputs are cleared anyway), nor reviewed."""


def parse(text: str) -> NotebookNode:
    """A notebook from its JSON text, upgraded to nbformat 4 (raises for text that is not a notebook)."""
    notebook: NotebookNode = nbformat.reads(text, as_version=4)  # type: ignore[no-untyped-call]
    return notebook


def read(path: Path) -> NotebookNode:
    """The notebook stored at `path`."""
    return parse(path.read_text(encoding="utf-8"))


def write(notebook: NotebookNode, path: Path) -> None:
    """Store a notebook at `path`."""
    nbformat.write(notebook, str(path))  # type: ignore[no-untyped-call]


def node(**fields: Any) -> NotebookNode:
    """A notebook node (a cell output, say) with these fields."""
    made: NotebookNode = nbformat.from_dict(fields)  # type: ignore[no-untyped-call]
    return made
