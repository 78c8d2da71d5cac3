"""Notebook 01's instructor solutions: Part A against course_lib.envelope.parse_envelope, Part B against its list.

The inputs vary everything Part A's list rules on: the type of `raw` (dicts, an OrderedDict, lists, strings),
keys that are not `str`, `kind` near the two valid ones, keys missing and extra, `text`, `id` and `name` of other
types or `str` subclasses, blank and padded ids, names at the edges of the pattern, arguments that are not
objects, hold values JSON has not (tuples, sets, bytes, NaN, infinities) or nest 63 to 66 containers deep. Both
must accept with equal results that share no container with the input, or both refuse with an `EnvelopeError`
naming the same fields, and neither may change its input.
"""

from __future__ import annotations

import copy
import json
import re
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from course_lib.envelope import parse_envelope
from course_lib.errors import EnvelopeError
from tests.support.instructor_solutions import instructor_solution

SETTINGS = settings(
    max_examples=800, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


class Tagged(str):
    """A `str` subclass: not a `str` for the contract."""


def nested(levels: int) -> dict[str, Any]:
    """`arguments` nested `levels` containers deep (the arguments object itself is level 1)."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


STRINGS = ["", " ", " c1 ", "call_1", "\u2003", "read_note", "read_note\n", "a" * 64, "a" * 65, "café", "x.y",
           "Read-Note_2", "٣", "-"]  # fmt: skip
NEAR = [None, True, 0, 1.5, b"x", ["x"], Tagged("read_note"), Tagged("")]
LEAVES = [
    None,
    True,
    False,
    0,
    -1,
    10**30,
    0.5,
    -0.0,
    float("nan"),
    float("inf"),
    "x",
    "",
    b"x",
    (1,),
    {1},
    1j,
]

GOOD = ["call_1", " c1 ", "read_note", "a" * 64, "Read-Note_2", "-", "9"]
json_values = st.recursive(
    st.sampled_from([None, True, 0, 10**30, 0.5, -0.0, "x", ""]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=3)
    ),
    max_leaves=6,
)


FAULTS = ["raw", "kind", "missing", "extra", "key", "string", "string", "arguments", "leaf", "deep"]
"""What may be wrong with an envelope: at most one of these, so that each rule decides on its own."""


@st.composite
def envelopes(draw: st.DrawFn) -> Any:
    """A valid envelope, or one rule away from valid: half of each."""
    if draw(st.booleans()):
        raw: Any = {"kind": "final", "text": draw(st.sampled_from([*GOOD, "", " \n"]))}
    else:
        arguments = draw(st.dictionaries(st.sampled_from(["a", "b", "id"]), json_values, max_size=3))
        arguments = draw(st.sampled_from([arguments, arguments, nested(64), nested(63)]))
        raw = {"kind": "call", "id": draw(st.sampled_from(GOOD)), "name": draw(st.sampled_from(GOOD)),
               "arguments": arguments}  # fmt: skip
    fault = draw(st.sampled_from(FAULTS)) if draw(st.booleans()) else "none"
    fields = sorted(raw)
    if fault == "raw":
        raw = draw(st.sampled_from([OrderedDict(raw), [raw], str(raw), None, tuple(raw.items())]))
    elif fault == "kind":
        raw["kind"] = draw(st.sampled_from(["Final", "final ", "tool_use", None, 1, Tagged(raw["kind"])]))
    elif fault == "missing":
        for field in draw(st.lists(st.sampled_from(fields), min_size=1, max_size=3, unique=True)):
            del raw[field]
    elif fault == "extra":
        raw[draw(st.sampled_from(["extra", "text", "id", "name", "arguments"]))] = draw(
            st.sampled_from(["x", None])
        )
    elif fault == "key":
        raw[draw(st.sampled_from([1, None, ("kind",)]))] = "x"
    elif fault == "string":
        field = draw(st.sampled_from([field for field in fields if field in ("text", "id", "name")]))
        tricky = draw(st.sampled_from(["read_note\n", " ", "\u2003", "٣", "café", "a" * 65]))
        raw[field] = draw(st.sampled_from([tricky, tricky, *STRINGS, *NEAR]))
    elif fault == "arguments" and "arguments" in raw:
        raw["arguments"] = draw(st.sampled_from(['{"a": 1}', ["a"], None, OrderedDict(a=1), True]))
    elif fault == "leaf" and "arguments" in raw:
        raw["arguments"] = {**raw["arguments"], "z": draw(arguments_with_a_leaf)}
    elif fault == "deep" and "arguments" in raw:
        raw["arguments"] = nested(draw(st.sampled_from([65, 66, 100])))
    return raw


arguments_with_a_leaf = st.sampled_from(LEAVES).flatmap(
    lambda leaf: st.sampled_from([leaf, [leaf], {"b": [1, leaf]}, [[leaf]]])
)


FIELDS = ("kind", "text", "id", "name", "arguments", "envelope", "extra")
"""The words a refusal's message may name: the fields, the extra key the generator adds, and `envelope`."""


def outcome(fn: Any, raw: Any) -> tuple[Any, ...]:
    """What a call gives: its result (checked to share no container with `raw`), the fields an `EnvelopeError`
    names, or the type of another exception."""
    before = copy.deepcopy(raw) if _copyable(raw) else None
    try:
        result = fn(raw)
    except EnvelopeError as error:
        return ("EnvelopeError", {word for word in FIELDS if re.search(rf"\b{word}\b", str(error))})
    except Exception as error:
        return (type(error).__name__,)
    finally:
        if before is not None:
            assert _same(raw, before), f"{raw!r} was changed"
    assert not {id(item) for item in _containers(result)} & {id(item) for item in _containers(raw)}
    return ("result", result)


def _copyable(value: Any) -> bool:
    try:
        copy.deepcopy(value)
    except Exception:
        return False
    return True


def _same(value: Any, other: Any) -> bool:
    """Equal, counting NaN equal to NaN."""
    return repr(value) == repr(other)


def _containers(value: Any) -> list[Any]:
    """Every dict and list inside `value`, `value` included."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if type(item) in (dict, list):
            found.append(item)
            stack.extend(item.values() if type(item) is dict else item)
    return found


@pytest.fixture(scope="module")
def solution() -> Iterator[Any]:
    """The instructor's parse_envelope."""
    with instructor_solution("01_envelope", "parse_envelope") as namespace:
        yield namespace["parse_envelope"]


@SETTINGS
@given(raw=envelopes())
@example(raw={"kind": "call", "id": "c", "name": "x", "arguments": {"a": [[[[[[[[[[(1,)]]]]]]]]]]}})
@example(raw={"kind": "final", "text": "hi", 1: "x"})
@example(raw={"kind": "call", "id": "c", "name": "read_note\n", "arguments": {}})
@example(raw={"kind": "call", "id": "\u2003", "name": "x", "arguments": {}})
@example(raw={"kind": "call", "id": "c", "name": "x", "arguments": {"a": [float("nan")]}})
def test_the_instructors_parse_envelope_agrees_with_the_reference(solution: Any, raw: Any) -> None:
    assert outcome(solution, raw) == outcome(parse_envelope, raw)


def test_the_generator_reaches_both_branches_and_refusals() -> None:
    """Calls and final answers are accepted, and each rule refuses, often enough for the comparison to count."""
    seen: dict[str, int] = {}

    @settings(max_examples=800, derandomize=True, deadline=None)
    @given(raw=envelopes())
    def collect(raw: Any) -> None:
        try:
            kind = parse_envelope(raw)["kind"]
        except EnvelopeError as error:
            kind = str(error).split(":")[0].split(" ")[0]
        seen[kind] = seen.get(kind, 0) + 1

    collect()
    assert seen.get("call", 0) >= 20 and seen.get("final", 0) >= 20
    assert {"envelope", "kind", "missing", "unexpected", "text", "id", "name", "arguments"} <= set(seen)


# Part B has no reference in course_lib: its instructor's solution is compared with the list's bullets, read
# literally, over messages of the shape the part covers.

ARGUMENT_STRINGS = ['{"note_id": "n1"}', "{}", "[1, 2]", '"text"', "null", '{"a": {"b": [1.5, true]}}', "",
                    "{'a': 1}", '{"a": 1} trailing', "{a: 1}", '{"a": 1']  # fmt: skip


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """A Chat Completions assistant message: content a str or None, tool_calls absent, None, [] or some calls."""
    message: dict[str, Any] = {"role": "assistant", "content": draw(st.sampled_from(["Done.", "", None]))}
    calls = [
        {"id": f"call_{index}", "type": "function",
         "function": {"name": draw(st.sampled_from(["read_note", "x"])), "arguments": arguments}}
        for index, arguments in enumerate(draw(st.lists(st.sampled_from(ARGUMENT_STRINGS), max_size=3)))
    ]  # fmt: skip
    choice = draw(st.sampled_from(["calls", "calls", "absent", "none"]))
    if choice != "absent":
        message["tool_calls"] = calls if choice == "calls" else None
    return message


def stated(message: dict[str, Any]) -> tuple[Any, ...]:
    """What Part B's bullets say `chat_message_to_envelopes(message)` gives."""
    calls = message.get("tool_calls") or []
    if not calls:
        return ("result", [{"kind": "final", "text": message["content"]}])
    envelopes = []
    for call in calls:
        try:
            arguments = json.loads(call["function"]["arguments"])
        except ValueError:
            return ("EnvelopeError", {"arguments"})
        envelopes.append(
            {"kind": "call", "id": call["id"], "name": call["function"]["name"], "arguments": arguments}
        )
    return ("result", envelopes)


@pytest.fixture(scope="module")
def adapter() -> Iterator[Any]:
    """The instructor's chat_message_to_envelopes."""
    with instructor_solution("01_envelope", "chat_message_to_envelopes") as namespace:
        yield namespace["chat_message_to_envelopes"]


@SETTINGS
@given(message=messages())
def test_the_instructors_adapter_does_what_its_list_says(adapter: Any, message: dict[str, Any]) -> None:
    before = copy.deepcopy(message)
    try:
        got: tuple[Any, ...] = ("result", adapter(message))
    except EnvelopeError as error:
        got = (
            "EnvelopeError",
            {word for word in FIELDS if re.search(rf"\b{word}\b", str(error))} & {"arguments"},
        )
    assert got == stated(message) and message == before
