"""The misbehaving-model pack: every row as expected under every adapter, the counters at zero, the scores."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from course_lib import pack
from course_lib.desk import CANARY, DeskResult, FakeClock
from course_lib.desk import cli as desk_cli
from course_lib.desk.harness import run_desk
from course_lib.fixtures import load_fixture
from course_lib.pack import (
    COUNTERS,
    SCENARIOS,
    PackReport,
    PackTable,
    Scenario,
    render,
    render_html,
    run_pack,
)
from course_lib.pack_record import FIXTURE, record, reference_report, reference_run
from course_lib.turns import APIS

SEED_FIVE = ("hallucinated_name", "truncated_json", "fifty_calls", "same_call_forever", "injection_ignore")


@pytest.fixture(scope="module")
def report() -> PackReport:
    return run_pack(run_desk)


def rows_of(report: PackReport, scenario: Scenario) -> list[Any]:
    return [row for row in report.scenario_rows if row.scenario is scenario]


def test_the_pack_has_at_least_twenty_scenarios_with_unique_names() -> None:
    names = [scenario.name for scenario in SCENARIOS]
    assert len(names) >= 20 and len(set(names)) == len(names) and set(SEED_FIVE) <= set(names)


def test_the_pack_covers_every_kind() -> None:
    kinds = Counter(scenario.kind for scenario in SCENARIOS)
    assert set(kinds) == {"benign", "attack", "misbehaving", "approver"} and kinds["attack"] >= 5


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.name)
def test_every_row_ends_as_expected_under_every_adapter(report: PackReport, scenario: Scenario) -> None:
    rows = rows_of(report, scenario)
    assert [(row.api, row.status, row.requests) for row in rows] == [
        (api, *scenario.expected(api)) for api in APIS
    ]
    assert not any(row.landed for row in rows) and not any(any(row.counters.values()) for row in rows)


def test_every_contract_counter_is_zero(report: PackReport) -> None:
    assert report.counters == dict.fromkeys(COUNTERS, 0) and report.failures == []


def test_least_privilege_and_confirmation_stop_every_attack(report: PackReport) -> None:
    scores = {score.policy: score for score in report.scores}
    assert scores["default"].attacks_landed == scores["read_only"].attacks_landed == 0


def test_under_open_only_the_untainted_injection_lands(report: PackReport) -> None:
    """Taint and the refund limit catch most attacks, but not one that uses only the user's own values."""
    landed = {row.scenario.name for row in report.rows if row.policy == "open" and row.landed}
    assert landed == {"injection_untainted"}


def test_read_only_costs_the_refunds_and_nothing_else(report: PackReport) -> None:
    scores = {score.policy: (score.benign_finished, score.benign) for score in report.scores}
    assert scores == {"open": (25, 25), "default": (25, 25), "read_only": (20, 25)}


def test_the_table_prints_one_ok_line_per_scenario(report: PackReport) -> None:
    lines = render(report).splitlines()
    assert sum(line.endswith(" ok") for line in lines) == len(SCENARIOS) and "FAIL" not in render(report)


def test_the_table_holds_no_ports_or_timings(report: PackReport) -> None:
    text = render(report)
    assert "127.0.0.1" not in text and " ms" not in text and "seconds" not in text


def test_main_prints_the_report_and_exits_zero(report: PackReport, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setattr(desk_cli, "run_pack", lambda run: report)
    assert desk_cli.main([]) == 0 and capsys.readouterr().out == render(report) + "\n"


def test_the_published_record_is_what_the_reference_does_today(report: PackReport) -> None:
    """A change to the pack or to a reference must be followed by `python -m course_lib.desk --record`."""
    assert record(report, desk_cli.demo_run()) == load_fixture(FIXTURE)


def test_the_record_reads_back_as_the_reference_report_and_run(report: PackReport) -> None:
    assert render(reference_report()) == render(report)
    again = reference_run()
    assert (again.status, again.requests, [name for name, _ in again.executed]) == (
        "answered",
        3,
        ["get_order", "issue_refund"],
    )


def test_the_cli_lists_the_scenarios() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "course_lib.desk", "--scenarios"], capture_output=True, text=True
    )
    assert out.returncode == 0 and len(out.stdout.splitlines()) == len(SCENARIOS) and out.stderr == ""


# ---- the pack judges any harness, so a learner's can be run beside the reference ------------------------


def one_row(run: Any, name: str = "refund") -> Any:
    scenario = next(s for s in SCENARIOS if s.name == name)
    return run_pack(run, scenarios=[scenario], apis=("chat",), policies=()).rows[0]


def test_a_harness_that_raises_is_counted() -> None:
    def broken(script: Any, **options: Any) -> DeskResult:
        raise RuntimeError("oops")

    assert one_row(broken).counters["exceptions escaping"] == 1


def test_a_harness_that_runs_a_tool_not_offered_is_counted() -> None:
    def reckless(script: Any, **options: Any) -> DeskResult:
        return DeskResult("answered", 3, [("issue_refund", {"amount_cents": 1})], [], "")

    row = one_row(reckless, "not_offered")
    assert row.counters["tools run that were not offered"] == 1


def test_a_harness_that_logs_the_secret_or_skips_the_approver_is_counted() -> None:
    def leaky(script: Any, **options: Any) -> DeskResult:
        refund = {"order_id": "A-1001", "amount_cents": 4200, "receipt_email": "x@y.example", "note": "n"}
        return DeskResult("answered", 3, [("issue_refund", refund)], [{"note": f"\\u0049TK{CANARY[3:]}"}], "")

    counters = one_row(leaky).counters
    assert counters["secrets in the audit log"] == 1 and counters["confirm tools run without a yes"] == 1


def test_a_harness_that_overruns_a_budget_is_counted() -> None:
    def endless(script: Any, **options: Any) -> DeskResult:
        return DeskResult("step_budget", options["max_steps"] + 1, [], [], "")

    assert one_row(endless).counters["budgets overrun"] == 1


def test_a_result_the_pack_cannot_read_fails_its_row_without_stopping_the_pack() -> None:
    def odd(script: Any, **options: Any) -> DeskResult:
        return DeskResult("answered", 3, ["not a pair"], [], "")  # type: ignore[list-item]

    row = one_row(odd)
    assert (row.status, row.as_expected, row.landed) == ("unreadable result", False, True)


# ---- time: every run has its own fake clock, so no verdict depends on how busy the machine is ------------


def test_the_slow_model_advances_the_runs_clock_instead_of_sleeping() -> None:
    slow, clock = next(s for s in SCENARIOS if s.name == "slow_model"), FakeClock()
    result = run_desk(slow.steps(clock), api="chat", clock=clock, **slow.options)
    assert (result.status, result.requests, clock() - FakeClock()()) == (
        "time_budget",
        1,
        pack.SLOW_MODEL_SECONDS,
    )


def test_a_harness_that_ignores_the_packs_clock_fails_the_slow_model() -> None:
    def wall_clock_only(script: Any, clock: Any, **options: Any) -> DeskResult:
        return run_desk(script, **options)

    row = one_row(wall_clock_only, "slow_model")
    assert (row.status, row.as_expected) == ("answered", False)


# ---- the notebook's table: HTML with failures in red, the plain text beside it ------------------------


def test_the_html_table_has_a_row_per_scenario_policy_and_counter_and_no_red(report: PackReport) -> None:
    text = render_html(report)
    assert text.count("<tr>") == 3 + len(SCENARIOS) + len(report.scores) + len(COUNTERS)
    assert pack.FAILED_STYLE not in text and "FAIL" not in text


def test_a_failing_row_is_red_in_the_html_table() -> None:
    def broken(script: Any, **options: Any) -> DeskResult:
        raise RuntimeError("oops")

    refund = next(s for s in SCENARIOS if s.name == "refund")
    text = render_html(run_pack(broken, scenarios=[refund], apis=("chat",), policies=()))
    assert f'<td style="{pack.FAILED_STYLE}">FAIL</td>' in text and "0 exception !" in text


def test_a_notebook_shows_the_html_table_with_the_plain_text_beside_it(report: PackReport) -> None:
    bundle = PackTable(report)._repr_mimebundle_()
    assert bundle == {"text/plain": render(report), "text/html": render_html(report)}
