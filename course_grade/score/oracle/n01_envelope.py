"""Notebook 01's parts: `parse_envelope` against `course_lib.envelope`, `chat_message_to_envelopes` against the
reading of Part B's list below (course_lib has no key for it).

An example carries, beside the input, the fields the prose says a refusal must name (`must_name`): the only part
of a message the contract fixes. Every other family varies one rule at a time, so the rule decides on its own.
"""

from __future__ import annotations

import copy
import json
from collections import OrderedDict, UserDict
from collections.abc import Callable
from typing import Any, NamedTuple

from hypothesis import strategies as st

from course_grade.score.oracle.contract import Family, Part, call_outcome, shape, shares_a_container, words_in
from course_lib.errors import EnvelopeError

ASSIGNMENT = "01_envelope"


class Tagged(str):
    """A `str` subclass: not a `str` for the contract."""


class Counted(int):
    """An `int` subclass: not an `int` for the contract."""


class Envelope(dict[str, Any]):
    """A `dict` subclass: not a `dict` for the contract."""


Arguments = Envelope


def _user_dict(items: dict[str, Any]) -> Any:
    return UserDict(items)


class Raw(NamedTuple):
    """An input of `parse_envelope` and the fields a refusal of it must name."""

    raw: Any
    must_name: tuple[str, ...] = ()


# -- parse_envelope ---------------------------------------------------------------------------------------------

WHITESPACE = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680",
              "\u2000", "\u2003", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]  # fmt: skip
"""Every kind of character `str.strip()` removes (and so a blank id may be made of)."""

NOT_WHITESPACE = ["\u200b", "\ufeff", "\u180e", "_", "0", "\x00"]
"""Characters that look blank or are invisible, yet `str.strip()` keeps."""

texts = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["", " ", "\n", "hi", "read_note", "café", "ｆｕｌｌ", "٣", "a" * 70]),
)
ids = st.one_of(
    st.sampled_from(["call_1", " c1 ", "c1\n", "\u2003c1", "ｃ１", "x", "0", "call_" + "9" * 60]),
    st.text(min_size=1, max_size=6).filter(lambda text: text.strip() != ""),
)
good_names = st.from_regex(r"[a-zA-Z0-9_-]{1,64}", fullmatch=True) | st.sampled_from(
    ["read_note", "a" * 64, "-", "_", "9", "Read-Note_2"]
)
json_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**18, max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=4), st.sampled_from(["", "\x00", "é"]),
)  # fmt: skip
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(max_size=4), json_values, max_size=4)
plain_arguments = st.sampled_from([{}, {"note_id": "n1"}, {"limit": 3, "tags": ["a"]}])
"""Arguments no rule is about, for the families that vary the id or the name alone."""


@st.composite
def valid(draw: st.DrawFn) -> dict[str, Any]:
    """A valid envelope: a final answer or a call."""
    if draw(st.booleans()):
        return {"kind": "final", "text": draw(texts)}
    return {"kind": "call", "id": draw(ids), "name": draw(good_names), "arguments": draw(arguments)}


def reordered(draw: st.DrawFn, raw: dict[Any, Any]) -> dict[Any, Any]:
    """The same keys in a drawn order (the contract does not depend on it)."""
    keys = draw(st.permutations(list(raw)))
    return {key: raw[key] for key in keys}


@st.composite
def not_a_dict(draw: st.DrawFn) -> Raw:
    raw = draw(valid())
    wrapped = draw(
        st.sampled_from(["ordered", "user", "sub", "list", "json", "none", "tuple", "items", "int"])
    )
    makers: dict[str, Callable[[], Any]] = {
        "ordered": lambda: OrderedDict(raw), "user": lambda: _user_dict(raw), "sub": lambda: Envelope(raw),
        "list": lambda: [raw], "json": lambda: json.dumps(raw), "none": lambda: None,
        "tuple": lambda: tuple(raw.items()), "items": lambda: list(raw.items()), "int": lambda: 0,
    }  # fmt: skip
    return Raw(makers[wrapped](), ("envelope",))


@st.composite
def bad_keys(draw: st.DrawFn) -> Raw:
    raw: dict[Any, Any] = dict(draw(valid()))
    for key in draw(st.lists(st.sampled_from([1, None, 1.5, ("kind",), b"kind", Tagged("kind"), True]),
                             min_size=1, max_size=2, unique_by=repr)):  # fmt: skip
        raw[key] = draw(st.sampled_from(["x", None]))
    return Raw(reordered(draw, raw), ("envelope",))


@st.composite
def bad_kind(draw: st.DrawFn) -> Raw:
    raw: dict[str, Any] = dict(draw(valid()))
    kind = raw["kind"]
    if draw(st.booleans()):
        del raw["kind"]
    else:
        raw["kind"] = draw(st.one_of(
            st.sampled_from([kind.upper(), kind.title(), f" {kind}", f"{kind} ", f"{kind}\n", "", "tool_use",
                             "function", "text", Tagged(kind), None, 0, 1, True, b"call", [kind], (kind,)]),
            st.text(max_size=6).filter(lambda text: text not in ("final", "call")),
        ))  # fmt: skip
    return Raw(reordered(draw, raw), ("kind",))


@st.composite
def wrong_keys(draw: st.DrawFn) -> Raw:
    raw: dict[str, Any] = dict(draw(valid()))
    fields = sorted(set(raw) - {"kind"})
    missing = draw(st.lists(st.sampled_from(fields), max_size=len(fields), unique=True))
    others = ["text", "id", "name", "arguments", "tool", "extra", "note_id", "an_unexpected_key_" + "x" * 60]
    extra = draw(
        st.lists(st.sampled_from([key for key in others if key not in raw]), max_size=2, unique=True)
    )
    if not missing:  # one extra key alone: the message names "the extra key" (which of two is left open)
        extra = [draw(st.sampled_from([key for key in others if key not in raw]))]
    for key in missing:
        del raw[key]
    for key in extra:
        raw[key] = draw(st.sampled_from([None, "x", {}, 0]))
    return Raw(reordered(draw, raw), tuple(missing) if missing else tuple(extra))


@st.composite
def wrong_strings(draw: st.DrawFn) -> Raw:
    raw: dict[str, Any] = dict(draw(valid()))
    field = draw(st.sampled_from([key for key in raw if key in ("text", "id", "name")]))
    good = raw[field]
    raw[field] = draw(st.sampled_from([None, True, False, 0, 1, 1.5, b"x", good.encode(), Tagged(good or "x"),
                                       Tagged(""), ["x"], {"x": 1}]))  # fmt: skip
    return Raw(raw, (field,))


@st.composite
def blank_or_not_ids(draw: st.DrawFn) -> Raw:
    raw = {"kind": "call", "id": "", "name": draw(good_names), "arguments": draw(plain_arguments)}
    if draw(st.booleans()):
        raw["id"] = "".join(draw(st.lists(st.sampled_from(WHITESPACE), max_size=4)))
        return Raw(raw, ("id",))
    padding = st.lists(st.sampled_from(WHITESPACE), max_size=2).map("".join)
    core = draw(st.sampled_from(NOT_WHITESPACE) | st.text(min_size=1, max_size=3).filter(str.strip))
    raw["id"] = draw(padding) + core + draw(padding)
    return Raw(raw)


@st.composite
def edge_names(draw: st.DrawFn) -> Raw:
    raw = {"kind": "call", "id": draw(ids), "name": "x", "arguments": draw(plain_arguments)}
    good = draw(good_names)
    bad = draw(st.one_of(
        st.sampled_from(["", "a" * 65, "read note", "read.note", "read_note\n", "\nread_note", "café", "٣", "ｆ",
                         "read_note\x00", "İ", "ß", "x" * 100, "read/note", "$", "a:b"]),
        st.text(min_size=1, max_size=8).filter(lambda text: not all(c.isascii() and (c.isalnum() or c in "_-")
                                                                    for c in text)),
    ))  # fmt: skip
    if draw(st.booleans()):
        raw["name"] = good
        return Raw(raw)
    raw["name"] = bad
    return Raw(raw, ("name",))


@st.composite
def not_an_object(draw: st.DrawFn) -> Raw:
    raw = {"kind": "call", "id": draw(ids), "name": draw(good_names), "arguments": {}}
    inner = draw(arguments)
    raw["arguments"] = draw(st.sampled_from([json.dumps(inner), list(inner.items()), None, OrderedDict(inner),
                                             Arguments(inner), _user_dict(inner), 0, "", []]))  # fmt: skip
    return Raw(raw, ("arguments",))


leaves_json_has_not = st.sampled_from([
    (1,), (), {1}, frozenset(), b"x", bytearray(b"x"), float("nan"), float("inf"), float("-inf"), 1j,
    Tagged("x"), Counted(1), OrderedDict(a=1), _user_dict({"a": 1}), range(2), object,
])  # fmt: skip


@st.composite
def inside_arguments(draw: st.DrawFn) -> Raw:
    """A value JSON has not, or a non-str key, somewhere inside otherwise valid arguments; or valid ones."""
    raw: dict[str, Any] = {"kind": "call", "id": "c1", "name": "x", "arguments": draw(arguments)}
    if draw(st.integers(0, 3)) == 0:
        return Raw(raw)
    bad: Any = draw(leaves_json_has_not)
    if draw(st.integers(0, 4)) == 0:
        bad = {draw(st.sampled_from([1, None, 1.5, Tagged("k"), b"k", True])): "v"}
    for _ in range(draw(st.integers(0, 4))):
        bad = draw(st.sampled_from([[bad], {"k": bad}, [1, bad], {"a": 1, "b": bad}]))
    raw["arguments"] = {**raw["arguments"], "z": bad}
    return Raw(raw, ("arguments",))


def nested(levels: int, kinds: list[str]) -> Any:
    """`arguments` nested `levels` containers deep, each a dict or a list as `kinds` says (cycled)."""
    value: Any = 1
    for level in range(levels - 1, 0, -1):
        value = {"a": value} if kinds[level % len(kinds)] == "dict" else [value]
    return {"a": value} if levels > 1 else {}


@st.composite
def depths(draw: st.DrawFn) -> Raw:
    levels = draw(st.one_of(st.integers(60, 68), st.sampled_from([1, 2, 64, 65, 100, 1200])))
    kinds = draw(st.lists(st.sampled_from(["dict", "list"]), min_size=1, max_size=3))
    raw = {"kind": "call", "id": "c1", "name": "x", "arguments": nested(levels, kinds)}
    return Raw(raw, ("arguments",) if levels > 64 else ())


@st.composite
def refused(draw: st.DrawFn) -> Raw:
    """An input some rule refuses, with the field its refusal must name."""
    inputs = [not_a_dict(), bad_keys(), bad_kind(), wrong_keys(), wrong_strings(), blank_or_not_ids(),
              edge_names(), not_an_object(), inside_arguments(), depths()]  # fmt: skip
    return draw(st.one_of(inputs).filter(lambda example: bool(example.must_name)))


@st.composite
def accepted(draw: st.DrawFn) -> Raw:
    """Valid envelopes whose arguments share containers inside themselves (the copy must not)."""
    raw = draw(valid())
    if raw["kind"] == "call" and draw(st.booleans()):
        shared = draw(st.lists(json_values, max_size=2))
        raw["arguments"] = {"a": shared, "b": shared, "c": [shared], **raw["arguments"]}
    return Raw(reordered(draw, raw))


def observe_parse(answer: Any, example: Raw) -> Any:
    """A result (its value and exact types, whether it shares a container with `raw`), or a refusal and whether
    its message names every field `must_name` holds; and whether `raw` came out of the call unchanged (the
    part's whole observation; each family compares the part of it its sentence states)."""
    return _observe_parse(answer, example, view=shape, named="all", copies=True)


def observe_naming(answer: Any, example: Raw) -> Any:
    """Whether a refusal's message names every field `must_name` holds; an answer that does not refuse has
    nothing to name (refusing at all is each rule's own family)."""
    got = _observe_parse(answer, example, view=None, named="all", copies=False)
    return got[1] if got[0] == "refused" else True


def focus(
    view: Callable[[Any], Any] | None = None, named: str = "", copies: bool = False
) -> Callable[[Any, Raw], Any]:
    """An observation of `parse_envelope` that compares only what one family's sentence states: whether the
    call returned, refused or raised (always); what `view` keeps of a result; whether a refusal names every
    field `must_name` holds (`named="all"`) or the missing ones alone (`"missing"`); the copy's independence
    and `raw` unchanged (`copies`). A mistake against another family's rule then costs that family's cell alone."""

    def observe(answer: Any, example: Raw) -> Any:
        return _observe_parse(answer, example, view=view, named=named, copies=copies)

    return observe


def field_of(name: str) -> Callable[[Any], Any]:
    """A view of one key of a returned dict (the whole result when it is not a dict holding that key)."""

    def view(result: Any) -> Any:
        return shape(result[name]) if type(result) is dict and name in result else ("whole", shape(result))

    return view


def _observe_parse(
    answer: Any, example: Raw, *, view: Callable[[Any], Any] | None, named: str, copies: bool
) -> Any:
    raw = example.raw
    try:
        before = copy.deepcopy(raw)
    except Exception:
        before = raw
    must_name = example.must_name
    if named == "missing":  # the fields a refusal must name because they are absent (not the extra ones)
        must_name = tuple(key for key in must_name if not (type(before) is dict and key in before))
    try:
        result = answer(raw)
    except EnvelopeError as error:
        got: Any = ("refused", words_in(str(error), must_name) == must_name if named else None)
    except Exception as error:
        from course_grade.score.oracle import contract  # noqa: PLC0415

        if isinstance(error, contract.ABORTING):
            raise
        got = ("raised", type(error).__name__)
    else:
        kept = view(result) if view is not None else None
        got = ("returned", kept, shares_a_container(result, raw) if copies else None)
    return (got, _unchanged(raw, before)) if copies else got


def _unchanged(raw: Any, before: Any) -> bool:
    try:
        return bool(shape(raw) == shape(before))
    except Exception:
        return True


def _parse_reference() -> Any:
    from course_lib.envelope import parse_envelope  # noqa: PLC0415

    return parse_envelope


PARSE = Part(
    ASSIGNMENT,
    "parse_envelope",
    _parse_reference,
    observe_parse,
    "the returned dict (value and exact types, sharing no container with raw) or an EnvelopeError whose message "
    "names every offending field; any other exception by type; raw unchanged. The rest of a message is open. "
    "Each family compares what its sentence states: whether the call returned, refused or raised, and the "
    "field, the naming or the copy its rule is about.",
    {
        "dict": Family(
            "refuse a `raw` that is not exactly a `dict`",
            "test_parse_envelope_not_a_dict",
            not_a_dict(),
            observe=focus(),
        ),
        "str_keys": Family(
            "refuse a `raw` with a key that is not exactly a `str`",
            "test_parse_envelope_str_keys",
            bad_keys(),
            observe=focus(),
        ),
        "kind": Family(
            'require `kind`, present and exactly the string `"final"` or `"call"`',
            "test_parse_envelope_kind",
            bad_kind(),
            observe=focus(),
        ),
        "keys": Family(
            "require exactly the keys of that kind; when keys are missing, name every missing one",
            "test_parse_envelope_keys",
            wrong_keys(),
            examples=80,
            observe=focus(named="missing"),
        ),
        "types": Family(
            "require `text`, `id` and `name` to be exactly `str`",
            "test_parse_envelope_types",
            wrong_strings(),
            observe=focus(),
        ),
        "blank_id": Family(
            "refuse a blank `id`; return any other `id` unchanged",
            "test_parse_envelope_blank_id",
            blank_or_not_ids(),
            observe=focus(field_of("id")),
        ),
        "name": Family(
            "require `name` to match `[a-zA-Z0-9_-]{1,64}` as a whole",
            "test_parse_envelope_name",
            edge_names(),
            examples=80,
            observe=focus(field_of("name")),
        ),
        "arguments": Family(
            "require `arguments` to be exactly a `dict`",
            "test_parse_envelope_arguments",
            not_an_object(),
            observe=focus(),
        ),
        "json_values": Family(
            "accept inside `arguments`, at any depth, only `dict`s with `str` keys, `list`s, `str`, `int`, "
            "finite `float`, `bool` and `None`, each of exactly that type",
            "test_parse_envelope_json_values",
            inside_arguments(),
            examples=80,
            observe=focus(field_of("arguments")),
        ),
        "depth": Family(
            "accept `arguments` nested 64 containers deep; "
            "refuse deeper ones with an `EnvelopeError`, never a `RecursionError`",
            "test_parse_envelope_depth",
            depths(),
            examples=30,
            observe=focus(field_of("arguments")),
        ),
        "copy": Family(
            "return a new dict, equal to `raw` when `raw` is accepted, "
            "that shares no `dict` or `list` with `raw` at any depth",
            "test_parse_envelope_copy",
            accepted(),
            observe=focus(shape, copies=True),
        ),
        "messages": Family(
            "put in every `EnvelopeError` message the name of the offending field",
            "test_parse_envelope_messages",
            refused(),
            observe=observe_naming,
        ),
    },
)


# -- chat_message_to_envelopes ---------------------------------------------------------------------------------


def chat_message_to_envelopes(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Part B's list read literally: course_lib has no key for it, so this is its reference."""
    calls = message.get("tool_calls") or []
    if not calls:
        return [{"kind": "final", "text": message["content"]}]
    envelopes = []
    for call in calls:
        try:
            decoded = json.loads(call["function"]["arguments"])
        except json.JSONDecodeError:
            raise EnvelopeError("arguments: not valid JSON") from None
        envelopes.append(
            {"kind": "call", "id": call["id"], "name": call["function"]["name"], "arguments": decoded}
        )
    return envelopes


GOOD_ARGUMENTS = st.one_of(
    json_values.map(json.dumps),
    st.sampled_from(['{"note_id": "n1"}', "{}", "[1, 2]", '"text"', "null", " {} ", '{"a": 1, "a": 2}',
                     '{"a": "\\u00e9\\ud83d\\ude00"}', "1e400", "-0", "NaN", '{"a": Infinity}', "12345678901234567890",
                     '\t{"a":\n[]}\r\n']),
)  # fmt: skip
BAD_ARGUMENTS = st.sampled_from(["", "{'a': 1}", '{"a": 1} trailing', "{a: 1}", '{"a": 1', "undefined", "{,}",
                                 '"unterminated', "[1,]", "\x00", "{}{}", "nan"])  # fmt: skip


@st.composite
def messages(
    draw: st.DrawFn, arguments: st.SearchStrategy[str] = GOOD_ARGUMENTS, calls: bool | None = None
) -> Any:
    """A Chat Completions assistant message as the API returns it."""
    content = draw(
        st.one_of(st.none(), st.sampled_from(["", "Done.", "  ", '{"kind": "final"}']), st.text(max_size=5))
    )
    message: dict[str, Any] = {"role": "assistant", "content": content}
    tool_calls = [
        {"id": draw(st.sampled_from(["call_1", "", " c ", "call_1"]) | st.text(max_size=4)), "type": "function",
         "function": {"name": draw(st.sampled_from(["read_note", "x", "", "read note"])), "arguments": text}}
        for text in draw(st.lists(arguments, min_size=1 if calls else 0, max_size=4))
    ]  # fmt: skip
    shape_of = draw(st.sampled_from(["calls", "absent", "none", "empty"])) if calls is None else "calls"
    if shape_of == "calls" and tool_calls:
        message["tool_calls"] = tool_calls
    elif shape_of == "none":
        message["tool_calls"] = None
    elif shape_of in ("empty", "calls"):
        message["tool_calls"] = []
    if draw(st.booleans()):
        message = {**message, "refusal": None, "annotations": []}
    return message


@st.composite
def with_a_bad_call(draw: st.DrawFn) -> Any:
    message = draw(messages(calls=True))
    position = draw(st.integers(0, len(message["tool_calls"]) - 1))
    message["tool_calls"][position]["function"]["arguments"] = draw(BAD_ARGUMENTS)
    return message


def observe_adapter(answer: Any, message: Any) -> Any:
    """The returned list (exact types), or an EnvelopeError and whether it names `arguments`; and whether the
    message came out of the call unchanged."""
    before = copy.deepcopy(message)
    got = call_outcome(answer, message, refusals=(EnvelopeError,), words=("arguments",))
    return got, _unchanged(message, before)


def observe_final(answer: Any, message: Any) -> Any:
    """`observe_adapter` for the final-answer rule: for a message with tool calls, only whether a final
    envelope came back beside them (how the calls are translated, or refused, is another family's rule)."""
    if not message.get("tool_calls"):
        return observe_adapter(answer, message)
    got = call_outcome(answer, message, refusals=(EnvelopeError,))
    returned = got[0] == "returned" and got[1][0] == "list"
    return ("a final beside the calls", returned and any(_is_final(item) for item in got[1][1]))


def _is_final(shaped: Any) -> bool:
    return shaped[0] == "dict" and (("str", "kind"), ("str", "final")) in shaped[1]


ADAPTER = Part(
    ASSIGNMENT,
    "chat_message_to_envelopes",
    lambda: chat_message_to_envelopes,
    observe_adapter,
    "the returned list of envelopes (values and exact types), or an EnvelopeError and whether its message names "
    "`arguments`; any other exception by type; the message unchanged.",
    {
        "each": Family(
            "return one call envelope per tool call, in the order of `tool_calls`; from the tool call's `id`, "
            "its `function.name` and its `function.arguments` string decoded with `json.loads`",
            "test_chat_message_to_envelopes_calls",
            messages(calls=True),
        ),
        "final": Family(
            'return `[{"kind": "final", "text": message["content"]}]` when `tool_calls` is absent, `None` or `[]`, '
            "whatever the content; return only the calls when the message has both `content` and tool calls",
            "test_chat_message_to_envelopes_final",
            messages(),
            observe=observe_final,
        ),
        "bad_json": Family(
            "raise an `EnvelopeError` whose message names `arguments` when an arguments string is "
            "not valid JSON",
            "test_chat_message_to_envelopes_bad_json",
            with_a_bad_call(),
        ),
    },
)

PARTS = {part.name: part for part in (PARSE, ADAPTER)}
