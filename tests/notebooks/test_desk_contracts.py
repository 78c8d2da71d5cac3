"""Notebook 07's instructor solutions of Parts A to E against course_lib.desk, over generated inputs.

The inputs keep to what each part's prose covers and vary every point its "must" list rules on: policy values
that are near misses of a mode, names the policy or the toolbox lacks, registered names in any order and as an
iterator; approvers that answer anything, raise anything, meddle with their copy or answer too late; JSON values
with whole floats, NaN and sets at any depth; budgets walked through time and steps on a fake clock; audit fields
with secrets, lone surrogates, long text and objects of no JSON type. Both must give the same answer (for Part B,
the same yes and the same view of the call) and leave their input as it was. Part D's prose is looser than its
reference, so the instructor's redact is held to the reference's detector, `find_secrets`, instead.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib.desk import CANARY, REDACTED
from course_lib.desk import audit as audit_reference
from course_lib.desk import budget as budget_reference
from course_lib.desk import policy as reference_policy
from tests.support.instructor_solutions import instructor_solution

SETTINGS = settings(
    max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
NAMES = ("get_order", "search_orders", "get_ticket", "issue_refund", "drop_table", "")
MODES = st.sampled_from(["auto", "confirm", "never"]) | st.sampled_from(
    [
        "AUTO",
        " auto",
        "auto\n",
        "Confirm",
        "yes",
        "",
        True,
        False,
        1,
        0,
        1.0,
        None,
        ["auto"],
        ("confirm",),
        {"auto": 1},
    ]
)


@pytest.fixture(scope="module")
def solutions() -> Iterator[dict[str, Any]]:
    """The namespace of the instructor's desk pieces: the one up to Part E's solution holds Parts A to D too."""
    with instructor_solution("07_capstone", "audit_entry") as namespace:
        yield namespace


policies = st.dictionaries(st.sampled_from(NAMES), MODES, max_size=6)


@st.composite
def named(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A policy and a name, most often one the policy holds."""
    policy = draw(policies)
    held = sorted(policy)
    return policy, draw(st.sampled_from(held) if held and draw(st.integers(0, 3)) else st.sampled_from(NAMES))


@SETTINGS
@given(named())
def test_mode_for_equals_the_reference(solutions: dict[str, Any], case: tuple[dict[str, Any], str]) -> None:
    policy, name = case
    before = copy.deepcopy(policy)
    assert solutions["mode_for"](policy, name) == reference_policy.mode_for(policy, name)
    assert policy == before


@SETTINGS
@given(
    policies,
    st.permutations(NAMES).flatmap(lambda names: st.integers(0, 6).map(lambda n: names[:n])),
    st.booleans(),
)
def test_offered_tools_equals_the_reference(
    solutions: dict[str, Any], policy: dict[str, Any], registered: list[str], as_iterator: bool
) -> None:
    given_names = list(registered)
    mine = solutions["offered_tools"](policy, iter(given_names) if as_iterator else given_names)
    assert type(mine) is list and mine == reference_policy.offered_tools(policy, list(registered))
    assert given_names == registered


@SETTINGS
@given(
    named(),
    st.none() | st.lists(st.sampled_from(["tainted", "over"]), max_size=2),
    st.booleans(),
)
def test_effective_mode_equals_the_reference(
    solutions: dict[str, Any], case: tuple[dict[str, Any], str], concerns: list[str] | None, as_tuple: bool
) -> None:
    policy, name = case
    if concerns is None:
        mine, want = solutions["effective_mode"](policy, name), reference_policy.effective_mode(policy, name)
    else:
        given_concerns = tuple(concerns) if as_tuple else concerns
        mine = solutions["effective_mode"](policy, name, given_concerns)
        want = reference_policy.effective_mode(policy, name, given_concerns)
    assert mine == want


class LooksTrue:
    """Equal to True and truthy, but not True."""

    def __eq__(self, other: object) -> bool:
        return True

    def __bool__(self) -> bool:
        return True

    __hash__ = object.__hash__


ANSWERS = (True, False, "yes", "True", 1, 1.0, 0, None, [True], (True,), {"ok": True}, LooksTrue())
RAISES = (RuntimeError, ZeroDivisionError, KeyError, TimeoutError, KeyboardInterrupt, SystemExit)
scalars = st.sampled_from([True, False, 0, 1, 1.5, -2, None, "", "A-1001", "caf\u00e9"])
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=8,
)
approvers = st.one_of(
    st.none(),
    st.tuples(st.just("answer"), st.sampled_from(ANSWERS), st.booleans()),
    st.tuples(st.just("raise"), st.sampled_from(RAISES), st.booleans()),
    st.tuples(st.just("late"), st.just(True), st.booleans()),
)


def asking(
    ask: Any, kind: Any, name: str, arguments: dict[str, Any]
) -> tuple[bool, str, list[tuple[str, Any, bool, bool]]]:
    """`ask(approver, ...)` with the approver `kind` describes: its answer, and what the approver saw, where."""
    seen: list[tuple[str, Any, bool, bool]] = []
    release = threading.Event()

    def approver(asked: str, copy_of: Any) -> object:
        thread = threading.current_thread()
        seen.append((asked, copy.deepcopy(copy_of), thread is threading.main_thread(), thread.daemon))
        what, value, meddles = kind
        if meddles:  # nested containers first, so a shallow copy is caught too
            for inner in copy_of.values():
                if isinstance(inner, list | dict):
                    inner.clear()
            copy_of["order_id"] = "B-2001"
        if what == "raise":
            raise value("the approval service is down")
        if what == "late":
            release.wait(5.0)
        return value

    try:
        yes, why = ask(
            None if kind is None else approver, name, arguments, 0.05 if kind and kind[0] == "late" else 2.0
        )
    finally:
        release.set()
    return yes, why, seen


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    approvers,
    st.sampled_from(["issue_refund", "get_order"]),
    st.dictionaries(st.sampled_from("abc"), json_values, min_size=1, max_size=3),
)
def test_ask_approver_equals_the_reference(
    solutions: dict[str, Any], kind: Any, name: str, arguments: dict[str, Any]
) -> None:
    before = copy.deepcopy(arguments)
    mine = asking(solutions["ask_approver"], kind, name, arguments)
    assert arguments == before
    want = asking(reference_policy.ask_approver, kind, name, arguments)
    assert (type(mine[0]), mine[0], mine[2]) == (bool, want[0], want[2])
    assert isinstance(mine[1], str) and mine[1]
    if kind is not None and kind[0] == "raise":
        assert kind[1].__name__ in mine[1]


odd_values = st.sampled_from(
    [1.0, -3.0, 2.5, -0.0, 1e20, 10**20, float("nan"), float("inf"), {1, 2}, True, "1.0"]
)
canonical_values = st.recursive(
    scalars | odd_values,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("cba"), inner, max_size=3),
    max_leaves=8,
)


@SETTINGS
@given(st.sampled_from(["get_order", "issue_refund"]), canonical_values)
def test_canonical_equals_the_reference(solutions: dict[str, Any], name: str, arguments: Any) -> None:
    before = repr(arguments)
    assert solutions["canonical"](name, arguments) == budget_reference.canonical(name, arguments)
    assert repr(arguments) == before


class Clock:
    """A fake clock: the time is whatever the test last set."""

    def __init__(self) -> None:
        self.now, self.reads = 1000.0, 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


operations = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.sampled_from([0.0, 0.5, 1.0, 2.5, 10.0])),
        st.tuples(st.sampled_from(["next_request", "remaining", "out_of_time", "steps_left", "elapsed"])),
        st.tuples(
            st.just("repeat"),
            st.sampled_from(["get_order", "get_ticket"]),
            st.sampled_from([{"a": 1}, {"a": 1.0}, {"b": 2, "a": 1}, {"a": 1, "b": 2}, {"a": True}, {}]),
        ),
    ),
    max_size=25,
)


def spending(budget_class: type, limits: dict[str, Any], steps: list[tuple[Any, ...]]) -> list[Any]:
    """Every answer a budget made with `limits` gives over `steps`, and its attributes after each."""
    clock = Clock()
    budget = budget_class(**limits, clock=clock)
    log: list[Any] = [clock.reads]
    for step in steps:
        if step[0] == "advance":
            clock.now += step[1]
            continue
        log.append(getattr(budget, step[0])(*step[1:]))
        log.append(
            (budget.steps, budget.max_steps, budget.max_seconds, budget.max_repeats, budget.clock is clock)
        )
    return log


@SETTINGS
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "max_steps": st.integers(0, 4),
            "max_seconds": st.sampled_from([0.0, 1.0, 3.0, 5.5]),
            "max_repeats": st.integers(0, 3),
        },
    ),
    operations,
)
def test_budget_equals_the_reference(
    solutions: dict[str, Any], limits: dict[str, Any], steps: list[tuple[Any, ...]]
) -> None:
    assert spending(solutions["Budget"], limits, steps) == spending(budget_reference.Budget, limits, steps)


class Shown:
    """An object of no JSON type, whose repr may carry the secret."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Shown({self.text})"


texts = st.sampled_from(
    [
        "",
        "get_order",
        "\ud800",
        "x\udfffy",
        CANARY,
        CANARY.lower(),
        f"token {CANARY[:12]}!",
        "sk-proj-abcdefghijkl",
    ]
) | st.builds(lambda n, c: c * n, st.sampled_from([299, 300, 301, 5000]), st.sampled_from(["y", "\ud83d"]))
leaves = (
    texts
    | st.sampled_from([None, True, False, 0, -7, 10**17, 1.5, -0.0, 2.0])
    | st.sampled_from([{3}, b"x\x00", frozenset()])
    | texts.map(Shown)
)
entry_values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(texts | st.sampled_from([1, None, True]), inner, max_size=3)
    ),
    max_leaves=10,
)


@SETTINGS
@given(st.lists(entry_values, min_size=7, max_size=7))
def test_audit_entry_equals_the_reference(solutions: dict[str, Any], fields: list[Any]) -> None:
    before = repr(fields)
    mine = solutions["audit_entry"](*fields)
    assert list(mine) == ["step", "id", "name", "arguments", "decision", "reason", "outcome"]
    assert mine == audit_reference.audit_entry(*fields)
    assert repr(fields) == before


def spelled(char: str, how: int) -> str:
    """One character of the secret, written plainly or in one of the escapes the contract decodes."""
    code = ord(char)
    forms = [char, char.swapcase(), f"\\u{code:04x}", f"\\\\u{code:04x}", f"\\x{code:02x}", f"%{code:02X}",
             f"&#{code};", f"&#x{code:x};", f"%5Cu{code:04x}"]  # fmt: skip
    return forms[how % len(forms)]


@st.composite
def hidden_secrets(draw: st.DrawFn) -> str:
    """A piece of the secret (or all of it), some characters escaped, invisible ones between some."""
    start = draw(st.integers(0, len(CANARY) - 10))
    piece = CANARY[start : draw(st.integers(start + 10, len(CANARY)))]
    out = ""
    for char in piece:
        out += spelled(char, draw(st.integers(0, 30)))
        out += draw(st.sampled_from(["", "", "", "", "\u200b", "\u00ad", "\ufeff", "\u2060"]))
    return out


fragments = st.sampled_from(
    ["Refund A-1001 to ada@example.com.", " ", "100% off", "&amp;", "\\n", "caf\u00e9", "\ud800", "ITK-", "sk-",
     "Bearer", "Authorization: Bearer abcdef0123456789", "sk-proj-abcdefghijklmnop", "%41", "\\u0041"]
) | hidden_secrets()  # fmt: skip


@SETTINGS
@given(st.lists(fragments, max_size=5).map("".join))
def test_redact_keeps_its_contract_by_the_reference_detector(solutions: dict[str, Any], text: str) -> None:
    """What the instructor's redact returns holds nothing find_secrets sees; a text it sees nothing in is kept."""
    out = solutions["redact"](text)
    assert isinstance(out, str) and audit_reference.find_secrets(out) == []
    if audit_reference.find_secrets(text) == []:
        assert out == text


ordinary = st.lists(
    fragments.filter(
        lambda text: not audit_reference.find_secrets(text) or "Bearer" in text or "sk-" in text
    ),
    max_size=3,
).map(" ".join)


@SETTINGS
@given(ordinary, st.integers(0, len(CANARY) - 10), st.integers(10, len(CANARY)), st.booleans(), ordinary)
def test_redact_keeps_the_text_around_a_plain_secret_or_key(
    solutions: dict[str, Any], before: str, start: int, size: int, lower: bool, after: str
) -> None:
    """A plain run of the secret, or a key, is replaced where it stands; what is around it stays."""
    piece = CANARY[start : start + size]
    text = f"{before} {piece.lower() if lower else piece} {after}"
    keys = audit_reference.KEY_PATTERN
    assert solutions["redact"](text) == f"{keys.sub(REDACTED, before)} {REDACTED} {keys.sub(REDACTED, after)}"
