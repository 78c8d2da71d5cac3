"""Notebook 07's parts: the policy functions, `ask_approver`, `canonical`, `Budget`, `redact`, `audit_entry` and
`ChatAdapter`, each against its reference in `course_lib.desk` / `course_lib.adapters`, except `redact`, whose
prose says its reference is "stricter in places": its reference here is the literal reading of Part D's list.

Two observations are made with a stand-in the observer installs in the answer's own namespace, so that a part is
judged on its own rule and not on another part's: `audit_entry` calls `redact` ("then `redact` it (yours)"), and
the observation swaps in a small marking redact for the learner's and the reference's alike; `ChatAdapter` sends
with `post_json` ("use the imported `post_json`"), and the observation swaps in an in-process stand-in model that
records each request and answers from the example's script (no server, no clock).

The graded names of 07 are not its cells' grade_ids (`mode_for` is in `policy`, `Budget` in `budget`,
`ChatAdapter` in `chat_adapter`): `CELLS` maps each part to its solution cell.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
import time
import types
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from hypothesis import strategies as st

from course_grade.score.oracle import contract
from course_grade.score.oracle.contract import Family, Part, call_outcome, shape, shares_a_container, words_in
from course_lib.desk.data import CANARY
from course_lib.desk.log_safety import KEY_PATTERN, MAX_AUDIT_CHARS, REDACTED, SECRET_PIECE

ASSIGNMENT = "07_capstone"

CELLS = {
    "mode_for": "policy", "offered_tools": "policy", "effective_mode": "policy", "ask_approver": "ask_approver",
    "canonical": "canonical", "Budget": "budget", "redact": "redact", "audit_entry": "audit_entry",
    "ChatAdapter": "chat_adapter",
}  # fmt: skip
"""part (graded name) -> the grade_id of the solution cell that defines it."""


def _aborting(error: BaseException) -> None:
    if isinstance(error, contract.ABORTING):
        raise error


def _unchanged(value: Any, before: Any) -> bool:
    try:
        return bool(shape(value) == shape(before))
    except Exception:
        return True


def _copy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


# -- Part A: the policy table ------------------------------------------------------------------------------------

DESK_NAMES = ["get_order", "search_orders", "get_ticket", "issue_refund"]
NAMES = st.one_of(
    st.sampled_from(
        [*DESK_NAMES, "drop_table", "", " get_order", "get_order ", "GET_ORDER", "get_ordеr", "ｇｅｔ"]
    ),
    st.text(max_size=5),
)
NEAR_MISSES = ["AUTO", "Auto", " auto", "auto ", "auto\n", "\tconfirm", "Confirm", "CONFIRM", "confirm\x00", "",
               "ａｕｔｏ", "auto\u200b", "autо", "never", "Never", "yes", "true", "allow"]  # fmt: skip
MODE_VALUES = st.one_of(
    st.sampled_from(["auto", "confirm"]),
    st.sampled_from(NEAR_MISSES),
    st.sampled_from(
        [
            True,
            False,
            1,
            0,
            1.0,
            0.0,
            None,
            ["auto"],
            ("confirm",),
            {"auto": "auto"},
            ["confirm"],
            ("auto", "confirm"),
            [],
            {},
        ]
    ),  # fmt: skip
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=4),
)


class Table(NamedTuple):
    """A policy (a dict, or a MappingProxyType of it when `proxy`)."""

    items: dict[str, Any]
    proxy: bool

    def made(self) -> Any:
        return types.MappingProxyType(self.items) if self.proxy else self.items


@st.composite
def tables(draw: st.DrawFn, names: Any = NAMES) -> Table:
    return Table(draw(st.dictionaries(names, MODE_VALUES, max_size=6)), draw(st.booleans()))


@st.composite
def table_and_name(draw: st.DrawFn) -> tuple[Table, str]:
    table = draw(tables())
    held: list[str] = sorted(table.items)
    often: int = draw(st.integers(0, 3))
    name: str = draw(st.sampled_from(held)) if held and often else draw(NAMES)
    if name in table.items and draw(st.booleans()):  # the boundary: a near miss of a mode (case, spaces)
        table.items[name] = draw(st.sampled_from(NEAR_MISSES))
    return table, name


@st.composite
def exact_modes(draw: st.DrawFn) -> tuple[Table, str]:
    """A name mapped to exactly "auto" or "confirm", beside near misses of it."""
    name = draw(NAMES)
    items = draw(st.dictionaries(NAMES, MODE_VALUES, max_size=3))
    items[name] = draw(st.sampled_from(["auto", "confirm"]))
    return Table(items, draw(st.booleans())), name


def observe_mode_for(answer: Any, example: tuple[Table, str]) -> Any:
    """The returned mode (exact type and value); the policy unchanged."""
    table, name = example
    before = copy.deepcopy(table.items)
    got = call_outcome(answer, table.made(), name)
    return got, _unchanged(table.items, before)


def _policy_reference(name: str) -> Callable[[], Any]:
    def load() -> Any:
        from course_lib.desk import policy  # noqa: PLC0415

        return getattr(policy, name)

    return load


MODE_FOR = Part(
    ASSIGNMENT,
    "mode_for",
    _policy_reference("mode_for"),
    observe_mode_for,
    "the returned mode (exact type and value); the policy unchanged.",
    {
        "exact": Family(
            'in `mode_for`, return `"auto"` or `"confirm"` when `policy` maps `name` to exactly that string',
            "test_mode_for",
            exact_modes(),
        ),
        "never": Family(
            'in `mode_for`, return `"never"` for anything else',
            "test_mode_for",
            table_and_name(),
            examples=80,
        ),
    },
)


class Registered(NamedTuple):
    """The names given to `offered_tools`, and as what: a list, a tuple, a generator, dict keys."""

    names: list[str]
    kind: str

    def made(self, names: list[str]) -> Any:
        if self.kind == "tuple":
            return tuple(names)
        if self.kind == "generator":
            return (name for name in names)
        if self.kind == "keys":
            return dict.fromkeys(names).keys()
        if self.kind == "iterator":
            return iter(names)
        return names


@st.composite
def offers(draw: st.DrawFn, unregistered: bool = False, unsorted: bool = False) -> tuple[Table, Registered]:
    """A policy and the registered names; `unsorted`: at least two of them allowed, registered out of order."""
    names = draw(st.lists(NAMES, unique=True, min_size=2 if unsorted else 0, max_size=7))
    policy_names = st.sampled_from(names) | NAMES if names else NAMES
    table = draw(tables(policy_names))
    if unsorted:
        for name in draw(st.lists(st.sampled_from(names), min_size=2, max_size=len(names), unique=True)):
            table.items[name] = draw(st.sampled_from(["auto", "confirm"]))
        if names == sorted(names):
            names.reverse()
    if unregistered:  # the policy allows names nobody registered
        for name in draw(st.lists(NAMES, max_size=3)):
            if name not in names:
                table.items[name] = draw(st.sampled_from(["auto", "confirm"]))
    kind = draw(st.sampled_from(["list", "list", "tuple", "generator", "keys", "iterator"]))
    return table, Registered(names, kind)


def observe_offered(answer: Any, example: tuple[Table, Registered]) -> Any:
    """The returned list (exact type and value, not the caller's object); the caller's list and the policy as
    they were."""
    table, registered = example
    policy_before = copy.deepcopy(table.items)
    given = list(registered.names)
    made = registered.made(given)
    try:
        result = answer(table.made(), made)
    except Exception as error:
        _aborting(error)
        got: Any = ("raised", type(error).__name__)
    else:
        got = ("returned", shape(result), result is made or result is given)
    return got, given == registered.names, _unchanged(table.items, policy_before)


OFFERED = Part(
    ASSIGNMENT,
    "offered_tools",
    _policy_reference("offered_tools"),
    observe_offered,
    "the returned list (exact type and value, and whether it is the caller's own object); the caller's list and "
    "the policy unchanged.",
    {
        "offered": Family(
            "in `offered_tools`, return a `list` of the names in `registered` (a list, a tuple, or any other "
            'iterable such as a generator) whose mode, by `mode_for`, is not `"never"`',
            "test_offered_tools",
            offers(),
        ),
        "sorted": Family(
            "return that list sorted, whatever order `registered` gives the names in",
            "test_offered_tools",
            offers(unsorted=True),
        ),
        "registered_only": Family(
            "offer only registered tools: a name the policy holds but `registered` does not is never offered",
            "test_offered_tools",
            offers(unregistered=True),
        ),
        "unchanged": Family(
            "leave `registered` as it was given: never sort or change the caller's list",
            "test_offered_tools",
            offers(),
        ),
    },
)

CONCERNS = st.one_of(
    st.none(),
    st.lists(
        st.sampled_from(["tainted by tool output", "", " ", "over the limit", "\x00"]), max_size=3
    ).flatmap(lambda items: st.sampled_from([items, tuple(items)])),
)


@st.composite
def weighed(draw: st.DrawFn) -> tuple[Table, str, Any]:
    table, name = draw(st.one_of(exact_modes(), table_and_name()))
    return table, name, draw(CONCERNS)


def observe_effective(answer: Any, example: tuple[Table, str, Any]) -> Any:
    """The returned mode (exact type and value); no concerns given when `concerns` is None; inputs unchanged."""
    table, name, concerns = example
    before = copy.deepcopy((table.items, concerns))
    if concerns is None:
        got = call_outcome(answer, table.made(), name)
    else:
        got = call_outcome(answer, table.made(), name, concerns)
    return got, _unchanged((table.items, concerns), before)


EFFECTIVE = Part(
    ASSIGNMENT,
    "effective_mode",
    _policy_reference("effective_mode"),
    observe_effective,
    "the returned mode (exact type and value); the policy and concerns unchanged.",
    {
        "raised": Family(
            'in `effective_mode`, return the mode `mode_for` gives, except that `"auto"` becomes `"confirm"` when '
            "`concerns` is not empty, whatever it holds",
            "test_effective_mode",
            weighed(),
            examples=80,
        ),
        "missing": Family(
            "treat a missing `concerns` as no concern",
            "test_effective_mode",
            table_and_name().map(lambda pair: (*pair, None)),
        ),
        "never_lower": Family(
            'never lower a mode: a concern leaves `"confirm"` as `"confirm"` and `"never"` as `"never"`',
            "test_effective_mode",
            st.tuples(
                tables(),
                NAMES,
                st.lists(st.sampled_from(["tainted", ""]), min_size=1, max_size=2).flatmap(
                    lambda items: st.sampled_from([items, tuple(items)])
                ),
            ).map(
                lambda t: (
                    (Table({**t[0].items, t[1]: "confirm"}, t[0].proxy), t[1], t[2]) if len(t[2]) == 1 else t
                )
            ),  # fmt: skip
        ),
    },
)


# -- Part B: the approver ----------------------------------------------------------------------------------------


class ApprovalDown(Exception):
    """An approver's own exception class."""


class Interrupted(BaseException):
    """An approver's BaseException that is not an Exception."""


class LooksTrue:
    """Equal to True, truthy, hashing like True, but not True."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 1

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "LooksTrue()"


RAISED: dict[str, type[BaseException]] = {
    "RuntimeError": RuntimeError, "ValueError": ValueError, "KeyError": KeyError, "ZeroDivisionError":
    ZeroDivisionError, "ApprovalDown": ApprovalDown, "KeyboardInterrupt": KeyboardInterrupt, "SystemExit":
    SystemExit, "Interrupted": Interrupted, "GeneratorExit": GeneratorExit, "RecursionError": RecursionError,
}  # fmt: skip
ANSWERS: dict[str, Any] = {
    "True": True, "False": False, "'yes'": "yes", "1": 1, "1.0": 1.0, "'True'": "True", "[True]": [True],
    "None": None, "LooksTrue": LooksTrue(), "(True,)": (True,), "0": 0, "''": "", "'no'": "no",
}  # fmt: skip

json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=4), json_values, max_size=4)
REFUND = {"order_id": "A-1001", "amount_cents": 4200}


class Approval(NamedTuple):
    """How the approver of one example behaves: `kind` is none, answers, raises, meddles or late."""

    kind: str
    what: str
    name: str
    arguments: dict[str, Any]
    timeout: float


@st.composite
def approvals(draw: st.DrawFn, kinds: tuple[str, ...]) -> Approval:
    kind = draw(st.sampled_from(kinds))
    what = ""
    if kind == "answers":
        what = draw(st.sampled_from(sorted(ANSWERS)))
    elif kind == "raises":
        what = draw(st.sampled_from(sorted(RAISED)))
    elif kind == "meddles":
        what = draw(st.sampled_from(["True", "False", "'yes'"]))
    arguments = draw(st.one_of(st.just(REFUND), json_objects))
    if kind == "meddles":  # something nested for the meddler to change
        arguments = {**arguments, "deep": {"list": [1, {"x": "y"}]}}
    timeout = draw(st.sampled_from([0, 0.0, 0.01, 0.03])) if kind == "late" else 30.0
    return Approval(kind, what, draw(NAMES), arguments, timeout)


class FalsyApprover:
    """An approver object that is falsy (it has a __len__ of 0), yet an approver: it answers True."""

    def __len__(self) -> int:
        return 0

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []

    def __call__(self, name: Any, arguments: Any) -> Any:
        self.threads.append(threading.current_thread())
        return True


@contextlib.contextmanager
def _recording_joins(joins: list[tuple[threading.Thread, Any]]) -> Iterator[None]:
    """Every `Thread.join` in the block (of a subclass too) recorded with its timeout."""
    join = threading.Thread.join

    def recorded(thread: threading.Thread, timeout: float | None = None) -> None:
        joins.append((thread, _number(timeout)))
        join(thread, timeout)

    threading.Thread.join = recorded  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        threading.Thread.join = join  # type: ignore[method-assign]


@contextlib.contextmanager
def _installed_in(function: Any, names: dict[str, Any]) -> Iterator[None]:
    """`names` swapped into the namespace of `function` (the answer's own globals) for the block, where it
    already holds them."""
    namespace = getattr(function, "__globals__", None)
    if not isinstance(namespace, dict):
        yield
        return
    saved = {name: namespace[name] for name in names if name in namespace}
    namespace.update({name: value for name, value in names.items() if name in saved})
    try:
        yield
    finally:
        namespace.update(saved)


LATE_SECONDS = 5.0
"""How long a late approver waits before it answers True on its own (released as soon as the answer returns)."""


def observe_approver(answer: Any, example: Approval) -> Any:
    """(yes, and whether `why` is a non-empty str naming the exception's type when the approver raised); how the
    approver was called: (name, its arguments' value, whether that shares a container with the call's
    arguments, whether it ran in a daemon thread that is not the caller's) per call; whether a late approver was
    still waiting when the answer returned; and whether the call's arguments are as they were."""
    arguments = example.arguments
    before = copy.deepcopy(arguments)
    calls: list[Any] = []
    release, finished = threading.Event(), []

    workers: list[threading.Thread] = []

    def approver(name: Any, seen: Any) -> Any:
        here = threading.current_thread()
        workers.append(here)
        calls.append(
            (shape(name), shape(seen), seen is arguments or shares_a_container(seen, arguments),
             here is not threading.main_thread() and here.daemon)
        )  # fmt: skip
        if example.kind == "raises":
            raise RAISED[example.what]("the approval service is down")
        if example.kind == "meddles":
            seen["amount_cents"] = 1
            seen["deep"]["list"].append("more")
            seen["deep"]["list"][1]["x"] = "changed"
        if example.kind == "late":
            release.wait(LATE_SECONDS)
            finished.append(True)
            return True
        return ANSWERS.get(example.what, True)

    given: Any = None if example.kind == "none" else approver
    if example.kind == "falsy":
        given = FalsyApprover()
    joins: list[tuple[threading.Thread, Any]] = []
    try:
        with _recording_joins(joins):
            result = answer(given, example.name, arguments, example.timeout)
    except BaseException as error:
        _aborting(error)
        got: Any = ("raised", type(error).__name__)
    else:
        waiting = not finished
        release.set()
        if type(result) is tuple and len(result) == 2:
            yes, why = result
            named = (
                example.kind != "raises" or words_in(why, (example.what,)) == (example.what,)
                if type(why) is str
                else False
            )
            got = ("returned", shape(yes), type(why) is str and why != "", named, waiting)
        else:
            got = ("returned", shape(result))
    release.set()
    workers += getattr(given, "threads", [])
    waited = [timeout for thread, timeout in joins if any(thread is worker for worker in workers)]
    return got, calls, waited, _unchanged(arguments, before)


APPROVER = Part(
    ASSIGNMENT,
    "ask_approver",
    _policy_reference("ask_approver"),
    observe_approver,
    "yes (exact type and value), whether why is a non-empty str (naming the exception's type when the approver "
    "raised), whether a late approver was still waiting at the return; each call of the approver (its name and "
    "arguments, whether they share a container with the caller's, whether in a daemon worker thread); the "
    "arguments unchanged; the timeout of every join of the approver's thread (Thread.join recorded while "
    "the answer runs). The rest of why is open.",
    {
        "pair": Family(
            "return a pair `(yes, why)`: `yes` is `True` or `False`, and `why` a non-empty `str`",
            "test_ask_approver_only_true",
            approvals(("none", "answers", "raises", "meddles")),
        ),
        "none": Family(
            "return `False` (and a reason) when `approver` is `None`",
            "test_ask_approver_only_true",
            approvals(("none", "falsy")),
            examples=12,
        ),
        "thread": Family(
            "call `approver(name, a_copy)` exactly once, in a worker thread started with "
            "`threading.Thread(..., daemon=True)`",
            "test_ask_approver_failures",
            approvals(("answers", "raises")),
            examples=30,
        ),
        "copy": Family(
            "make `a_copy` with `copy.deepcopy(arguments)`, never `arguments` itself or a shallow copy",
            "test_ask_approver_copy",
            approvals(("meddles", "answers")),
            examples=30,
        ),
        "timeout": Family(
            "wait for the thread at most `timeout` seconds, with `join(timeout)`, and answer no if it "
            "`is_alive()` after that",
            "test_ask_approver_timeout",
            approvals(("late", "answers")),
            examples=12,
        ),
        "raises": Family(
            "answer no when the approver raises, whatever it raises",
            "test_ask_approver_failures",
            approvals(("raises",)),
            examples=30,
        ),
        "only_true": Family(
            "answer yes only when the approver returned an object that **is** `True`",
            "test_ask_approver_only_true",
            approvals(("answers",)),
            examples=40,
        ),
    },
)


# -- Part C: canonical and Budget -------------------------------------------------------------------------------

WHOLE_FLOATS = st.sampled_from([1.0, -3.0, 0.0, -0.0, 2.0**53, 2.0**70, 1e16, 1e300, -1e22, 100.0])
number_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**18, max_value=10**60), WHOLE_FLOATS,
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([1.5, 0.1, -2.5, 1e-300, 5e-324]),
    st.text(max_size=3), st.sampled_from(["1.0", "true", "1"]),
)  # fmt: skip
canonical_values = st.recursive(
    number_leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=12,
)
BAD_LEAVES = st.sampled_from([float("nan"), float("inf"), float("-inf"), {1, 2}, set(), frozenset({"a"})])


@st.composite
def with_a_bad_leaf(draw: st.DrawFn) -> Any:
    """A JSON value with NaN, an infinity or a set somewhere, perhaps beside whole floats."""
    bad: Any = draw(BAD_LEAVES)
    for _ in range(draw(st.integers(0, 3))):
        bad = draw(st.sampled_from([[bad], {"k": bad}, [1.0, bad], {"a": 2.0, "b": bad}]))
    return {**draw(st.dictionaries(st.text(max_size=3), canonical_values, max_size=3)), "z": bad}


@st.composite
def reordered(draw: st.DrawFn) -> Any:
    """A JSON object whose keys come in a drawn order, at every depth."""
    value = draw(st.dictionaries(st.text(max_size=3), canonical_values, max_size=5))

    def shuffle(item: Any) -> Any:
        if isinstance(item, dict):
            keys = draw(st.permutations(list(item)))
            return {key: shuffle(item[key]) for key in keys}
        if isinstance(item, list):
            return [shuffle(x) for x in item]
        return item

    return shuffle(value)


call_names = st.sampled_from(["get_order", "f", "", "issue_refund", "é x"])


def observe_canonical(answer: Any, example: tuple[str, Any]) -> Any:
    """The returned text (exact type and value)."""
    name, arguments = example
    return call_outcome(answer, name, arguments)


def _budget_reference(name: str) -> Callable[[], Any]:
    def load() -> Any:
        from course_lib.desk import budget  # noqa: PLC0415

        return getattr(budget, name)

    return load


CANONICAL = Part(
    ASSIGNMENT,
    "canonical",
    _budget_reference("canonical"),
    observe_canonical,
    "the returned text (exact type and value).",
    {
        "whole": Family(
            "replace every `float` that is a whole number (`1.0`, `-3.0`) by the equal `int`, at any depth inside "
            "dicts and lists",
            "test_canonical",
            st.tuples(call_names, canonical_values),
        ),
        "others": Family(
            "keep every other value as it is: `True` is not a float and stays `true`, `1.5` stays `1.5`",
            "test_canonical",
            st.tuples(call_names, canonical_values),
        ),
        "sorted": Family(
            'return `name + " " + json.dumps(that value, sort_keys=True, allow_nan=False)`, so that key order '
            "never matters",
            "test_canonical",
            st.tuples(call_names, reordered()),
        ),
        "fallback": Family(
            "if `json.dumps` raises a `TypeError`, `ValueError` or `RecursionError` (for `NaN`, an infinity or a "
            '`set`), return `name + " " + repr(arguments)` instead',
            "test_canonical",
            st.tuples(call_names, with_a_bad_leaf()),
        ),
    },
)


class FakeClock:
    """A clock a test moves by hand, counting its reads."""

    def __init__(self, now: float) -> None:
        self.now, self.reads = now, 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


class Walk(NamedTuple):
    """A budget's arguments (`clock` given when `start` is not None) and the calls made on it in order."""

    kwargs: dict[str, Any]
    start: float | None
    ops: list[tuple[Any, ...]]


REPEAT_ARGUMENTS = [{"order_id": "A-1003"}, {"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1.0, "b": 2}, {"a": True,
                    "b": 2}, {}, {"x": [1.0, {"y": 2}]}, {"x": [1, {"y": 2.0}]}, {"q": float("nan")}]  # fmt: skip
OPS = st.one_of(
    st.tuples(st.just("tick"), st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.5, 4.0, 30.0])),
    st.sampled_from([("elapsed",), ("remaining",), ("out_of_time",), ("steps_left",), ("steps",)]),
    st.just(("next_request",)),
    st.tuples(st.just("repeat"), st.sampled_from(["get_order", "get_ticket"]), st.sampled_from(range(9))),
)


@st.composite
def walks(draw: st.DrawFn, ops: Any = OPS, max_ops: int = 14) -> Walk:
    kwargs: dict[str, Any] = {}
    if draw(st.booleans()):
        kwargs["max_steps"] = draw(st.integers(0, 5))
    if draw(st.booleans()):
        kwargs["max_seconds"] = draw(st.sampled_from([0, 0.0, 0.5, 1, 2.5, 5.0, 30.0]))
    if draw(st.booleans()):
        kwargs["max_repeats"] = draw(st.integers(0, 4))
    start = draw(st.sampled_from([0.0, 100.0, 1000.25, 7]))
    return Walk(kwargs, start, draw(st.lists(ops, max_size=max_ops)))


@st.composite
def spent_walks(draw: st.DrawFn) -> Walk:
    """A walk that ends past its time budget, asking for `remaining()` and `elapsed()` there (the boundary
    of "never below `0.0`")."""
    walk = draw(walks(OPS.filter(lambda op: op[0] != "repeat"), max_ops=4))
    past = ("tick", draw(st.sampled_from([30.0, 30.25, 100.0, 1000.0])))
    return walk._replace(ops=[*walk.ops, past, ("remaining",), ("elapsed",), ("remaining",)])


def _number(value: Any) -> Any:
    """A number by its value (int or float alike); anything else as it is."""
    if type(value) in (int, float):
        return ("number", float(value))
    return shape(value)


def observe_budget(answer: Any, example: Walk) -> Any:
    """Per call: its outcome (numbers by value; a status, a bool, a count exactly), how often the clock was read
    when the budget was created; the arguments kept as attributes."""
    clock = FakeClock(example.start) if example.start is not None else None
    kwargs = dict(example.kwargs)
    if clock is not None:
        kwargs["clock"] = clock
    try:
        budget = answer(**kwargs)
    except Exception as error:
        _aborting(error)
        return ("raised", type(error).__name__)
    outcomes: list[Any] = [
        ("clock reads", clock.reads if clock is not None else None),
        ("kept", _kept(budget, clock)),
    ]
    for op in example.ops if clock is not None else ():
        try:
            if op[0] == "tick":
                assert clock is not None
                clock.now += op[1]
                continue
            if op[0] == "steps":
                outcomes.append((op[0], shape(budget.steps)))
                continue
            if op[0] == "repeat":
                outcomes.append((op[0], shape(budget.repeat(op[1], copy.deepcopy(REPEAT_ARGUMENTS[op[2]])))))
                continue
            value = getattr(budget, op[0])()
            outcomes.append((op[0], _number(value) if op[0] in ("elapsed", "remaining") else shape(value)))
        except Exception as error:
            _aborting(error)
            outcomes.append((op[0], ("raised", type(error).__name__)))
    return outcomes


def budget_focus(*names: str) -> Callable[[Any, Walk], Any]:
    """`observe_budget` for one family's rule: only the outcomes of the calls (and readings) named, so that a
    mistake in another method costs this family's cell nothing; a constructor that raises, as it is."""

    def observe(answer: Any, example: Walk) -> Any:
        outcomes = observe_budget(answer, example)
        if outcomes and outcomes[0] == "raised":
            return outcomes
        return [outcome for outcome in outcomes if outcome[0] in names]

    return observe


def _kept(budget: Any, clock: Any) -> Any:
    """The four arguments kept as attributes (the clock as the very object given, or time.monotonic), `steps`."""
    try:
        kept = [
            shape(getattr(budget, name, "missing")) for name in ("max_steps", "max_seconds", "max_repeats")
        ]
        given = getattr(budget, "clock", None)
        kept.append(given is clock if clock is not None else given is time.monotonic)
        kept.append(shape(getattr(budget, "steps", "missing")))
    except Exception as error:
        _aborting(error)
        return ("raised", type(error).__name__)
    return kept


@st.composite
def inits(draw: st.DrawFn) -> Walk:
    walk = draw(walks(max_ops=0))
    return Walk(walk.kwargs, draw(st.sampled_from([walk.start, None])), [])


BUDGET = Part(
    ASSIGNMENT,
    "Budget",
    _budget_reference("Budget"),
    observe_budget,
    "a script of calls on a fresh Budget with a fake clock: each call's outcome (elapsed and remaining by value, "
    "int or float alike; every other result with its exact type), the clock reads at creation. How often a method "
    "reads the clock is open. Each family compares the outcomes of the calls its sentence is about.",
    {
        "init": Family(
            "take `Budget(max_steps=8, max_seconds=30.0, max_repeats=3, clock=time.monotonic)`, with those "
            "defaults, and keep the four as attributes of those names",
            "test_budget_steps",
            inits(),
            examples=30,
            observe=budget_focus("kept"),
        ),
        "clock_once": Family(
            "read `clock()` exactly once when the budget is created",
            "test_budget_time",
            walks(max_ops=6),
            examples=30,
            observe=budget_focus("clock reads"),
        ),
        "time": Family(
            "in `remaining()`, return `max_seconds - elapsed()`, but never below `0.0`",
            "test_budget_time",
            st.one_of(walks(OPS.filter(lambda op: op[0] != "repeat")), spent_walks()),
            observe=budget_focus("elapsed", "remaining"),
        ),
        "out_of_time": Family(
            "in `out_of_time()`, return `True` once `remaining()` is `0` or less, and `False` before",
            "test_budget_time",
            walks(st.one_of(st.sampled_from([("out_of_time",), ("remaining",)]), OPS)),
            observe=budget_focus("out_of_time"),
        ),
        "steps": Family(
            "in `next_request()`, take one model request: if `max_steps` requests were already taken, return "
            '`"step_budget"`; otherwise, if `out_of_time()`, return `"time_budget"`',
            "test_budget_steps",
            walks(st.one_of(st.just(("next_request",)), OPS), max_ops=16),
            examples=80,
            observe=budget_focus("next_request"),
        ),
        "not_counted": Family(
            "never count a refused request: `steps` stays as it was when `next_request()` returns a status",
            "test_budget_steps",
            walks(
                st.sampled_from([("next_request",), ("steps",), ("steps_left",), ("tick", 1.0)]), max_ops=16
            ),
            observe=budget_focus("steps", "steps_left"),
        ),
        "repeat": Family(
            "in `repeat(name, arguments)`, count one more proposal of the call `canonical(name, arguments)` (use "
            "yours) and return `True` when that call has now been proposed **more than** `max_repeats` times",
            "test_budget_repeats",
            walks(
                st.tuples(
                    st.just("repeat"), st.sampled_from(["get_order", "get_ticket"]), st.sampled_from(range(9))
                ),
                max_ops=16,
            ),  # fmt: skip
            examples=80,
            observe=budget_focus("repeat"),
        ),
    },
)

# -- Part D: redact (the literal reading of its list) ------------------------------------------------------------

_RUNS = "|".join(
    re.escape(CANARY[start : start + size])
    for size in range(len(CANARY), SECRET_PIECE - 1, -1)
    for start in range(len(CANARY) - size + 1)
)
_RUN = re.compile(f"(?:{_RUNS})", re.IGNORECASE)
_ESCAPE = re.compile(
    r"\\+u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})|&#(\d+);|&#x([0-9a-fA-F]+);"
)
_PIECES = [CANARY[start : start + SECRET_PIECE].casefold() for start in range(len(CANARY) - SECRET_PIECE + 1)]


def _decoded(match: re.Match[str]) -> str:
    hex4, hex2, percent, decimal, hexadecimal = match.groups()
    code = int(decimal) if decimal else int(hex4 or hex2 or percent or hexadecimal, 16)
    return chr(code) if code < 0x110000 else match[0]


def redact(text: str) -> str:
    """Part D's list read literally (the families keep to inputs on which its readings agree)."""
    text = KEY_PATTERN.sub(REDACTED, _RUN.sub(REDACTED, text))
    plain = text
    for _ in range(4):
        unescaped = _ESCAPE.sub(_decoded, plain)
        if unescaped == plain:
            break
        plain = unescaped
    plain = unicodedata.normalize("NFKC", plain)
    plain = "".join(char for char in plain if unicodedata.category(char) != "Cf").casefold()
    if any(piece in plain for piece in _PIECES) or KEY_PATTERN.search(plain):
        return REDACTED
    return text


FILLER = "ghjlmnopqrsuvwxyzGHJLMNOPQRSUVWXYZ .,!?:=/()@_é✓"
"""Characters that are not in CANARY in any case, make no escape, and start no key."""
fillers = st.text(alphabet=FILLER, min_size=1, max_size=6)


def _cased(draw: st.DrawFn, text: str) -> str:
    how = draw(st.sampled_from(["as is", "lower", "upper", "mixed"]))
    if how == "mixed":
        return "".join(draw(st.sampled_from([c.lower(), c.upper()])) for c in text)
    return text.lower() if how == "lower" else text.upper() if how == "upper" else text


@st.composite
def piece_of_canary(draw: st.DrawFn, at_least: int) -> str:
    size = draw(st.integers(at_least, len(CANARY)) | st.sampled_from([at_least, len(CANARY)]))
    start = draw(st.integers(0, len(CANARY) - size))
    return CANARY[start : start + size]


@st.composite
def plain_secrets(draw: st.DrawFn) -> str:
    """Filler and runs of the secret (whole, halves, any piece of 10 or more; shorter pieces too), any case."""
    parts = [draw(fillers) if draw(st.booleans()) else ""]
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 3)):
            parts.append(_cased(draw, draw(piece_of_canary(SECRET_PIECE))))
        else:
            size = draw(st.integers(1, SECRET_PIECE - 1))
            start = draw(st.integers(0, len(CANARY) - size))
            parts.append(_cased(draw, CANARY[start : start + size]))
        parts.append(draw(fillers))
    if not draw(st.integers(0, 3)):
        parts[-1] = ""
    return "".join(parts)


ZERO_WIDTH = ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u200d"]


SPELLINGS = ["u", "uu", "x", "pct", "dec", "hex", "nested", "wide", "zw"]


def _spelled(draw: st.DrawFn, char: str, plain: bool = True) -> str:
    code = ord(char)
    how = draw(st.sampled_from(["plain", "plain", *SPELLINGS] if plain else SPELLINGS))
    if how == "u":
        return draw(st.sampled_from([f"\\u{code:04x}", f"\\u{code:04X}"]))
    if how == "uu":
        return f"\\\\u{code:04x}"
    if how == "x":
        return f"\\x{code:02x}"
    if how == "pct":
        return draw(st.sampled_from([f"%{code:02x}", f"%{code:02X}"]))
    if how == "dec":
        return f"&#{code};"
    if how == "hex":
        return f"&#x{code:02x};"
    if how == "nested":
        return f"%5Cu{code:04x}"
    if how == "wide" and "!" <= char <= "~":
        return chr(code + 0xFEE0)
    if how == "zw":
        return draw(st.sampled_from(ZERO_WIDTH)) + char
    return char


@st.composite
def hidden_secrets(draw: st.DrawFn) -> str:
    """A piece of the secret (10 or more) with some characters escaped, widened or split by invisible ones."""
    piece = _cased(draw, draw(piece_of_canary(SECRET_PIECE)))
    every = draw(
        st.integers(2, SECRET_PIECE - 1)
    )  # one in `every` characters is spelled: no plain run is left
    spelled = "".join(_spelled(draw, char, index % every != every - 1) for index, char in enumerate(piece))
    return draw(fillers) + spelled + draw(fillers)


@st.composite
def keys(draw: st.DrawFn) -> str:
    from course_lib.turns import STAND_IN_KEY  # noqa: PLC0415

    key = draw(st.one_of(
        st.sampled_from(["sk-proj-abcdefghijklmnopqrstuvwxyz", "Bearer abcdef0123456789", STAND_IN_KEY,
                         "rk-12345678", "PK-abcdefgh", "bearer\tABCDEFGH.~+/=", "sk-1234567"]),
        st.from_regex(r"(sk|rk|pk)-[A-Za-z0-9_-]{8,20}", fullmatch=True),
    ))  # fmt: skip
    around = st.text(alphabet=" .,:;()=", max_size=3)
    return draw(around) + key + draw(around) + draw(st.sampled_from(["", "(sent)", " and more"]))


NOTHING_TO_HIDE = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=FILLER + "ITK-7f3c9a", max_size=14),
    st.sampled_from(["", "caf\u00e9 \u2713 100% off", "A-1001, A-1002 and T-6", "50%25 &amp; \\n done", "sk-",
                     "Bearer", "\uff21-1001 \ufb01le, ITK-7f3c", "caf\\u00e9 at 10%20", "order A-1001 &#53; items",
                     "lamp\ud800", "\udfff", "get_order\ud800", "%", "&#;", "\\u12", "%zz", "ITK-7f3c9a1",
                     CANARY[:9], CANARY[-9:], "x\u200by", "ﬁ", "sk-1234", "&#99999999; far away"]),
)  # fmt: skip


def observe_redact(answer: Any, text: str) -> Any:
    """The returned text (exact type and value)."""
    return call_outcome(answer, text)


REDACT = Part(
    ASSIGNMENT,
    "redact",
    lambda: redact,
    observe_redact,
    "the returned text (exact type and value), against the literal reading of Part D's list, on inputs where its "
    "readings agree (no adjacent secrets, escapes of one nesting, no out-of-range code point near a secret).",
    {
        "plain": Family(
            "replace every run of at least `SECRET_PIECE` consecutive characters of `CANARY`, in any letter case, "
            "by `REDACTED`: the whole secret goes, and so does either half of it, and the rest of the text stays "
            "as it was",
            "test_redact_plain",
            plain_secrets(),
            examples=80,
        ),
        "keys": Family(
            "replace every match of `KEY_PATTERN` by `REDACTED`, keeping the text around it",
            "test_redact_keys_and_safety",
            keys(),
        ),
        "hidden": Family(
            "if that still contains a piece of `CANARY` of `SECRET_PIECE` characters (casefolded too), or a match "
            "of `KEY_PATTERN`, return `REDACTED` alone",
            "test_redact_escaped",
            hidden_secrets(),
            examples=80,
        ),
        "unchanged": Family(
            "return text with nothing to hide unchanged, character for character",
            "test_redact_keys_and_safety",
            NOTHING_TO_HIDE,
            examples=80,
        ),
    },
)


# -- Part E: audit_entry ------------------------------------------------------------------------------------------

MARK = "S3CR3T"


def marking_redact(text: str) -> str:
    """The redact an observation of audit_entry installs: MARK becomes REDACTED (so the text grows), and a lone
    surrogate, which a text made visible first never holds, becomes '¿'."""
    text = text.replace(MARK, REDACTED)
    return "".join("¿" if "\ud800" <= char <= "\udfff" else char for char in text)


FIELDS = ("step", "id", "name", "arguments", "decision", "reason", "outcome")


def _safe(value: Any) -> Any:
    if isinstance(value, str):
        text = _installed_redact(value.encode("utf-8", "backslashreplace").decode("utf-8"))
        if len(text) > MAX_AUDIT_CHARS:
            text = f"{text[:MAX_AUDIT_CHARS]}...[{len(text) - MAX_AUDIT_CHARS} more chars]"
        return text
    if isinstance(value, dict):
        return {_safe(str(key)): _safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_safe(item) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return _safe(repr(value))


_installed: list[Callable[[str], str]] = [redact]


def _installed_redact(text: str) -> str:
    return _installed[-1](text)


def audit_entry(
    step: Any, call_id: Any, name: Any, arguments: Any, decision: Any, reason: Any, outcome: Any
) -> dict[str, Any]:
    """Part E's list read literally, with the redact an observation installs (course_lib's clips containers and
    depth past what the prose's inputs reach, and treats any Mapping as a dict)."""
    fields = dict(zip(FIELDS, (step, call_id, name, arguments, decision, reason, outcome), strict=True))
    return {key: _safe(value) for key, value in fields.items()}


class Opaque:
    """An object of no JSON type, with a fixed repr."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __repr__(self) -> str:
        return f"Opaque({self.label!r})"

    def __str__(self) -> str:
        return self.label


texts = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", "policy: auto", MARK, f"x{MARK}y", "get\ud800", "\udfff", "a\ud83d", "\ud83d\ude00",
                     "😀", "\\ud800", "é"]),
    st.integers(MAX_AUDIT_CHARS - 8, MAX_AUDIT_CHARS + 3).flatmap(
        lambda n: st.sampled_from(["x" * n, "x" * (n - len(MARK)) + MARK, MARK + "y" * n, "\ud800" * (n // 6),
                                   "é" * n])  # fmt: skip
    ),
    st.sampled_from(["z" * 1000, "\udfff" + "w" * 5000]),
)  # fmt: skip
others = st.one_of(
    st.sampled_from(
        [
            Opaque("thing"),
            Opaque(MARK),
            Opaque("\ud800"),
            Opaque("o" * 400),
            b"bytes",
            b"\xff",
            frozenset({1}),
            {2},
            set(),
            range(3),
            1j,
            Ellipsis,
        ]
    ),  # fmt: skip
    st.builds(Opaque, st.text(max_size=4)),
)
entry_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**18) + 1, 10**18 - 1), st.sampled_from([0, 1, -1, 10**17]),
    st.floats(allow_nan=False, allow_infinity=False), texts, others,
)  # fmt: skip
entry_keys = st.one_of(
    st.text(max_size=4), st.sampled_from([MARK, "\ud800", "k" * 305]), st.integers(-5, 5), st.none(),
    st.booleans(), st.sampled_from([1.5, (1, "a"), b"k"]),
)  # fmt: skip
entry_values = st.recursive(
    entry_leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(entry_keys, inner, max_size=4),
    ),
    max_leaves=12,
)


@st.composite
def entries(draw: st.DrawFn, focus: Any = entry_values) -> tuple[Any, ...]:
    shared = draw(st.lists(entry_values, max_size=2))
    arguments = draw(focus)
    if isinstance(arguments, dict) and draw(st.booleans()):
        arguments = {**arguments, "a": shared, "b": [shared, shared]}
    plain = st.one_of(texts, st.integers(0, 9), st.none())
    return (draw(st.integers(0, 9) | focus), draw(plain | focus), draw(plain | focus), arguments,
            draw(plain | focus), draw(plain | focus), draw(plain | focus))  # fmt: skip


def observe_audit(answer: Any, example: tuple[Any, ...]) -> Any:
    """With `redact` the marking one in the answer's namespace: the returned dict (values and exact types all the
    way down, its keys' order, whether it shares a container with the arguments); the arguments unchanged."""
    before = _copy(example)
    namespace = getattr(answer, "__globals__", None)
    mine = namespace is globals()
    saved = namespace.get("redact", None) if namespace is not None and not mine else None
    if mine:
        _installed.append(marking_redact)
    elif namespace is not None:
        namespace["redact"] = marking_redact
    try:
        result = answer(*example)
    except Exception as error:
        _aborting(error)
        got: Any = ("raised", type(error).__name__)
    else:
        order = list(result) if type(result) is dict else None
        got = ("returned", shape(result), order, shares_a_container(result, list(example)))
    finally:
        if mine:
            _installed.pop()
        elif namespace is not None:
            namespace["redact"] = saved
    return got, _unchanged(example, before)


AUDIT = Part(
    ASSIGNMENT,
    "audit_entry",
    lambda: audit_entry,
    observe_audit,
    "with the namespace's redact swapped for a marking one: the returned dict (values and exact types all the way "
    "down, key order, no container shared with the input); the input unchanged.",
    {
        "fields": Family(
            'return a dict with exactly the keys `"step"`, `"id"`, `"name"`, `"arguments"`, `"decision"`, '
            '`"reason"` and `"outcome"`, in that order',
            "test_audit_entry_fields",
            entries(),
        ),
        "strings": Family(
            "make a `str` safe by first making lone surrogates visible with "
            '`text.encode("utf-8", "backslashreplace").decode("utf-8")`',
            "test_audit_entry_strings",
            entries(texts),
        ),
        "clip": Family(
            "if it is longer than `MAX_AUDIT_CHARS` (300), keep its first 300 characters followed by "
            "`...[N more chars]`, where N is how many were cut",
            "test_audit_entry_strings",
            entries(texts),
        ),
        "containers": Family(
            "make a `dict` safe as a new dict whose keys (turned into `str`) and values are made safe the same way",
            "test_audit_entry_safe",
            entries(),
            examples=80,
        ),
        "others": Family(
            "make anything else safe as its `repr()`, made safe as a `str`",
            "test_audit_entry_safe",
            entries(
                st.one_of(
                    others, st.lists(others, max_size=3), st.dictionaries(entry_keys, others, max_size=3)
                )
            ),  # fmt: skip
        ),
        "unchanged": Family(
            "never change what it was given: `arguments` and everything in it stay as they were",
            "test_audit_entry_safe",
            entries(),
        ),
    },
)


# -- Part F: ChatAdapter -----------------------------------------------------------------------------------------


class Conversation(NamedTuple):
    """An adapter's tools (desk tool names) and model (None: the default), the calls made on it in order, and the
    stand-in model's answers to its requests in order: ("json", payload) or ("http", status)."""

    tools: list[str]
    model: str | None
    ops: list[tuple[Any, ...]]
    answers: list[tuple[str, Any]]


call_ids = st.sampled_from(["call_1", "call_2", "call_1", "c", "", "call_" + "9" * 30])
wire_names = st.sampled_from(
    ["get_order", "search_orders", "get_ordеr", "bad name", "", "x" * 65, "issue_refund"]
)
call_arguments = st.sampled_from(
    [
        '{"order_id": "A-1003"}',
        "{}",
        '{"order_id": "A-10',
        "[1]",
        '{"a": 1, "a": 2}',
        "null",
        '{"q": NaN}',
        "",
    ]
)


@st.composite
def tool_calls(draw: st.DrawFn, broken: bool = False) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": draw(call_ids),
        "type": draw(st.sampled_from(["function", "function", "function", "custom", "web_search"])),
        "function": {"name": draw(wire_names), "arguments": draw(call_arguments)},
    }
    if broken:  # a function call lacking a field (what a call of another type lacks is left open)
        call["type"] = "function"
        where = draw(st.sampled_from(["id", "function", "name", "arguments"]))
        if where in ("name", "arguments"):
            del call["function"][where]
        else:
            del call[where]
    return call


@st.composite
def answers(draw: st.DrawFn, kinds: tuple[str, ...] = ("text", "calls")) -> tuple[str, Any]:
    kind = draw(st.sampled_from(kinds))
    if kind == "http":
        return ("http", draw(st.sampled_from([400, 404, 429, 500, 503])))
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if kind in ("text", "empty", "length"):
        message["content"] = draw(st.sampled_from(["hello", "", "é ✓", "The order is in transit."]))
    if kind in ("calls", "broken", "length", "empty"):
        size = draw(st.integers(0 if kind == "empty" else 1, 4))
        message["tool_calls"] = [draw(tool_calls()) for _ in range(size)]
        if kind == "broken":
            message["tool_calls"].insert(draw(st.integers(0, size)), draw(tool_calls(broken=True)))
        if kind != "empty" and draw(st.booleans()):
            message["content"] = draw(st.sampled_from(["Let me look.", ""]))
    if kind == "empty" and draw(st.booleans()):
        message["content"] = None
    if draw(st.booleans()):
        message.update(
            draw(st.sampled_from([{"refusal": None}, {"annotations": []}, {"audio": None, "x": [1]}]))
        )
    finish = draw(st.sampled_from(["stop", "tool_calls", "content_filter", None, "absent"]))
    if kind == "length":
        finish = "length"
    choice: dict[str, Any] = {"index": 0, "message": message}
    if finish != "absent":
        choice["finish_reason"] = finish
    payload: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [choice]}
    if not draw(st.integers(0, 4)):  # n > 1: only choices[0] counts
        other = {"role": "assistant", "content": "another choice", "tool_calls": [draw(tool_calls())]}
        payload["choices"].append({"index": 1, "message": other, "finish_reason": "length"})
    if kind == "malformed":
        payload = draw(st.sampled_from([{}, {"choices": []}, {"choices": [{"index": 0}]},
                                        {"choices": [{"index": 0, "finish_reason": "stop"}]}]))  # fmt: skip
    return ("json", payload)


results = st.lists(
    st.tuples(call_ids, st.sampled_from(['{"result": 1}', "", '{"error": "no"}', "é"]), st.booleans()),
    max_size=4,
)
user_texts = st.sampled_from(["hi", "Where is A-1003?", "", "a new question", "é ✓"])
timeouts = st.sampled_from([5, 5.0, 0.5, 30.0, 0.25])


@st.composite
def conversations(draw: st.DrawFn, kinds: tuple[str, ...] = ("text", "calls"), restarts: bool = False) -> Any:
    tools = draw(st.lists(st.sampled_from(DESK_NAMES), unique=True, max_size=3))
    ops: list[tuple[Any, ...]] = [("start", draw(user_texts), draw(timeouts))]
    for _ in range(draw(st.integers(0, 3))):
        if restarts and draw(st.integers(0, 2)) == 0:
            ops.append(("start", draw(user_texts), draw(timeouts)))
        else:
            ops.append(("reply", draw(results), draw(timeouts)))
    script = [draw(answers(kinds)) for _ in ops]
    model = draw(st.sampled_from([None, None, "gpt-test", "other-model"]))
    return Conversation(tools, model, ops, script)


def _adapter_reference() -> Any:
    from course_lib.adapters import ChatAdapter  # noqa: PLC0415

    return ChatAdapter


def observe_adapter(answer: Any, example: Conversation) -> Any:
    """With `post_json` a recording stand-in model in the answer's namespace: `api`, `requests` after each call,
    each call's turn (exact types) or error (ModelTurnError; ModelHTTPError with its status), and every request
    as the wire carries it (base, path, JSON body, timeout)."""
    from course_lib.desk import desk_toolbox  # noqa: PLC0415
    from course_lib.errors import ModelHTTPError, ModelTurnError  # noqa: PLC0415
    from course_lib.turns import ToolResult  # noqa: PLC0415

    sent: list[Any] = []
    script = list(example.answers)

    def post_json(base: Any, path: Any, payload: Any, timeout: Any = None) -> Any:
        sent.append((base, path, json.loads(json.dumps(payload)), _number(timeout)))
        if not script:
            raise ModelHTTPError(500, "the script ran out")
        kind, what = script.pop(0)
        if kind == "http":
            raise ModelHTTPError(what, "the stand-in model failed")
        return copy.deepcopy(what)

    box = desk_toolbox()
    tools = [box[name] for name in example.tools]
    methods = (
        [getattr(item, "__func__", item) for item in vars(answer).values()]
        if isinstance(answer, type)
        else []
    )
    spaces = {id(fn.__globals__): fn for fn in methods if isinstance(fn, types.FunctionType)}
    observed: list[Any] = []
    with contextlib.ExitStack() as stack:
        for fn in spaces.values():
            stack.enter_context(_installed_in(fn, {"post_json": post_json}))
        try:
            client = (
                answer("http://stand-in", tools)
                if example.model is None
                else answer("http://stand-in", tools, model=example.model)
            )
            observed.append((shape(getattr(client, "api", None)), shape(getattr(client, "requests", None))))
        except Exception as error:
            _aborting(error)
            return ("raised", type(error).__name__)
        for op in example.ops:
            try:
                if op[0] == "start":
                    turn = client.start(op[1], timeout=op[2])
                else:
                    turn = client.reply([ToolResult(*result) for result in op[1]], timeout=op[2])
                got: Any = ("returned", shape(turn))
            except ModelHTTPError as error:
                got = ("raised", "ModelHTTPError", error.status)
            except ModelTurnError:
                got = ("raised", "ModelTurnError")
            except Exception as error:
                _aborting(error)
                got = ("raised", type(error).__name__)
            observed.append((got, shape(getattr(client, "requests", None))))
    return observed, sent


CHAT_ADAPTER = Part(
    ASSIGNMENT,
    "ChatAdapter",
    _adapter_reference,
    observe_adapter,
    "with `post_json` swapped for a recording stand-in model in the answer's namespace: `api`, `requests` after "
    "each call, each call's turn (exact types) or error (ModelTurnError; ModelHTTPError and its status), and "
    "every request as the wire carries it (base, path, JSON body, timeout). Error messages are open.",
    {
        "requests": Family(
            'have `api = "chat"` as a class attribute, and a `requests` count that is 0 until the first request '
            "and counts every request the adapter sent, across `start()` calls",
            "test_chat_adapter_round_trip",
            conversations(("text", "calls", "http", "malformed"), restarts=True),
        ),
        "tools": Family(
            'keep `tools_field("chat", tools)` and send it as the request\'s `"tools"` only when it is not empty',
            "test_chat_adapter_round_trip",
            conversations(),
            examples=30,
        ),
        "model": Family(
            'send the `model` it was given (`MODEL` by default) as every request\'s `"model"`',
            "test_chat_adapter_round_trip",
            conversations(),
            examples=30,
        ),
        "start": Family(
            'in `start(user_text, *, timeout)`, make the history `[{"role": "user", "content": user_text}]` '
            "afresh, whatever an earlier conversation left in it, then send it and return the turn",
            "test_chat_adapter_round_trip",
            conversations(restarts=True),
        ),
        "reply": Family(
            'in `reply(results, *, timeout)`, append one `{"role": "tool", "tool_call_id": r.id, "content": '
            "r.content}` per `ToolResult` to the history, in the order given",
            "test_chat_adapter_every_call",
            conversations(),
        ),
        "http": Family(
            "adding 1 to `requests` before it (a request that fails counts too), and let the `ModelHTTPError` it "
            "raises through",
            "test_chat_adapter_errors",
            conversations(("text", "calls", "http")),
        ),
        "malformed": Family(
            'raise `ModelTurnError` if the answer has no `choices[0]["message"]`, or a function call in it lacks '
            "its `id`, `function`, `name` or `arguments`",
            "test_chat_adapter_errors",
            conversations(("text", "calls", "broken", "malformed")),
        ),
        "length": Family(
            'raise `ModelTurnError` if `choices[0]["finish_reason"]` is `"length"`',
            "test_chat_adapter_errors",
            conversations(("text", "calls", "length")),
        ),
        "kept": Family(
            "otherwise append that `message` to the history exactly as it came back, every key kept",
            "test_chat_adapter_round_trip",
            conversations(("text", "calls", "length", "malformed")),
        ),
        "calls": Family(
            'turn every tool call whose `type` is `"function"` into `call_item(call["id"], '
            'call["function"]["name"], call["function"]["arguments"])`, in order, whatever the `finish_reason` '
            '(other than `"length"`), and skip a call of any other type',
            "test_chat_adapter_every_call",
            conversations(("calls", "empty")),
        ),
        "final": Family(
            'return `final_turn(message.get("content"))` when no call comes of the message',
            "test_chat_adapter_errors",
            conversations(("text", "empty")),
        ),
    },
)


PARTS = {
    part.name: part
    for part in (MODE_FOR, OFFERED, EFFECTIVE, APPROVER, CANONICAL, BUDGET, REDACT, AUDIT, CHAT_ADAPTER)
}
