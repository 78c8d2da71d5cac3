"""Reading the instructor's report back: its tables by id.

For tests/course_grade/report/test_report.py and tests/e2e/test_course_grade.py.
"""

from __future__ import annotations

import html.parser
from pathlib import Path


class Tables(html.parser.HTMLParser):
    """Every table of a page by id: rows of {td class (first word): text}; and every id seen."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[dict[str, str]]] = {}
        self.ids: set[str] = set()
        self._table = ""
        self._cell = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "table":
            self._table = str(found.get("id"))
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append({})
        elif tag == "td" and self._table:
            self._cell = str(found.get("class", "")).split()[0]
            self.tables[self._table][-1][self._cell] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = ""
        elif tag == "td":
            self._cell = ""

    def handle_data(self, data: str) -> None:
        if self._table and self._cell:
            self.tables[self._table][-1][self._cell] += data


def parse(page: Path) -> Tables:
    tables = Tables()
    tables.feed(page.read_text(encoding="utf-8"))
    return tables
