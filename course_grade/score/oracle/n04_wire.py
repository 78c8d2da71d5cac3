"""Notebook 04's parts: `tool_specs`, `is_strict_compatible` and `second_request_messages` against
`course_lib.specs`, the two stream assemblers against `course_lib.streaming`, `chained_responses_loop` against
`course_lib.chained`.

Each family varies the rule of its bullet over the domain the part's prose states. Left out, because the prose
is being settled: Part A's `api` that is not a `str` yet equals "chat"; Part B's schema that is not a JSON object
(every schema here is a `dict`); Part C's assistant message as the same object or a copy (never compared);
Part E's unknown `output_index` on an event of a type the list does not name, and a `refusal` content part.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple
from unittest import mock

from hypothesis import strategies as st

from course_grade.score.oracle import contract
from course_grade.score.oracle.contract import (
    Family,
    Part,
    call_outcome,
    focused,
    shape,
    shares_a_container,
)
from course_lib.errors import MaxStepsExceeded, ModelTurnError

ASSIGNMENT = "04_wire"


class Tagged(str):
    """A `str` subclass: still a `str`, equal to its text."""


def _fresh_stream(events: list[Any]) -> Iterator[Any]:
    """The events as a generator: read once, in order."""
    yield from events


def _unchanged(value: Any, before: Any) -> bool:
    try:
        return bool(shape(value) == shape(before))
    except Exception:
        return True


# -- Part A: tool_specs -----------------------------------------------------------------------------------------

PROPERTY_KEYS = ["city", "unit", "traveller", "stops", "ключ", "名前", "q9"]
"""Property names for generated schemas (none appears in a plain-English explanation)."""

leaf_schemas: st.SearchStrategy[Any] = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["string", "integer", "number", "boolean", ["string", "null"], ["integer", "null"]]
            )
        }
    ),  # fmt: skip
    st.just({"type": "string", "enum": ["celsius", "fahrenheit"]}),
    st.just({}),
    st.just({"type": "string", "description": "Ünïcode ☂"}),
)
ADDITIONAL = [False, True, {}, {"type": "string"}, {"not": {}}, "missing"]
OBJECT_TYPES = [
    "object",
    ["object", "null"],
    ["null", "object"],
    ["object"],
    None,
    "string",
    "оbject",
    "Object",
]


def _object_schema(kind: Any, properties: dict[str, Any], required: Any, extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {} if kind is None else {"type": kind}
    if properties is not None:
        schema["properties"] = properties
    if required is not None:
        schema["required"] = required
    if extra != "missing":
        schema["additionalProperties"] = extra
    return schema


def _array_schema(kind: Any, items: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {} if kind is None else {"type": kind}
    if items is not None:
        schema["items"] = items
    return schema


schemas = st.recursive(
    leaf_schemas,
    lambda children: st.one_of(
        st.builds(
            _object_schema,
            st.sampled_from(OBJECT_TYPES),
            st.none() | st.dictionaries(st.sampled_from(PROPERTY_KEYS), children, max_size=3),
            st.none() | st.lists(st.sampled_from([*PROPERTY_KEYS, "other"]), max_size=4),
            st.sampled_from(ADDITIONAL),
        ),
        st.builds(
            _array_schema,
            st.sampled_from(["array", ["array", "null"], None, "object"]),
            st.none() | children | st.lists(children, max_size=2) | st.booleans(),
        ),
    ),
    max_leaves=8,
)


@st.composite
def strict_ready(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    """A schema that follows both rules at every object."""
    if depth > 2 or draw(st.integers(0, 2)) == 0:
        return draw(leaf_schemas)
    if draw(st.booleans()):
        keys = draw(st.lists(st.sampled_from(PROPERTY_KEYS), max_size=3, unique=True))
        required = draw(st.permutations(keys))
        required = required + draw(st.lists(st.sampled_from(["other", *keys]), max_size=1))
        return {"type": draw(st.sampled_from(["object", ["object", "null"]])),
                "properties": {key: draw(strict_ready(depth + 1)) for key in keys},
                "required": required, "additionalProperties": False}  # fmt: skip
    return {
        "type": draw(st.sampled_from(["array", ["array", "null"]])),
        "items": draw(strict_ready(depth + 1)),
    }


def _noop(**arguments: Any) -> None:
    return None


class OnlyLookup:
    """A toolbox usable only through `name in toolbox` and `toolbox[name]` (tools filed under any key)."""

    def __init__(self, tools: dict[str, Any]) -> None:
        self._tools = tools

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Any:
        return self._tools[name]


class SpecsCase(NamedTuple):
    """A toolbox as data (key, tool name, description, schema), the names, how they are given, and the api."""

    tools: tuple[tuple[str, str, str, Any], ...]
    names: tuple[Any, ...]
    given_as: str
    api: Any
    lookup_only: bool
    sweep: bool = False
    """Call once per api of `BAD_APIS` and `GOOD_APIS` (each on a fresh toolbox) instead of with `api` alone."""


TOOL_NAMES = ["get_weather", "lookup-v2", "ping", "a", "Ünïcode", "x" * 64]
DESCRIPTIONS = ["", "Find a record.", 'Ümlaut "quoted"', "line\nbreak"]
GOOD_APIS = ["chat", "responses", Tagged("chat"), Tagged("responses")]
BAD_APIS = ["Chat", "CHAT", "completions", "responses ", " chat", "chat\n", "response", "RESPONSES", "",
            "chat.completions", "function", "ｃｈａｔ", "сhat", None, 0, 1, True, False, b"chat", ["chat"],
            {"api": "responses"}, {"chat"}, ("chat",), 1.5]  # fmt: skip
NEAR_MISSES = ["Get_Weather", "get_weather ", " ping", "", "PING", "ping\n", "lookup_v2", "pіng", "x" * 65]


@st.composite
def specs_cases(
    draw: st.DrawFn,
    apis: st.SearchStrategy[Any] | None = None,
    unknown: bool = False,
    schema: st.SearchStrategy[Any] = schemas,
) -> SpecsCase:
    api = draw(st.sampled_from(GOOD_APIS) if apis is None else apis)
    names = draw(st.lists(st.sampled_from(TOOL_NAMES), min_size=1, max_size=4, unique=True))
    filed = draw(st.integers(0, 3)) == 0
    keys = [f"k_{name}" if filed and draw(st.booleans()) else name for name in names]
    tools = tuple(
        (key, name, draw(st.sampled_from(DESCRIPTIONS)), draw(schema))
        for key, name in zip(keys, names, strict=True)
    )
    asked = draw(st.one_of(
        st.permutations(keys).flatmap(lambda order: st.integers(0, len(order)).map(lambda k: order[:k])),
        st.lists(st.sampled_from(keys), max_size=5),
    ))  # fmt: skip
    if unknown:
        miss = draw(st.sampled_from(NEAR_MISSES) | st.text(max_size=4).filter(lambda text: text not in keys))
        asked = list(asked)
        asked.insert(draw(st.integers(0, len(asked))), miss)
    return SpecsCase(
        tools,
        tuple(asked),
        draw(st.sampled_from(["list", "tuple", "generator", "iterator"])),
        api,
        filed or draw(st.integers(0, 4)) == 0,
    )


def _build_toolbox(case: SpecsCase) -> Any:
    from course_lib.toolbox import Tool, Toolbox  # noqa: PLC0415

    tools = {
        key: Tool(name, description, parameters, _noop) for key, name, description, parameters in case.tools
    }
    if case.lookup_only or any(key != tool.name for key, tool in tools.items()):
        return OnlyLookup(tools), list(tools.values())
    box = Toolbox()
    try:
        for tool in tools.values():
            box.add(tool)
    except ValueError:  # a name the Toolbox class refuses: the lookup-only toolbox holds any
        return OnlyLookup(tools), list(tools.values())
    return box, list(tools.values())


def _names(case: SpecsCase) -> Any:
    names = list(case.names)
    if case.given_as == "tuple":
        return tuple(names)
    if case.given_as == "generator":
        return (name for name in names)
    if case.given_as == "iterator":
        return iter(names)
    return names


def _key_orders(result: Any) -> Any:
    """The order of the keys of each entry (and of its "function" object): fixed by the contract."""
    if type(result) is not list:
        return None
    orders: list[Any] = []
    for entry in result:
        if type(entry) is not dict:
            orders.append(None)
            continue
        inner = entry.get("function")
        orders.append((tuple(entry), tuple(inner) if type(inner) is dict else None))
    return tuple(orders)


def observe_specs(answer: Any, case: SpecsCase) -> Any:
    """`observe_one_api` for the case's api, or for every api of the sweep."""
    if not case.sweep:
        return observe_one_api(answer, case)
    return tuple(observe_one_api(answer, case._replace(api=api)) for api in [*GOOD_APIS, *BAD_APIS])


def observe_one_api(answer: Any, case: SpecsCase) -> Any:
    """The returned list (exact types and values, the key order of each entry, whether it shares a container
    with a tool's schema or the names given), or a ValueError; any other exception by type; and whether every
    tool's schema came out unchanged."""
    box, tools = _build_toolbox(case)
    before = [copy.deepcopy(tool.parameters) for tool in tools]
    names = _names(case)
    try:
        result = answer(box, names, case.api)
    except ValueError:
        got: Any = ("refused", "ValueError")
    except Exception as error:
        if isinstance(error, contract.ABORTING):
            raise
        got = ("raised", type(error).__name__)
    else:
        schemas_given = [tool.parameters for tool in tools]
        got = ("returned", shape(result), _key_orders(result),
               shares_a_container(result, schemas_given), result is names)  # fmt: skip
    return got, [shape(tool.parameters) for tool in tools] == [shape(item) for item in before]


def _specs_reference() -> Any:
    from course_lib.specs import tool_specs  # noqa: PLC0415

    return tool_specs


SPECS = Part(
    ASSIGNMENT,
    "tool_specs",
    _specs_reference,
    observe_specs,
    "the returned list (values and exact types, the key order of each entry and of its function object, sharing "
    "no container with a tool's schema), or a ValueError (its message is open); the toolbox's schemas unchanged.",
    {
        "order": Family(
            "return a new list with one entry per name, in the order of `names`; no names give `[]`",
            "test_tool_specs_chat",
            specs_cases(),
        ),
        "once": Family(
            "read `names` only once, since a generator cannot be read twice",
            "test_tool_specs_chat",
            specs_cases().filter(lambda case: case.given_as in ("generator", "iterator")),
            examples=40,
        ),
        "chat": Family(
            'for `api == "chat"`, make each entry `{"type": "function", "function": {"name": ..., '
            '"description": ..., "parameters": ..., "strict": True}}`',
            "test_tool_specs_chat",
            specs_cases(st.sampled_from(["chat", Tagged("chat")])),
        ),
        "responses": Family(
            'for `api == "responses"`, make each entry `{"type": "function", "name": ..., "description": ..., '
            '"parameters": ..., "strict": True}`',
            "test_tool_specs_responses",
            specs_cases(st.sampled_from(["responses", Tagged("responses")])),
        ),
        "strict": Family(
            'set `"strict"` to the boolean `True` in every entry, whatever the tool\'s schema',
            "test_tool_specs_strict",
            specs_cases(schema=schemas | st.sampled_from([{}, {"type": "object"}, {"strict": False}])),
            examples=40,
        ),
        "key_order": Family(
            "write the keys in exactly the order written above, so the same tools always serialise to the "
            "same bytes",
            "test_tool_specs_key_order",
            specs_cases(),
            examples=40,
        ),
        "deep_copy": Family(
            "make `parameters` a **deep** copy of the tool's schema",
            "test_tool_specs_copies",
            specs_cases(schema=schemas.filter(lambda schema: len(schema) > 1)),
        ),
        "api": Family(
            'raise `ValueError` for any other `api` (`"Chat"`, `"completions"`, `None`, ...), even when '
            "`names` is empty",
            "test_tool_specs_unknown_api",
            specs_cases().map(lambda case: case._replace(sweep=True)),
            examples=30,
        ),
        "unknown_name": Family(
            "raise `ValueError`, not `KeyError`, for a name the toolbox does not hold",
            "test_tool_specs_unknown_name",
            specs_cases(st.sampled_from(GOOD_APIS), unknown=True),
        ),
    },
)


# -- Part B: is_strict_compatible --------------------------------------------------------------------------------


def _walked(schema: Any, path: str = "$") -> list[tuple[str, Any]]:
    """Every (path, schema) the prose says is looked at: the root, under `properties`, each `items` dict."""
    found = [(path, schema)]
    properties = schema.get("properties")
    if type(properties) is dict:
        for key, child in properties.items():
            if type(child) is dict:
                found += _walked(child, f"{path}.{key}")
    items = schema.get("items")
    if type(items) is dict:
        found += _walked(items, f"{path}[]")
    return found


def observe_strict(answer: Any, schema: Any) -> Any:
    """The problems as the contract fixes them: per path, how many problems start with it and ": ", and which of
    the properties its `required` does not list they name; any problem placed at no path; whether the result is a
    list of str; any exception by type; the schema unchanged."""
    before = copy.deepcopy(schema)
    try:
        result = answer(schema)
    except Exception as error:
        if isinstance(error, contract.ABORTING):
            raise
        return ("raised", type(error).__name__), _unchanged(schema, before)
    if type(result) is not list or any(type(problem) is not str for problem in result):
        return ("returned", shape(result)), _unchanged(schema, before)
    walked = _walked(before)
    paths = sorted({path for path, _ in walked}, key=len, reverse=True)
    placed: dict[str, list[str]] = {}
    unplaced = 0
    for problem in result:
        at = next((path for path in paths if problem.startswith(path + ": ")), None)
        if at is None:
            unplaced += 1
        else:
            placed.setdefault(at, []).append(problem[len(at) + 2 :])
    seen = []
    for path, node in walked:
        if path not in placed:
            continue
        required = node.get("required") if type(node.get("required")) is list else []
        unlisted = [key for key in node.get("properties") or {} if key not in required]
        named = sorted(key for key in unlisted if any(key in text for text in placed[path]))
        seen.append((path, len(placed[path]), tuple(named)))
    return ("problems", tuple(sorted(set(seen))), unplaced), _unchanged(schema, before)


def _strict_reference() -> Any:
    from course_lib.specs import is_strict_compatible  # noqa: PLC0415

    return is_strict_compatible


@st.composite
def broken_once(draw: st.DrawFn, rule: str) -> dict[str, Any]:
    """A strict-ready schema with one object schema, at any depth, that breaks `rule`."""
    schema = draw(strict_ready())
    objects = [node for _, node in _walked(schema) if "properties" in node]
    if not objects:
        schema = {"type": "object", "properties": {"city": schema}, "required": ["city"],
                  "additionalProperties": False}  # fmt: skip
        objects = [schema]
    node = draw(st.sampled_from(objects))
    if rule == "additional":
        value = draw(st.sampled_from(ADDITIONAL[1:]))
        if value == "missing":
            del node["additionalProperties"]
        else:
            node["additionalProperties"] = value
    else:
        if not node["properties"]:
            node["properties"]["q9"] = {"type": "string"}
        keys = list(node["properties"])
        dropped = draw(st.lists(st.sampled_from(keys), min_size=1, unique=True))
        if draw(st.integers(0, 4)) == 0:
            del node["required"]
        else:
            node["required"] = [key for key in node["required"] if key not in dropped]
    return schema


STRICT = Part(
    ASSIGNMENT,
    "is_strict_compatible",
    _strict_reference,
    observe_strict,
    "per path, the number of problems starting with it and ': ', and which unlisted properties they name; a "
    "problem at no path; exceptions by type; the schema unchanged. The order and the rest of the wording are open.",
    {
        "list": Family(
            "return a list of problems, one string each, in any order, and `[]` when the schema follows both rules",
            "test_is_strict_compatible_accepts",
            strict_ready(),
        ),
        "walk": Family(
            "look at the root schema and, recursively, at every schema under `properties` and every `items` "
            "schema that is a `dict`",
            "test_is_strict_compatible_accepts",
            schemas,
            examples=80,
        ),
        "object": Family(
            'treat a schema as an **object schema** when its `"type"` is `"object"`, or is a list that contains '
            '`"object"`',
            "test_is_strict_compatible_additional",
            schemas,
        ),
        "additional": Family(
            "report one problem for each object schema whose `additionalProperties` is not exactly `False`",
            "test_is_strict_compatible_additional",
            broken_once("additional"),
        ),
        "required": Family(
            "report one problem for each key of an object schema's `properties` that its `required` does not "
            "list, naming that key",
            "test_is_strict_compatible_required",
            broken_once("required"),
        ),
        "path": Family(
            "write the root's path as `$`, the property `traveller` of a schema at path `p` as `p.traveller`, "
            "and the `items` schema of an array at `p` as `p[]`",
            "test_is_strict_compatible_additional",
            broken_once("additional") | broken_once("required"),
        ),
    },
)


# -- Part C: second_request_messages -----------------------------------------------------------------------------

RESULTS = ['{"result": 15}', '{"error": "no"}', '"', "", "Ünïcode ☂", "null", '{"a": [1, 2]}']
CALL_IDS = ["call_1", "call_2", "call_3", "call_9", "x", "", "ｃａｌｌ"]


@st.composite
def first_rounds(draw: st.DrawFn, repeats: bool = False) -> tuple[str, dict[str, Any], dict[str, str]]:
    pool = st.sampled_from(CALL_IDS) | st.text(max_size=4)
    ids = draw(st.lists(pool, min_size=1, max_size=4, unique=not repeats))
    calls = [
        {"id": id_, "type": "function",
         "function": {"name": draw(st.sampled_from(TOOL_NAMES)), "arguments": draw(st.sampled_from(
             ["{}", '{"city": "Paris"}', "", '{"city": "Par']))}}
        for id_ in ids
    ]  # fmt: skip
    message: dict[str, Any] = {
        "role": "assistant",
        "content": draw(st.sampled_from([None, "", "Let me check."])),
    }
    if draw(st.booleans()):
        message.update({"refusal": None, "annotations": []})
    message["tool_calls"] = calls
    if draw(st.booleans()):
        message = dict(reversed(list(message.items())))
    choices = [{"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls"}]
    if draw(st.integers(0, 3)) == 0:
        other = {"role": "assistant", "content": "other", "tool_calls": calls[:1]}
        choices.append({"index": 1, "message": other, "logprobs": None, "finish_reason": "stop"})
    reply = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "stand-in-model",
             "choices": choices, "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}  # fmt: skip
    results = {
        id_: draw(st.sampled_from(RESULTS) | st.text(max_size=4)) for id_ in draw(st.permutations(ids))
    }
    text = draw(st.sampled_from(["Weather in Paris?", "", "Ünïcode ☂", " ", "\n"]) | st.text(max_size=5))
    return text, reply, results


def observe_second(answer: Any, example: tuple[str, dict[str, Any], dict[str, str]]) -> Any:
    """The returned messages (values and exact types; whether the assistant message is the same object or a copy
    is open), any exception by type, and whether first_reply and results (their order too) came out unchanged."""
    user_text, reply, results = example
    before = copy.deepcopy((reply, results))
    got = call_outcome(answer, user_text, reply, results)
    unchanged = _unchanged(reply, before[0]) and list(results.items()) == list(before[1].items())
    return got, unchanged


def observe_second_unchanged(answer: Any, example: tuple[str, dict[str, Any], dict[str, str]]) -> Any:
    """Whether the call returned or raised (by type), and whether first_reply and results came out unchanged."""
    got, unchanged = observe_second(answer, example)
    return got[:2] if got[0] == "raised" else got[0], unchanged


def second_focus(view: Callable[[list[Any]], Any]) -> Callable[[Any, Any], Any]:
    """`contract.focused` for `second_request_messages`: what `view` keeps of the returned messages."""
    return focused(lambda answer, example: answer(*example), view)


def _tool_messages(messages: list[Any]) -> list[tuple[Any, Any]]:
    """(tool_call_id, content) of each message after the first two, in order (as data)."""
    return [(shape(message.get("tool_call_id")), shape(message.get("content"))) for message in messages[2:]]


def _second_reference() -> Any:
    from course_lib.specs import second_request_messages  # noqa: PLC0415

    return second_request_messages


SECOND = Part(
    ASSIGNMENT,
    "second_request_messages",
    _second_reference,
    observe_second,
    "the returned list of messages (values and exact types; the assistant message may be the same object or a "
    "copy), any exception by type; first_reply and results unchanged. Each family compares what its sentence "
    "states (`unchanged` all of it): whether the call returned or raised, and the messages its rule is about.",
    {
        "user": Family(
            'return a new list whose first message is `{"role": "user", "content": user_text}`',
            "test_second_request_single",
            first_rounds(),
            examples=40,
            observe=second_focus(lambda messages: shape(messages[0])),
        ),
        "assistant": Family(
            'put second the assistant message `first_reply["choices"][0]["message"]` exactly as returned',
            "test_second_request_assistant_turn",
            first_rounds(),
            observe=second_focus(lambda messages: shape(messages[1])),
        ),
        "tool_messages": Family(
            'then add one `{"role": "tool", "tool_call_id": <id>, "content": <result>}` message for each call '
            "of `tool_calls`, quoting that call's `id`",
            "test_second_request_parallel",
            first_rounds(repeats=True),
            observe=second_focus(
                lambda messages: sorted(
                    (shape(m.get("role")), shape(m.get("tool_call_id"))) for m in messages[2:]
                )
            ),
        ),
        "results": Family(
            "give each tool message the result string `results[<id>]` as it is, not decoded",
            "test_second_request_parallel",
            first_rounds(),
            examples=40,
            observe=second_focus(lambda messages: sorted(_tool_messages(messages), key=repr)),
        ),
        "order": Family(
            "order the tool messages as the calls are ordered in `tool_calls`, whatever the order of `results`",
            "test_second_request_parallel",
            first_rounds(),
            examples=40,
            observe=second_focus(lambda messages: [message[0] for message in _tool_messages(messages)]),
        ),
        "unchanged": Family(
            "leave `first_reply` and `results` unchanged",
            "test_second_request_assistant_turn",
            first_rounds(),
            examples=40,
            observe=observe_second_unchanged,
        ),
    },
)


# -- Part D: assemble_chat_stream ---------------------------------------------------------------------------------

FRAGMENT = st.text(alphabet='{}":, abc°\\n1', max_size=5)
CALL_NAMES = ["get_weather", "get_time", "", "x" * 64]
CHAT_FINISH = ["stop", "tool_calls", "function_call", "length", "content_filter", "other"]


def _chunk(choices: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": choices,
    }


def _choice(delta: dict[str, Any], finish: Any = None, index: int = 0) -> dict[str, Any]:
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}


def _merge(draw: st.DrawFn, queues: list[list[Any]]) -> list[Any]:
    """The queues' items interleaved in a drawn order, each queue's own order kept."""
    queues = [list(queue) for queue in queues if queue]
    merged = []
    while queues:
        queue = queues[draw(st.integers(0, len(queues) - 1))]
        merged.append(queue.pop(0))
        queues = [queue for queue in queues if queue]
    return merged


def _call_deltas(
    draw: st.DrawFn, index: int, number: int, bad_open: bool, repeat: bool
) -> list[dict[str, Any]]:
    """The tool call deltas of one call: an opening one with id and name, then argument fragments."""
    fragments = draw(st.lists(FRAGMENT, min_size=1, max_size=4))
    function = {"name": draw(st.sampled_from(CALL_NAMES)), "arguments": fragments[0]}
    call_id = draw(st.sampled_from([f"call_{number}", "", "ｃ"]))
    opening: dict[str, Any] = {"index": index, "id": call_id, "type": "function", "function": function}
    if draw(st.integers(0, 3)) == 0:  # the opening delta leaves its arguments out
        del function["arguments"]
    fragments = fragments[1:]
    if bad_open:
        how = draw(st.sampled_from(["no id", "id None", "no name", "name None", "no function"]))
        if how == "no id":
            del opening["id"]
        elif how == "id None":
            opening["id"] = None
        elif how == "no name":
            del opening["function"]["name"]
        elif how == "name None":
            opening["function"]["name"] = None
        else:
            del opening["function"]
    later = []
    for fragment in fragments:
        part: dict[str, Any] = {"index": index, "function": {"arguments": fragment}}
        if repeat and draw(st.booleans()):
            part["id"] = draw(st.sampled_from([opening.get("id"), "call_other"]))
            part["type"] = "function"
            part["function"]["name"] = draw(
                st.sampled_from([opening.get("function", {}).get("name"), "other"])
            )
        later.append(part)
    if draw(st.integers(0, 3)) == 0:
        later.insert(draw(st.integers(0, len(later))), {"index": index, **draw(st.sampled_from(
            [{}, {"function": {}}, {"type": "function"}]))})  # fmt: skip
    return [opening, *later]


@st.composite
def chat_streams(
    draw: st.DrawFn,
    *,
    calls: tuple[int, int] = (0, 3),
    text: bool | None = None,
    finishes: list[Any] | None = None,
    bad_open: bool = False,
    repeat: bool = False,
    others: bool = False,
    after_done: bool = False,
    cut: bool = False,
) -> list[Any]:
    """A chat stream in the documented shape: text and calls interleaved, then maybe its finish_reason."""
    queues: list[list[Any]] = []
    if text is None:
        text = draw(st.booleans())
    if text:
        queues.append([{"content": piece} for piece in draw(st.lists(
            st.sampled_from(["", "It is ", "15 °C", "\n"]) | st.text(max_size=3), max_size=4))])  # fmt: skip
    indexes = draw(st.lists(st.integers(0, 6), min_size=calls[0], max_size=calls[1], unique=True))
    if indexes and draw(st.integers(0, 1)) == 1:
        indexes = list(range(len(indexes)))
    spoiled = draw(st.integers(0, len(indexes) - 1)) if bad_open and indexes else -1
    for number, index in enumerate(indexes, start=1):
        deltas = _call_deltas(draw, index, number, number - 1 == spoiled, repeat)
        queues.append([{"tool_calls": [part]} for part in deltas])
    deltas = _merge(draw, queues)
    if len(deltas) > 1 and draw(st.integers(0, 3)) == 0:  # two tool call deltas in one chunk
        at = draw(st.integers(0, len(deltas) - 2))
        first, second = deltas[at], deltas[at + 1]
        if (
            list(first) == ["tool_calls"] == list(second)
            and first["tool_calls"][0]["index"] != second["tool_calls"][0]["index"]
        ):
            deltas[at : at + 2] = [{"tool_calls": first["tool_calls"] + second["tool_calls"]}]
    opening = draw(st.sampled_from([{"role": "assistant", "content": None}, {"role": "assistant", "content": ""},
                                    {"role": "assistant"}, None]))  # fmt: skip
    chunks: list[Any] = [] if opening is None else [_chunk([_choice(opening)])]
    for delta in deltas:
        choices = [_choice(delta)]
        if others and draw(st.integers(0, 2)) == 0:
            stray = {"index": 0, "id": "call_o", "function": {"name": "other", "arguments": "{}"}}
            other = _choice(draw(st.sampled_from([{"content": "other"}, {"tool_calls": [stray]}])), index=1)
            choices.insert(draw(st.integers(0, 1)), other)
        chunks.append(_chunk(choices))
    finish = draw(st.sampled_from(finishes if finishes is not None else ["stop", "tool_calls"]))
    if finish is not None:
        if chunks and draw(st.integers(0, 3)) == 0:  # the finish_reason rides on the last delta's chunk
            last = chunks[-1]["choices"]
            zero = next(choice for choice in last if choice["index"] == 0)
            zero["finish_reason"] = finish
        else:
            chunks.append(_chunk([_choice({}, finish)]))
    tail = draw(st.lists(st.sampled_from(["usage", "empty"]), max_size=2))
    for kind in tail:
        chunks.append(
            _chunk([]) | {"usage": {"total_tokens": 3}} if kind == "usage" else _chunk([_choice({})])
        )
    if draw(st.booleans()) or after_done:
        chunks.append("[DONE]")
        if after_done:
            chunks.append(_chunk([_choice(draw(st.sampled_from([
                {"content": "late"},
                {"tool_calls": [{"index": 0, "id": "late", "function": {"name": "late", "arguments": "x"}}]},
                {"tool_calls": [{"index": 9, "id": "late", "function": {"name": "late", "arguments": "x"}}]},
            ])))]))  # fmt: skip
    if cut:
        chunks = chunks[: draw(st.integers(0, len(chunks)))]
    return chunks


def observe_stream(answer: Any, events: list[Any]) -> Any:
    """The returned value (exact types), or a ModelTurnError; any other exception by type; the stream (given as a
    generator) and its events unchanged."""
    before = copy.deepcopy(events)
    got = call_outcome(answer, _fresh_stream(events), refusals=(ModelTurnError,))
    return got, _unchanged(events, before)


def stream_focus(view: Callable[[Any], Any] | None = None) -> Callable[[Any, list[Any]], Any]:
    """`contract.focused` for a stream assembler: the stream given as a generator, `ModelTurnError` its refusal
    (the stream left unchanged is the `once` family's rule)."""
    return focused(lambda answer, events: answer(_fresh_stream(events)), view, (ModelTurnError,))


def _message_calls(message: Any) -> list[tuple[Any, Any, Any]]:
    """(id, name, arguments) of each tool call of an assembled chat message, in its order (as data)."""
    calls = message.get("tool_calls", [])
    return [(shape(call["id"]), shape(call["function"]["name"]), shape(call["function"]["arguments"]))
            for call in calls]  # fmt: skip


def _chat_shape(message: Any) -> Any:
    return (tuple(sorted(message)), shape(message.get("role")), "tool_calls" in message)


def _chat_strays(message: Any) -> Any:
    content = message.get("content")
    other = ("other",)
    return (
        isinstance(content, str) and "other" in content,
        any(call[:2] == (("str", "call_o"), ("str", "other")) or call[1] == ("str", *other) for call in
            _message_calls(message)),
    )  # fmt: skip


def _chat_late(message: Any) -> Any:
    content = message.get("content")
    return (
        isinstance(content, str) and "late" in content,
        any(("str", "late") in call[:2] for call in _message_calls(message)),
    )


def _chat_reference() -> Any:
    from course_lib.streaming import assemble_chat_stream  # noqa: PLC0415

    return assemble_chat_stream


ALL_FINISH = [None, *CHAT_FINISH]

CHAT = Part(
    ASSIGNMENT,
    "assemble_chat_stream",
    _chat_reference,
    observe_stream,
    "the returned message (values and exact types) or a ModelTurnError (its message is open); any other exception "
    "by type; the stream, read as a generator, and its chunks unchanged. Each family compares what its "
    "sentence states (the `once` family all of it): whether the answer returned, refused or raised, and the "
    "part of the message its rule is about.",
    {
        "once": Family(
            "read `events` once, in order (it may be a generator), and never modify it or the chunks in it",
            "test_assemble_chat_calls",
            chat_streams(repeat=True),
        ),
        "shape": Family(
            'return `{"role": "assistant", "content": ...}`, with a `"tool_calls"` key added only when the turn '
            "holds at least one call",
            "test_assemble_chat_text",
            chat_streams(),
            observe=stream_focus(_chat_shape),
        ),
        "choice_0": Family(
            "read only the choice whose `index` is 0 and skip any other",
            "test_assemble_chat_text",
            chat_streams(others=True),
            observe=stream_focus(_chat_strays),
        ),
        "content": Family(
            'set `content` to every `delta["content"]` that is not `None`, joined in arrival order, whether or '
            "not the turn also holds calls",
            "test_assemble_chat_text",
            chat_streams(text=True),
            examples=45,
            observe=stream_focus(lambda message: shape(message["content"])),
        ),
        "calls": Family(
            "build one tool call per `index`",
            "test_assemble_chat_calls",
            chat_streams(calls=(1, 4)),
            examples=45,
            observe=stream_focus(lambda message: [call[:2] for call in _message_calls(message)]),
        ),
        "id_name": Family(
            "take a call's `id` and `name` from the first delta at its `index`, raising `ModelTurnError` if that "
            "delta leaves either out (or sends `None`), and never join them",
            "test_assemble_chat_calls",
            st.one_of(chat_streams(calls=(1, 3), repeat=True), chat_streams(calls=(1, 3), bad_open=True)),
            examples=50,
            observe=stream_focus(lambda message: sorted(call[:2] for call in _message_calls(message))),
        ),
        "arguments": Family(
            "set a call's `arguments` to every `arguments` fragment at its `index` joined in arrival order, "
            "never parsed or altered",
            "test_assemble_chat_calls",
            chat_streams(calls=(1, 3)),
            observe=stream_focus(lambda message: sorted(_message_calls(message), key=repr)),
        ),
        "done": Family(
            'stop at `"[DONE]"`: nothing after it counts',
            "test_assemble_chat_text",
            chat_streams(after_done=True),
            examples=40,
            observe=stream_focus(_chat_late),
        ),
        "no_finish": Family(
            'raise `ModelTurnError` if no chunk carries a `finish_reason`, even when `"[DONE]"` arrives',
            "test_assemble_chat_finish",
            st.one_of(chat_streams(finishes=ALL_FINISH), chat_streams(finishes=ALL_FINISH, cut=True)),
            examples=45,
            observe=stream_focus(),
        ),
        "cut_short": Family(
            'raise `ModelTurnError` if the `finish_reason` is `"length"` or `"content_filter"`, whether the turn '
            "holds calls, text or both",
            "test_assemble_chat_finish",
            chat_streams(finishes=CHAT_FINISH),
            observe=stream_focus(),
        ),
    },
)


# -- Part E: assemble_responses_stream -------------------------------------------------------------------------

RESPONSE_NAMES = ["get_weather", "get_time"]


def _item_events(draw: st.DrawFn, index: int, number: int, mismatch: bool) -> list[dict[str, Any]]:
    """The events of one output item at `index`: added first, done last, other events of its item between."""
    at = {"output_index": index}
    item: dict[str, Any]
    kind = draw(st.sampled_from(["function_call", "message", "reasoning"]))
    status = draw(st.sampled_from(["completed", "completed", "incomplete"]))
    if kind == "function_call":
        fragments = draw(st.lists(FRAGMENT, max_size=4))
        arguments = "".join(fragments)
        item = {"id": f"fc_{number}", "type": kind, "status": "in_progress", "arguments": "",
                "call_id": f"call_{number}", "name": draw(st.sampled_from(RESPONSE_NAMES))}  # fmt: skip
        added = {**item, "arguments": draw(st.sampled_from(["", arguments, "{}"]))}
        if draw(st.integers(0, 5)) == 0:
            del added["arguments"]
        said = arguments + draw(st.sampled_from(["}", " ", "x"])) if mismatch else arguments
        events = [{"type": "response.output_item.added", **at, "item": added}]
        events += [{"type": "response.function_call_arguments.delta", **at, "item_id": item["id"], "delta": f}
                   for f in fragments]  # fmt: skip
        if mismatch or draw(st.integers(0, 4)):
            events.append({"type": "response.function_call_arguments.done", **at, "item_id": item["id"],
                           "arguments": said})  # fmt: skip
        events.append({"type": "response.output_item.done", **at,
                       "item": {**item, "arguments": said, "status": status, **_done_extra(draw)}})  # fmt: skip
        return events
    if kind == "message":
        texts = draw(st.lists(st.lists(st.sampled_from(["", "It is ", "15 °C"]) | st.text(max_size=3), max_size=3),
                              min_size=0, max_size=3))  # fmt: skip
        item = {
            "id": f"msg_{number}",
            "type": kind,
            "status": "in_progress",
            "role": "assistant",
        }
        held = draw(st.sampled_from([[], [{"type": "output_text", "text": "old", "annotations": []}]]))
        added = {**item, "content": held}
        if draw(st.integers(0, 5)) == 0:
            del added["content"]
        parts: list[dict[str, Any]] = [
            {"type": "output_text", "text": draw(st.sampled_from(["", "old"])), "annotations": []}
            for _ in texts
        ]
        events = [{"type": "response.output_item.added", **at, "item": added}]
        queues: list[list[dict[str, Any]]] = []
        for i, (text, part) in enumerate(zip(texts, parts, strict=True)):
            queue = [{"type": "response.content_part.added", **at, "content_index": i, "part": part}]
            queue += [
                {"type": "response.output_text.delta", **at, "content_index": i, "delta": d} for d in text
            ]
            queue.append(
                {"type": "response.output_text.done", **at, "content_index": i, "text": "".join(text)}
            )
            queue.append({"type": "response.content_part.done", **at, "content_index": i,
                          "part": {**part, "text": "".join(text)}})  # fmt: skip
            queues.append(queue)
        # a part is added before any delta of a later part names its content_index: keep the parts' order
        events += _merge_parts(draw, queues)
        content = [{**part, "text": "".join(text)} for text, part in zip(texts, parts, strict=True)]
        done = {**item, "status": status, "content": content, **_done_extra(draw)}
        events.append({"type": "response.output_item.done", **at, "item": done})
        return events
    thought: dict[str, Any] = {"id": f"rs_{number}", "type": kind, "summary": []}
    said = draw(st.sampled_from([thought, {**thought, "summary": [{"type": "summary_text", "text": "t"}]},
                                 {**thought, "encrypted_content": "sealed"}]))  # fmt: skip
    return [
        {"type": "response.output_item.added", **at, "item": thought},
        {"type": "response.output_item.done", **at, "item": {**said, "status": status}},
    ]


def _done_extra(draw: st.DrawFn) -> dict[str, Any]:
    """What a done item may hold beyond the added one: only its `status` counts for a call or a message."""
    return dict(draw(st.sampled_from([{}, {}, {"note": "from the done event"}, {"role": "assistant"}])))


def _merge_parts(draw: st.DrawFn, queues: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Interleave the parts' events, each part's own order kept and each part added after the one before."""
    merged: list[dict[str, Any]] = []
    opened = 0
    queues = [list(queue) for queue in queues]
    while any(queues):
        ready = [i for i, queue in enumerate(queues) if queue and (i <= opened)]
        i = ready[draw(st.integers(0, len(ready) - 1))]
        event = queues[i].pop(0)
        if event["type"] == "response.content_part.added":
            opened = max(opened, i + 1)
        merged.append(event)
    return merged


UNOPENED_TYPES = ["response.function_call_arguments.delta", "response.function_call_arguments.done",
                  "response.output_item.done", "response.content_part.added", "response.output_text.delta"]  # fmt: skip
OTHER_EVENTS = [{"type": "response.in_progress"}, {"type": "response.queued"},
                {"type": "response.reasoning_summary_text.delta", "delta": "t"}, {"type": "keepalive"}]  # fmt: skip


@st.composite
def responses_streams(
    draw: st.DrawFn,
    *,
    items: tuple[int, int] = (0, 3),
    mismatch: bool = False,
    unopened: bool = False,
    endings: list[str] | None = None,
    after: bool = False,
    cut: bool = False,
    interrupt: bool = False,
) -> list[Any]:
    """A Responses stream in the documented shape: items added in any order and interleaved, then its end."""
    count = draw(st.integers(*items))
    order = draw(st.permutations(range(count)))
    spoiled = draw(st.integers(0, count - 1)) if mismatch and count else -1
    queues = [_item_events(draw, index, number, number - 1 == spoiled)
              for number, index in enumerate(order, start=1)]  # fmt: skip
    stream: list[Any] = [{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}]
    stream += _merge(draw, queues)
    for _ in range(draw(st.integers(0, 2))):
        stream.insert(draw(st.integers(1, len(stream))), dict(draw(st.sampled_from(OTHER_EVENTS))))
    if unopened:
        stray = {"type": draw(st.sampled_from(UNOPENED_TYPES)),
                 "output_index": draw(st.sampled_from([count, count + 3, 99])), "delta": "{", "content_index": 0,
                 "arguments": "", "item": {"type": "reasoning", "id": "rs_x", "status": "completed"},
                 "part": {"type": "output_text", "text": "", "annotations": []}}  # fmt: skip
        stream.insert(draw(st.integers(1, len(stream))), stray)
    if interrupt:  # an end that is not a completion, before the stream goes on to response.completed
        kind = draw(st.sampled_from(["response.incomplete", "response.failed", "error"]))
        stream.insert(draw(st.integers(1, len(stream))), {"type": kind, "response": {"id": "resp_1"}})
    for index, event in enumerate(stream):
        event["sequence_number"] = index
    ending = draw(st.sampled_from(endings if endings is not None else ["response.completed"]))
    if ending != "none":
        stream.append({"type": ending, "sequence_number": len(stream), "response": {"id": "resp_1"}})
    if after:
        stream.append(dict(draw(st.sampled_from([
            {"type": "error", "message": "late"}, {"type": "response.failed"}, {"type": "response.incomplete"},
            {"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "late"}},
            {"type": "response.output_item.added", "output_index": 9, "item": {"type": "reasoning", "id": "late"}},
            {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "late"},
            {"type": "response.output_text.delta", "output_index": 7, "content_index": 0, "delta": "late"},
        ]))))  # fmt: skip
    if cut:
        stream = stream[: draw(st.integers(0, len(stream)))]
    return stream


def observe_items(answer: Any, events: list[Any]) -> Any:
    """As `observe_stream`, and whether the returned items share a container with the events (inside a message's
    content parts aside: the prose appends a part with its text set, not a deep copy of it)."""
    before = copy.deepcopy(events)
    try:
        result = answer(_fresh_stream(events))
    except ModelTurnError:
        got: Any = ("refused", "ModelTurnError")
    except Exception as error:
        if isinstance(error, contract.ABORTING):
            raise
        got = ("raised", type(error).__name__)
    else:
        got = ("returned", shape(result), _items_share(result, events))
    return got, _unchanged(events, before)


def _items_share(result: Any, events: Any) -> Any:
    if type(result) is not list:
        return None
    mine = set()
    for item in result:
        if type(item) is not dict:
            continue
        mine.add(id(item))
        for key, value in item.items():
            if key == "content" and item.get("type") == "message" and type(value) is list:
                mine.add(id(value))
                mine.update(id(part) for part in value)
                continue
            mine.update(id(inner) for inner in contract.containers(value))
    return bool(mine & {id(inner) for inner in contract.containers(events)})


def _responses_reference() -> Any:
    from course_lib.streaming import assemble_responses_stream  # noqa: PLC0415

    return assemble_responses_stream


BAD_ENDINGS = ["response.completed", "response.incomplete", "response.failed", "error", "none"]

RESPONSES = Part(
    ASSIGNMENT,
    "assemble_responses_stream",
    _responses_reference,
    observe_items,
    "the returned items (values and exact types, sharing no container with the events but inside a content "
    "part) or a ModelTurnError (its message is open); any other exception by type; the events unchanged. "
    "`order`, `unopened`, `completed` and `unfinished` compare what their sentences state: whether the call "
    "returned, refused or raised, and the items' order, or anything after the completion.",
    {
        "once": Family(
            "read `events` once, in order (it may be a generator), and never modify it or the events in it",
            "test_assemble_responses_calls",
            responses_streams(),
        ),
        "order": Family(
            "return the output items as a list in increasing `output_index`, whatever order they were added in",
            "test_assemble_responses_calls",
            responses_streams(items=(2, 4)),
            examples=40,
            observe=stream_focus(lambda items: [shape(item.get("id")) for item in items]),
        ),
        "start": Family(
            "start each item as a deep copy of the `item` of its `response.output_item.added` event",
            "test_assemble_responses_calls",
            responses_streams(items=(1, 3)),
        ),
        "arguments": Family(
            "set a function call's `arguments` to its `response.function_call_arguments.delta` deltas joined in "
            "order, and raise `ModelTurnError` if a `response.function_call_arguments.done` event's `arguments` "
            "differ from the deltas joined so far",
            "test_assemble_responses_calls",
            responses_streams(items=(1, 3)) | responses_streams(items=(1, 3), mismatch=True),
            examples=45,
        ),
        "parts": Family(
            'append each `response.content_part.added` event\'s `part`, with `"text": ""`, to its message\'s '
            "`content`, and join each `response.output_text.delta` delta into the part at that event's "
            "`content_index`",
            "test_assemble_responses_calls",
            responses_streams(items=(1, 3)),
        ),
        "done": Family(
            "at `response.output_item.done`, set a `function_call`'s or `message`'s `status` to "
            '`event["item"]["status"]`, and replace an item of any other type',
            "test_assemble_responses_calls",
            responses_streams(items=(1, 3)),
        ),
        "unopened": Family(
            "raise `ModelTurnError` if an event names an `output_index` that no earlier "
            "`response.output_item.added` opened",
            "test_assemble_responses_unfinished",
            responses_streams(unopened=True),
            examples=45,
            observe=stream_focus(),
        ),
        "completed": Family(
            "stop at `response.completed`: nothing after it counts",
            "test_assemble_responses_unfinished",
            responses_streams(after=True),
            examples=40,
            observe=stream_focus(lambda items: ("late" in repr(items), len(items))),
        ),
        "unfinished": Family(
            "raise `ModelTurnError` if the stream ends without `response.completed`, or brings "
            "`response.incomplete`, `response.failed` or `error` before it",
            "test_assemble_responses_unfinished",
            st.one_of(
                responses_streams(endings=BAD_ENDINGS),
                responses_streams(cut=True),
                responses_streams(interrupt=True),
            ),
            observe=stream_focus(),
        ),
    },
)


# -- Part F: chained_responses_loop ----------------------------------------------------------------------------

LOOP_CALLS = [
    ("get_weather", '{"city": "Paris", "unit": "celsius"}'),
    ("get_weather", '{"city": "Par'),
    ("get_user_city", '{"user_id": "u1"}'),
    ("delete_note", '{"note_id": 1}'),
    ("get_wether", "{}"),
    ("average", '{"numbers": [1, 2]}'),
]
"""Calls a generated answer asks for: good, broken, another tool, destructive, unknown, not offered."""
OFFERED = [
    ["get_weather"],
    ["get_weather", "get_user_city", "delete_note"],
    ["delete_note", "get_user_city"],
    [],
]


def confirm_yes(name: str, arguments: Any) -> bool:
    return True


def confirm_no(name: str, arguments: Any) -> bool:
    return False


class Conversation(NamedTuple):
    """The stand-in model's answers (one per request, the last one again after them), the offered names, the
    user's text and the loop's options."""

    answers: tuple[Any, ...]
    offered: tuple[str, ...]
    user_text: str
    options: dict[str, Any]


def _answer(draw: st.DrawFn, number: int, final: bool | None) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if draw(st.booleans()):
        output.append({"id": f"rs_{number}", "type": "reasoning", "summary": []})
    messages = draw(
        st.lists(st.lists(st.sampled_from(["", "It is ", "15 C.", "Ünï"]), max_size=2), max_size=2)
    )
    for m, texts in enumerate(messages):
        content: list[dict[str, Any]] = [
            {"type": "output_text", "text": text, "annotations": []} for text in texts
        ]
        if draw(st.integers(0, 4)) == 0:
            content.insert(0, {"type": "refusal", "refusal": "no"})
        output.append({"id": f"msg_{number}_{m}", "type": "message", "status": "completed", "role": "assistant",
                       "content": content})  # fmt: skip
    if final is None:
        final = draw(st.booleans())
    calls = [] if final else draw(st.lists(st.sampled_from(LOOP_CALLS), min_size=1, max_size=3))
    for i, (name, arguments) in enumerate(calls):
        output.insert(draw(st.integers(0, len(output))), {
            "id": f"fc_{number}_{i}", "type": "function_call", "status": "completed", "arguments": arguments,
            "call_id": f"call_{number}_{i}", "name": name})  # fmt: skip
    return {"id": f"resp_{number}", "object": "response", "status": "completed", "output": output}


@st.composite
def conversations(draw: st.DrawFn, turns: tuple[int, int] = (1, 5), endless: bool = False) -> Conversation:
    count = draw(st.integers(*turns))
    answers = tuple(
        _answer(draw, number, False if endless or number < count else None) for number in range(1, count + 1)
    )
    options: dict[str, Any] = {}
    if draw(st.integers(0, 4)):
        options["max_steps"] = draw(st.integers(0, 5))
    if draw(st.booleans()):
        options["model"] = draw(st.sampled_from(["gpt-test", None, ""]))
    confirm = draw(st.sampled_from([confirm_no, confirm_yes, None, "left out"]))
    if confirm != "left out":
        options["confirm"] = confirm
    extras: list[tuple[str, list[Any]]] = [
        ("store", [True, False]), ("temperature", [0, 0.5]), ("tool_choice", ["auto", "required"]),
        ("metadata", [{"k": "v"}]),
    ]  # fmt: skip
    for key, values in extras:
        if draw(st.integers(0, 3)) == 0:
            options[key] = draw(st.sampled_from(values))
    text = draw(st.sampled_from(["Weather?", "", "Ünïcode ☂"]))
    return Conversation(answers, tuple(draw(st.sampled_from(OFFERED))), text, options)


class _Endpoint:
    """post_json's stand-in: records each request, then gives the next answer (the last one again)."""

    def __init__(self, answers: tuple[Any, ...]) -> None:
        self.answers = answers
        self.sent: list[Any] = []

    def __call__(self, base: str, path: str, body: Any, *args: Any, **kwargs: Any) -> Any:
        self.sent.append((base, path, shape(copy.deepcopy(body))))
        return copy.deepcopy(self.answers[min(len(self.sent), len(self.answers)) - 1])


BASE = "http://127.0.0.1:9/v1"


def observe_loop(answer: Any, conversation: Conversation) -> Any:
    """What the loop returns (the text and the trace) or MaxStepsExceeded with its trace, any other exception by
    type; every request it sent through `post_json` (its base, path and body); the toolbox's notes after."""
    from course_lib.demo_tools import notes_of, weather_toolbox  # noqa: PLC0415

    endpoint, box = _Endpoint(conversation.answers), weather_toolbox()
    where = getattr(answer, "__globals__", {})
    with mock.patch.dict(where, {"post_json": endpoint}):
        try:
            text, trace = answer(BASE, conversation.user_text, box, list(conversation.offered),
                                 **conversation.options)  # fmt: skip
            got: Any = ("returned", shape(text), shape([tuple(entry) for entry in trace]))
        except MaxStepsExceeded as stop:
            got = ("MaxStepsExceeded", shape([tuple(entry) for entry in stop.trace]))
        except Exception as error:
            if isinstance(error, contract.ABORTING):
                raise
            got = ("raised", type(error).__name__)
    return got, endpoint.sent, shape(notes_of(box))


def _loop_reference() -> Any:
    from course_lib.chained import chained_responses_loop  # noqa: PLC0415

    return chained_responses_loop


LOOP = Part(
    ASSIGNMENT,
    "chained_responses_loop",
    _loop_reference,
    observe_loop,
    "the returned text and trace (or MaxStepsExceeded and its trace; other exceptions by type), every request "
    "sent through post_json (base, path, body), and the toolbox's notes after the run.",
    {
        "body": Family(
            'send every request with `post_json(base, "/responses", body)`, where `body` holds `"model": model '
            'or MODEL`, `"tools": tool_specs(toolbox, names, "responses")` and every field of `extra`, on every '
            "request",
            "test_chained_loop_chains",
            conversations(),
            examples=40,
        ),
        "first": Family(
            'send `"input": [{"role": "user", "content": user_text}]` and no `previous_response_id` in the '
            "first request",
            "test_chained_loop_chains",
            conversations(turns=(1, 2)),
            examples=40,
        ),
        "previous": Family(
            'name in `"previous_response_id"` of every later request the `id` of the answer it has just received',
            "test_chained_loop_chains",
            conversations(turns=(2, 5)),
            examples=40,
        ),
        "outputs": Family(
            'send as the `"input"` of every later request one `{"type": "function_call_output", "call_id": '
            '<its call_id>, "output": <result string>}` per `function_call` item of that answer, in their order',
            "test_chained_loop_chains",
            conversations(turns=(2, 4)),
            examples=40,
        ),
        "new_items": Family(
            "never send again an item the provider already holds",
            "test_chained_loop_chains",
            conversations(turns=(2, 4)),
            examples=40,
        ),
        "run": Family(
            "run every call with `toolbox.run(name, arguments, names, confirm)`, as notebook 03's loops do, and "
            "append `(step, name, arguments, result)` to the trace",
            "test_chained_loop_final_text",
            conversations(turns=(2, 4)),
            examples=60,
        ),
        "final": Family(
            "return the text of the first answer without a `function_call` item (every `output_text` part of its "
            "`message` items, joined) and the trace",
            "test_chained_loop_final_text",
            conversations(),
            examples=40,
        ),
        "max_steps": Family(
            "raise `MaxStepsExceeded(message, trace)` after `max_steps` requests without such an answer",
            "test_chained_loop_max_steps",
            conversations(endless=True) | conversations(),
            examples=40,
        ),
    },
)

PARTS = {part.name: part for part in (SPECS, STRICT, SECOND, CHAT, RESPONSES, LOOP)}
