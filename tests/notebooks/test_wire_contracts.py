"""Notebook 04's instructor solutions of Parts A, B and C against course_lib.specs, over generated inputs.

Part A: toolboxes of tools with nested schemas, names given as a list, a tuple or a generator (repeated, unknown,
near-miss), and apis near "chat" and "responses"; the same JSON bytes (so the same key order) or the same
exception type, the toolbox unchanged, and entries that share nothing with the toolbox. Part B: schemas nested
through `properties` and `items`, `type` a string, a list or missing, `additionalProperties` false, true, a schema
or missing, `required` listing some, all, none or other names; the same problems (the instructor's wording is the
reference's), the schema unchanged. Part C: first replies with one to four calls, text beside them or not, and
results in any order; the same messages, the arguments unchanged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib import specs
from course_lib.toolbox import Tool, Toolbox
from tests.support.instructor_solutions import instructor_solution

SETTINGS = settings(
    max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TOOL_NAMES = ("get_weather", "lookup-v2", "ping", "a")
KEYS = ("city", "unit", "who", "stops")
APIS = ("chat", "responses", "Chat", "completions", "responses ", "", None, 0)


@pytest.fixture(scope="module")
def solutions() -> Iterator[dict[str, Any]]:
    """The three instructor solutions: the namespace up to Part C's solution also holds Parts A and B."""
    with instructor_solution("04_wire", "second_request_messages") as namespace:
        yield namespace


def outcome(call: Any) -> tuple[str, Any]:
    """("ok", what `call()` returns) or ("raised", the exception's type name)."""
    try:
        return ("ok", call())
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return ("raised", type(error).__name__)


schemas = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", ["string", "null"]])}),
    lambda children: st.one_of(
        st.fixed_dictionaries({"type": st.just("array"), "items": children}),
        st.builds(
            lambda kind, properties, required, extra: {
                **({} if kind is None else {"type": kind}),
                "properties": properties,
                **({} if required is None else {"required": required}),
                **({} if extra == "missing" else {"additionalProperties": extra}),
            },
            st.sampled_from(["object", ["object", "null"], ["null", "object"], None, "string"]),
            st.dictionaries(st.sampled_from(KEYS), children, max_size=3),
            st.none() | st.lists(st.sampled_from((*KEYS, "other")), max_size=4, unique=True),
            st.sampled_from([False, True, {}, {"type": "string"}, "missing"]),
        ),
    ),
    max_leaves=8,
)


@st.composite
def toolboxes(draw: st.DrawFn) -> Toolbox:
    box = Toolbox()
    for name in draw(st.lists(st.sampled_from(TOOL_NAMES), min_size=1, max_size=4, unique=True)):
        box.add(
            Tool(name, draw(st.sampled_from(["", "Find a record.", 'Ümlaut "quoted"'])), draw(schemas), print)
        )
    return box


@st.composite
def requests(draw: st.DrawFn) -> tuple[Toolbox, list[str]]:
    """A toolbox and names to offer from it: all of them held by it, or some near misses among them."""
    box = draw(toolboxes())
    held = st.sampled_from(box.names)
    some_in_order = st.permutations(box.names).flatmap(
        lambda order: st.integers(1, len(order)).map(lambda k: order[:k])
    )
    near_misses = st.lists(held | st.sampled_from(["Ping", "ping ", "", "x"]), max_size=5)
    names = draw(some_in_order | st.lists(held, max_size=5) | near_misses)
    return box, names


def touch(node: Any) -> None:
    """Add a key to every dict inside `node`, at any depth."""
    if isinstance(node, dict):
        for child in list(node.values()):
            touch(child)
        node["touched"] = True
    elif isinstance(node, list):
        for child in node:
            touch(child)


def given_as(kind: str, names: list[Any]) -> Iterable[Any]:
    """`names` as the iterable kind the prose allows."""
    return {"list": list, "tuple": tuple, "generator": lambda n: (name for name in n)}[kind](names)


@SETTINGS
@given(
    requests(),
    st.sampled_from(["list", "tuple", "generator"]),
    st.sampled_from(APIS[:2]) | st.sampled_from(APIS),
)
def test_tool_specs_equals_the_reference(
    solutions: dict[str, Any], request: tuple[Toolbox, list[str]], kind: str, api: Any
) -> None:
    box, names = request
    before = {name: copy.deepcopy(box[name].parameters) for name in box.names}
    mine = outcome(lambda: solutions["tool_specs"](box, given_as(kind, names), api))
    theirs = outcome(lambda: specs.tool_specs(box, given_as(kind, names), api))
    if mine[0] == "ok" and theirs[0] == "ok":
        assert json.dumps(mine[1]) == json.dumps(theirs[1])  # equal bytes: the same keys in the same order
        for entry in mine[1]:  # an edit at any depth reaches no tool
            touch(entry.get("function", entry)["parameters"])
    else:
        assert mine == theirs
    assert {name: box[name].parameters for name in box.names} == before


@SETTINGS
@given(schemas)
def test_is_strict_compatible_equals_the_reference(solutions: dict[str, Any], schema: dict[str, Any]) -> None:
    kept = copy.deepcopy(schema)
    mine = outcome(lambda: solutions["is_strict_compatible"](schema))
    assert schema == kept, "the instructor's is_strict_compatible changed the schema"
    theirs = outcome(lambda: specs.is_strict_compatible(kept))
    assert mine[0] == theirs[0] == "ok" and isinstance(mine[1], list)
    assert sorted(mine[1]) == sorted(theirs[1])


@st.composite
def first_rounds(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str]]:
    ids = draw(
        st.lists(
            st.sampled_from(["call_1", "call_2", "call_3", "call_9", "x"]),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    arguments = st.sampled_from(["{}", '{"city": "Paris"}', ""])
    calls = [
        {"id": id_, "type": "function",
         "function": {"name": draw(st.sampled_from(TOOL_NAMES)), "arguments": draw(arguments)}}
        for id_ in ids
    ]  # fmt: skip
    message = {"role": "assistant", "content": draw(st.sampled_from([None, "", "Let me check."])),
               "refusal": None, "annotations": [], "tool_calls": calls}  # fmt: skip
    reply = {"id": "chatcmpl-1", "object": "chat.completion", "model": "stand-in-model",
             "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}  # fmt: skip
    results = {
        id_: draw(st.sampled_from(['{"result": 15}', '{"error": "no"}', '"', ""]))
        for id_ in draw(st.permutations(ids))
    }
    return reply, results


@SETTINGS
@given(st.sampled_from(["Weather in Paris?", "", "Ünïcode ☂"]), first_rounds())
def test_second_request_messages_equals_the_reference(
    solutions: dict[str, Any], user_text: str, round_: tuple[dict[str, Any], dict[str, str]]
) -> None:
    reply, results = round_
    kept = copy.deepcopy((reply, results))
    mine = outcome(lambda: solutions["second_request_messages"](user_text, reply, results))
    assert (reply, results) == kept, "the instructor's second_request_messages changed its arguments"
    theirs = outcome(lambda: specs.second_request_messages(user_text, *copy.deepcopy(kept)))
    assert mine == theirs
    assert list(results) == list(kept[1])  # not even reordered
