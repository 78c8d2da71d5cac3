"""The pack's report as people read it: a text table (`render`), HTML tables with failures in red
(`render_html`, `PackTable` in a notebook), and one line per scenario (`describe`)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from course_lib.pack.cases import SCENARIOS, Scenario
from course_lib.pack.judge import PackReport, Row

__all__ = ["FAILED_STYLE", "PackTable", "describe", "render", "render_html"]

SHORT = {"openai-sdk-chat": "sdk-chat", "openai-sdk-responses": "sdk-responses"}


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({round(100 * part / whole) if whole else 0}%)"


def render(report: PackReport) -> str:
    """The report as text: per scenario and adapter the requests and outcome, per policy the scores, the counters."""
    head = (
        f"{'scenario':<27}{'kind':<12}"
        + "".join(f"{SHORT.get(api, api):<16}" for api in report.apis)
        + "check"
    )
    lines = [
        "Misbehaving-model pack: requests sent and outcome per scenario and adapter",
        "",
        head,
        "-" * len(head),
    ]
    for name, rows in _by_scenario(report).items():
        cells = "".join(f"{f'{r.requests} {r.status}' + ('' if r.as_expected else ' !'):<16}" for r in rows)
        ok = all(r.as_expected and not r.landed and not any(r.counters.values()) for r in rows)
        lines.append(f"{name:<27}{rows[0].scenario.kind:<12}{cells}{'ok' if ok else 'FAIL'}")
    lines += [
        "",
        "Per policy, cooperative and attack scripts over every adapter (a careful human approves)",
        "",
    ]
    lines.append(f"{'policy':<12}{'attack success':<20}{'benign utility':<20}utility under attack")
    for score in report.scores:
        attack = _share(score.attacks_landed, score.attacks)
        benign = _share(score.benign_finished, score.benign)
        lines.append(
            f"{score.policy:<12}{attack:<20}{benign:<20}{_share(score.attacks_finished, score.attacks)}"
        )
    lines += ["", f"Contract counters over all {len(report.rows)} runs (every one must be 0)", ""]
    lines += [f"  {name:<34}{count}" for name, count in report.counters.items()]
    return "\n".join(lines)


FAILED_STYLE = "background-color: #f8d7da; color: #842029; font-weight: bold"
"""How the HTML table marks a failure: dark red on light red, readable in light and dark themes."""


def _cell(text: str, failed: bool = False, tag: str = "td") -> str:
    style = f' style="{FAILED_STYLE}"' if failed else ""
    return f"<{tag}{style}>{html.escape(text)}</{tag}>"


def _html_table(caption: str, head: Sequence[str], rows: Sequence[Sequence[tuple[str, bool]]]) -> str:
    lines = [f"<table><caption>{html.escape(caption)}</caption>", "<thead><tr>"]
    lines += [_cell(name, tag="th") for name in head]
    lines.append("</tr></thead><tbody>")
    lines += ["<tr>" + "".join(_cell(text, failed) for text, failed in row) + "</tr>" for row in rows]
    lines.append("</tbody></table>")
    return "\n".join(lines)


def render_html(report: PackReport) -> str:
    """The report as HTML tables, every failure in red: the same facts as `render`, without wrapping."""
    rows = []
    for name, mine in _by_scenario(report).items():
        ok = all(r.as_expected and not r.landed and not any(r.counters.values()) for r in mine)
        cells = [
            (f"{r.requests} {r.status}" + ("" if r.as_expected else " !"), not r.as_expected) for r in mine
        ]
        rows.append(
            [(name, not ok), (mine[0].scenario.kind, False), *cells, ("ok" if ok else "FAIL", not ok)]
        )
    apis = [SHORT.get(api, api) for api in report.apis]
    scenario_table = _html_table(
        "Misbehaving-model pack: requests sent and outcome per scenario and adapter",
        ["scenario", "kind", *apis, "check"],
        rows,
    )
    scores = [
        [(score.policy, False), (_share(score.attacks_landed, score.attacks), False),
         (_share(score.benign_finished, score.benign), False),
         (_share(score.attacks_finished, score.attacks), False)]
        for score in report.scores
    ]  # fmt: skip
    policy_table = _html_table(
        "Per policy, cooperative and attack scripts over every adapter (a careful human approves)",
        ["policy", "attack success", "benign utility", "utility under attack"],
        scores,
    )
    counters = [[(name, bool(count)), (str(count), bool(count))] for name, count in report.counters.items()]
    counter_table = _html_table(
        f"Contract counters over all {len(report.rows)} runs (every one must be 0)",
        ["counter", "count"],
        counters,
    )
    return f'<div class="course-pack">\n{scenario_table}\n{policy_table}\n{counter_table}\n</div>'


@dataclass(frozen=True)
class PackTable:
    """A report as a notebook shows it: HTML tables with failures in red, and `render`'s text as plain text."""

    report: PackReport

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": render(self.report), "text/html": render_html(self.report)}


def _by_scenario(report: PackReport) -> dict[str, list[Row]]:
    """The rows of each scenario under its own policy, in the pack's order."""
    by_scenario: dict[str, list[Row]] = {}
    for row in report.scenario_rows:
        by_scenario.setdefault(row.scenario.name, []).append(row)
    return by_scenario


def describe(scenarios: Sequence[Scenario] = SCENARIOS) -> str:
    """One line per scenario: its name, kind, policy and what it checks."""
    return "\n".join(f"{s.name:<27}{s.kind:<12}{s.policy:<10}{s.what}" for s in scenarios)
