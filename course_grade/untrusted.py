"""Learners' strings made safe for each place an instructor reads them: the terminal, a CSV cell, an id.

A learner chooses a student id (a folder or zip name), file names, notebook text and, through the learning
platform, a roster name. None of them may move the instructor's cursor, hide a line, read as another
person's name, or run as a spreadsheet formula:

- `printable` escapes every control, format, surrogate and line-separator character (`\\x1b`, `\\u202e`,
  `\\udcff`, as Python writes them): every learner-controlled string printed goes through it;
- `id_problem` says why an id or a name cannot be taken as it is (such a character in it);
- `csv_cell` neutralises a cell a spreadsheet would read as a formula (OWASP "CSV Injection": a leading `'`
  before `=`, `+`, `-`, `@`, tab or CR, unless the cell is a number), and `CsvWriter` is the one writer of
  every CSV the course writes.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable
from typing import IO

UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Unicode categories never shown as they are: controls (ESC, newline), format characters (zero-width, bidi
overrides), lone surrogates (a file name that is not UTF-8) and the line and paragraph separators."""

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads a cell starting with as a formula (OWASP's list)."""

NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
"""A plain number: a cell starting with `-` or `+` that is one stays a number."""


def unprintable(character: str) -> bool:
    """Whether a character is one of UNPRINTABLE's categories."""
    return unicodedata.category(character) in UNPRINTABLE


def printable(text: object) -> str:
    """`text` with every unprintable character escaped as Python writes it (ESC as `\\x1b`, U+202E as
    `\\u202e`, a newline as `\\n`): one line, only what it says."""
    return "".join(
        character.encode("unicode_escape").decode("ascii") if unprintable(character) else character
        for character in str(text)
    )


def printable_lines(text: str) -> str:
    """Several lines, each `printable` (the line breaks between them kept)."""
    return "\n".join(printable(line) for line in text.split("\n"))


def id_problem(text: str) -> str | None:
    """Why `text` cannot be an id or a name a person tells apart from another, or None if it can."""
    found = [character for character in text if unprintable(character)]
    if not found:
        return None
    named = ", ".join(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, 'control')}" for c in found))
    return f"contains control or format characters ({named})"


def csv_cell(value: object) -> str:
    """One CSV cell: None as empty, a would-be formula after a `'`, unprintable characters escaped."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_START) and not NUMBER.fullmatch(text):
        text = "'" + text
    return printable(text)


class CsvWriter:
    """`csv.writer` whose every cell is a `csv_cell`: the one writer of the course's CSV files."""

    def __init__(self, handle: IO[str]) -> None:
        self._writer = csv.writer(handle)

    def writerow(self, row: Iterable[object]) -> None:
        """Write one row."""
        self._writer.writerow([csv_cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        """Write several rows."""
        for row in rows:
            self.writerow(row)
