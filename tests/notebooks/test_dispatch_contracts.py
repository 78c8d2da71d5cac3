"""Notebook 02's instructor solutions of Parts A and B against course_lib.stock, over generated requests.

The requests are written as JSON text by hand, so that they can hold what `json.dumps` never writes: a key
repeated in one object (at any depth, and spelled with an escape), `NaN`, `Infinity`, `1e999`, text after the
value, a truncated end, deep nesting and padding to just under, at and just over `MAX_REQUEST_BYTES`. Around
them: envelopes with a key missing or extra, names and SKUs near the valid ones, arguments that are not
objects, and values that are not `str`. Both must give the same result, or refuse with the same kind of
exception (a `ValueError`, with "too large" in the message exactly when the reference says so, or a
`TypeError`); Part B runs tables of tools taking SKUs, numbers, any value or nothing (one handler raises), and
keeps nesting inside arguments within the 64 levels its prose grades.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from course_lib import stock
from course_lib.errors import DispatchError
from course_lib.inventory import MAX_REQUEST_BYTES, STOCK_TOOLS, ToolRule
from tests.support.instructor_solutions import instructor_solution

SETTINGS = settings(
    max_examples=1000, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


class Obj(NamedTuple):
    """A JSON object as the text writes it: its pairs in order, a key possibly repeated."""

    pairs: tuple[tuple[str, Any], ...]


class Raw(str):
    """Text written into the request as it is: `NaN`, `Infinity`, `1e999`, ..."""


def text(value: Any, escape: bool) -> str:
    """`value` as JSON text; with `escape`, every key starting with a letter spells that letter as `\\u00XX`."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Obj):
        keys = [f'"\\u{ord(key[0]):04x}{key[1:]}"' if escape and key[:1].isalpha() else json.dumps(key)
                for key, _ in value.pairs]  # fmt: skip
        return (
            "{"
            + ", ".join(
                f"{key}: {text(item, escape)}" for key, (_, item) in zip(keys, value.pairs, strict=True)
            )
            + "}"
        )
    if isinstance(value, list):
        return "[" + ", ".join(text(item, escape) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


NUMBERS = [
    Raw("NaN"),
    Raw("Infinity"),
    Raw("-Infinity"),
    Raw("1e999"),
    Raw("-1e999"),
    Raw("1e-999"),
    1.5,
    -2,
    0,
]
SKUS = [
    "PEN",
    "BOOK",
    "pen",
    " PEN",
    "PEN ",
    "PENCIL",
    "",
    "ＰＥＮ",
    "\ud800",
    "PEN€",
    True,
    False,
    None,
    12,
    12.0,
    ["PEN"],
]
NAMES = ["stock_lookup", "price_lookup", "add", "echo", "broken", "Stock_Lookup", " stock_lookup", "shell",
         "stock_lookup\n", "__import__", "dispatch", "get", "keys"]  # fmt: skip
ARGUMENT_KEYS = ["sku", "a", "b", "value", "admin", "SKU"]

scalars = st.sampled_from(SKUS + NUMBERS)


def values(depth: int) -> st.SearchStrategy[Any]:
    """Argument values: scalars, short lists and objects, and now and then a list nested `depth` deep."""
    nested = st.integers(1, depth).map(lambda n: [Raw("[" * (n - 1) + "1" + "]" * (n - 1))])
    return (
        scalars
        | nested
        | st.recursive(
            scalars,
            lambda inner: (
                st.lists(inner, max_size=2)
                | st.lists(st.tuples(st.sampled_from(ARGUMENT_KEYS), inner), max_size=2).map(
                    lambda p: Obj(tuple(p))
                )
            ),
            max_leaves=4,
        )
    )


def often(common: list[Any], rare: list[Any]) -> st.SearchStrategy[Any]:
    """One of `common` half of the time, else one of `rare` (so that valid requests stay frequent)."""
    return (
        st.sampled_from(common)
        if not rare
        else st.booleans().flatmap(lambda first: st.sampled_from(common if first else rare))
    )


FAULTS = ["extra key", "decoy", "missing key", "extra argument", "not an object", "wrapped", "deep", "tail", "cut",
          "escaped", "padded", "wide", "surrogate", "not str"]  # fmt: skip
"""What may be wrong with a request besides its values: at most one of these per request."""

TAKES = {"stock_lookup": ["sku"], "price_lookup": ["sku"], "add": ["a", "b"], "echo": ["value"], "broken": []}
"""The argument names of the tools of `RULES` (below)."""


@st.composite
def requests(draw: st.DrawFn, depth: int = 60) -> Any:
    """A request: mostly valid envelopes and near misses, as text, or now and then a value that is not `str`."""
    name = draw(often(["stock_lookup", "stock_lookup", *NAMES[1:5]], [*NAMES[5:], None, ["stock_lookup"], 1]))
    if draw(st.booleans()):  # the argument names the tool takes (near enough), each with a value it can take
        keys = TAKES.get(str(name).strip().lower(), ["value"])
        good = {"sku": often(["PEN", "BOOK"], SKUS), "a": often([1, 2.5, -3], NUMBERS), "b": st.just(4)}
        arguments: Any = Obj(tuple((key, draw(good.get(key, values(depth)))) for key in keys))
    else:
        keys = draw(st.lists(st.sampled_from(ARGUMENT_KEYS), max_size=3))
        arguments = Obj(tuple((key, draw(often(["PEN", "BOOK"], [draw(values(depth))]))) for key in keys))
        arguments = draw(often([arguments] * 6, [["sku"], "sku", None, 7]))
    fault = draw(st.sampled_from(FAULTS)) if draw(st.integers(0, 2)) else "none"
    if fault == "extra argument" and isinstance(arguments, Obj):
        arguments = Obj(
            (*arguments.pairs, draw(st.sampled_from([("admin", True), ("sku", "PEN"), ("a", 1)])))
        )
    pairs = [("name", name), ("arguments", arguments)]
    if fault == "extra key":
        pairs.insert(draw(st.integers(0, 2)), draw(st.sampled_from([("id", "c1"), ("name", "shell")])))
    if fault == "missing key":
        pairs.pop(draw(st.integers(0, 1)))
    pairs = draw(st.permutations(pairs))
    if fault == "decoy":  # a repeated key whose last value is the valid one, at the top or inside arguments
        where = draw(st.sampled_from(["name", "arguments", "inside"]))
        if where == "inside" and isinstance(arguments, Obj) and arguments.pairs:
            twice = Obj(((arguments.pairs[0][0], "PENCIL"), *arguments.pairs))
            pairs = [(key, twice if key == "arguments" else value) for key, value in pairs]
        else:
            pairs = [
                ("name", "shell") if where == "name" else ("arguments", Obj((("sku", "PENCIL"),))),
                *pairs,
            ]
    envelope: Any = Obj(tuple(pairs))
    if fault == "not an object":
        envelope = draw(st.sampled_from([["name", "arguments"], Raw("NaN"), None, "x"]))
    wraps = draw(st.sampled_from([1, 70, 1000])) if fault == "wrapped" else 0
    raw = "[" * wraps + text(envelope, fault == "escaped") + "]" * wraps
    if fault == "deep":  # within the byte limit, deep enough for json's recursion limit
        raw = draw(st.sampled_from(["[" * 1000 + "]" * 1000, "[" * 1000, '{"a":' * 300 + "1" + "}" * 300]))
    if fault == "tail":
        raw += draw(st.sampled_from([" x", ",", " // c", " {}", "\n"]))
    if fault == "cut":
        raw = raw[: draw(st.integers(0, len(raw) - 1))]
    size = len(raw.encode("utf-8", "surrogatepass"))
    if fault == "padded" and size < MAX_REQUEST_BYTES:  # one byte under, at or over the limit, JSON or not
        junk = draw(st.sampled_from(["", "", "x"]))
        padding = MAX_REQUEST_BYTES - size - len(junk) + draw(st.sampled_from([-1, 0, 1]))
        raw = draw(st.sampled_from([" " * padding + raw + junk, raw + junk + "\t" * padding]))
    if fault == "wide" and '"PEN' in raw:  # three bytes a character, around the limit
        euros = (MAX_REQUEST_BYTES - size) // 3 + draw(st.sampled_from([-1, 0, 1]))
        raw = raw.replace('"PEN', '"PEN' + "€" * max(euros, 0), 1)
    if fault == "surrogate":  # a str UTF-8 cannot encode
        raw = raw.replace("PEN", "PE\ud800N") if "PEN" in raw else raw + "\udfff"
    if fault == "not str":
        return draw(st.sampled_from([raw.encode("utf-8", "surrogatepass"), None, {"name": "x"}]))
    return raw


def outcome(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    """What a call gives: its result, or the kind of its refusal (any ValueError alike, 'too large' or not).

    The call runs with a recursion limit of 1,000 frames above the caller, as in a notebook's kernel (Hypothesis
    raises the limit while it runs, which would hide a `RecursionError` from 1,000 nested brackets).
    """
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 1000)
    try:
        return ("result", fn(*args))
    except ValueError as error:
        return ("ValueError", "too large" in str(error))
    except Exception as error:
        return (type(error).__name__,)
    finally:
        sys.setrecursionlimit(limit)


def twice(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    """The outcome of a second call, made after the first call's result (a dict) was emptied by its caller."""
    first = outcome(fn, *args)
    if first[0] == "result" and isinstance(first[1], dict):
        first[1].clear()
        return outcome(fn, *args)
    return first


@pytest.fixture(scope="module")
def solutions() -> Iterator[dict[str, Any]]:
    """Both instructor solutions: the namespace up to Part B's solution also holds Part A's."""
    with instructor_solution("02_dispatcher", "dispatch_with") as namespace:
        yield namespace


@SETTINGS
@given(raw=requests())
@example(raw="[" * 1000 + "]" * 1000)  # beside the generated cases, the two that are rarest among them
@example(raw="{" * (MAX_REQUEST_BYTES + 1))
@example(raw='{"id": "c1", "name": "stock_lookup", "arguments": {"sku": "PEN"}}')
@example(raw='{"name": "stock_lookup", "arguments": {"sku": ["PEN"]}}')
def test_the_instructors_dispatch_agrees_with_the_reference(solutions: dict[str, Any], raw: Any) -> None:
    assert twice(solutions["dispatch"], raw) == outcome(stock.dispatch, raw)


def _price(arguments: dict[str, Any]) -> dict[str, Any]:
    sku = arguments["sku"]
    if type(sku) is not str or sku not in {"PEN": 150}:
        raise DispatchError(f"unknown sku: {sku!r}")
    return {"sku": sku, "price_cents": 150}


def _broken(arguments: dict[str, Any]) -> dict[str, Any]:
    raise LookupError("the price list is offline")


RULES = {
    "stock_lookup": STOCK_TOOLS["stock_lookup"],
    "price_lookup": ToolRule(frozenset({"sku"}), _price),
    "add": ToolRule(frozenset({"a", "b"}), lambda arguments: {"sum": arguments["a"] + arguments["b"]}),
    "echo": ToolRule(frozenset({"value"}), lambda arguments: {"value": arguments["value"]}),
    "broken": ToolRule(frozenset(), _broken),
}
"""Tools taking a SKU, two numbers, any value, nothing (and raising)."""


@SETTINGS
@given(raw=requests(depth=60), names=st.lists(st.sampled_from(sorted(RULES)), unique=True, min_size=2))
@example(raw='{"name": "add", "arguments": {"a": 1, "b": NaN}}', names=["add"])
@example(raw='{"name": "add", "arguments": {"a": -1e999, "b": 4}}', names=["add"])
@example(raw='{"name": "broken", "arguments": {}}', names=["broken"])
@example(raw='{"name": "echo", "arguments": {"value": 1}, "id": "c1"}', names=["echo"])
def test_the_instructors_dispatch_with_agrees_with_the_reference(
    solutions: dict[str, Any], raw: Any, names: list[str]
) -> None:
    tools = {name: RULES[name] for name in names}
    before = dict(tools)
    assert twice(solutions["dispatch_with"], raw, tools) == outcome(stock.dispatch_with, raw, tools)
    assert tools == before


def test_the_generator_reaches_what_the_contract_rules_on() -> None:
    """Valid requests, each kind of refusal and both limits come up (so the comparisons above mean something)."""
    seen: set[tuple[Any, ...]] = set()

    @settings(max_examples=600, derandomize=True, deadline=None)
    @given(raw=requests())
    def collect(raw: Any) -> None:
        try:
            stock.dispatch(raw)
            seen.add(("ok",))
        except TypeError:
            seen.add(("type",))
        except ValueError as error:
            seen.add((" ".join(str(error).split(":")[0].split()[:2]),))

    collect()
    kinds = ["ok", "type", "request too", "request nested", "duplicate key", "malformed JSON", "not a", "number out",
             "envelope", "name", "unknown tool", "arguments", "arguments for", "unknown sku", "request is"]  # fmt: skip
    assert [kind for kind in kinds if (kind,) not in seen] == []
