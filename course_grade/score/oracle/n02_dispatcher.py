"""Notebook 02's parts: `dispatch` and `dispatch_with` against `course_lib.stock`.

The requests are JSON text written by hand (`text` below), so that they can hold what `json.dumps` never writes:
a key repeated in one object (spelled with an escape, too), `NaN`, `Infinity`, `1e999`, text after the value, a
truncated end, deep nesting, and padding to just under, at and just over `MAX_REQUEST_BYTES`. An example carries,
beside the request, whether it is over the limit (`oversized`): the only part of a refusal's message the contract
fixes is `too large` in a size refusal. Every call runs with 1,000 frames of recursion to spare above the caller,
as in a notebook's kernel, so that 1,000 nested brackets reach the parser's recursion limit on every machine.

Part B's tables are described as data (`Tool`): each is built fresh, with recording handlers, at each observation,
so the observation can say what each handler received, whether the answer returned the very object the handler
returned, whether a handler's exception came through as that very exception, and whether the table was left as
it was. Nesting between 65 levels and what `json` can parse is left out of Part B: its prose leaves it open.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, NamedTuple

from hypothesis import strategies as st

from course_grade.score.oracle import contract
from course_grade.score.oracle.contract import Family, Part, shape

ASSIGNMENT = "02_dispatcher"
LIMIT = 2048
"""MAX_REQUEST_BYTES (course_lib.inventory), written out so this module imports nothing of the key."""
STOCK = {"PEN": 12, "BOOK": 3}

JSON_WHITESPACE = [" ", "\t", "\n", "\r"]
OTHER_WHITESPACE = [
    "\u00a0",
    "\x0c",
    "\x0b",
    "\u2028",
    "\x1c",
    "\x85",
    "\u3000",
    "\u2003",
    "\ufeff",
    "\u200b",
]
"""Characters `str.strip()` removes (or that look blank) but JSON does not allow around a value."""


class Lit(str):
    """Text written into the request as it is (`NaN`, `1e999`, a number's own spelling, a broken fragment)."""


class Obj(NamedTuple):
    """A JSON object as the text writes it: its pairs in order, a key possibly repeated."""

    pairs: tuple[tuple[str, Any], ...]


def text(value: Any, escape: int = 0, ascii_only: bool = False) -> str:
    """`value` as JSON text; with `escape`, the first letter of each key spelled `\\u00XX` (every `escape`-th
    key from the first), which the parser decodes back."""
    if isinstance(value, Lit):
        return str(value)
    if isinstance(value, Obj):
        parts = []
        for index, (key, item) in enumerate(value.pairs):
            spelled = json.dumps(key, ensure_ascii=ascii_only)
            if escape and index % escape == 0 and key[:1].isascii() and key[:1].isalpha():
                spelled = f'"\\u{ord(key[0]):04x}' + spelled[2:]
            parts.append(f"{spelled}: {text(item, escape, ascii_only)}")
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(text(item, escape, ascii_only) for item in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def size(raw: Any) -> int:
    """The UTF-8 size of `raw` (a lone surrogate counted as UTF-8 would write it)."""
    return len(raw.encode("utf-8", "surrogatepass"))


def over(raw: Any) -> bool:
    """Whether the contract says `raw` is refused as too large (a str, encodable, over the limit)."""
    if type(raw) is not str:
        return False
    try:
        return len(raw.encode("utf-8")) > LIMIT
    except UnicodeEncodeError:
        return False


def fill(draw: st.DrawFn, raw: str, target: int, where: str | None = None) -> str:
    """`raw` padded with JSON white space (before, after or both) to `target` UTF-8 bytes, if it is shorter."""
    missing = target - size(raw)
    if missing <= 0:
        return raw
    pad = draw(st.sampled_from(JSON_WHITESPACE))
    where = where or draw(st.sampled_from(["before", "after", "both"]))
    if where == "before":
        return pad * missing + raw
    if where == "after":
        return raw + pad * missing
    return pad * (missing // 2) + raw + pad * (missing - missing // 2)


# -- the pieces of a request ----------------------------------------------------------------------------------

GOOD_SKUS = ["PEN", "BOOK"]
NEAR_SKUS = ["pen", "Pen", "book", " PEN", "PEN ", "PEN\n", "\tBOOK", "PENCIL", "BOOKS", "PE", "", "ＰＥＮ",
             "P\u0415N", "PEN\u200b", "\u200bPEN", "PEN\x00", "BOOK\u00a0", "PEN\u2003", "\ud800", "PEN€"]  # fmt: skip
NOT_STR_SKUS: list[Any] = [True, False, None, 12, 0, 3, 12.0, -1, 1.5, ["PEN"], [], Obj((("PEN", 1),)),
                           Obj(()), Lit("1e2"), 10**30, ["PEN", "BOOK"], Obj((("sku", "PEN"),))]  # fmt: skip
NEAR_NAMES = ["Stock_lookup", "STOCK_LOOKUP", "stock_Lookup", " stock_lookup", "stock_lookup ", "stock_lookup\n",
              "\tstock_lookup", "stock-lookup", "stocklookup", "stock lookup", "stock_lookup\u200b",
              "\ufeffstock_lookup", "ｓｔｏｃｋ_ｌｏｏｋｕｐ", "st\u043eck_l\u043e\u043ekup", "stock_look\u0075p\u0301",
              "stock_lookup\x00", "stock_lookup\u00a0", "stock_lookup\u2003", "", "stock_lookups", "stock_looku",
              "ſtock_lookup", "stock_lookup\r\n"]  # fmt: skip
NOT_STR_NAMES: list[Any] = [None, 1, 0, True, False, 1.5, ["stock_lookup"], [], Obj((("stock_lookup", 1),)),
                            Obj(())]  # fmt: skip
REACHABLE_NAMES = ["__import__", "eval", "exec", "print", "getattr", "globals", "dispatch", "parse_request", "show",
                   "ask_model", "to_request", "unique_keys", "parse_or_refuse", "load_fixture", "json", "STOCK",
                   "STOCK_TOOLS", "DispatchError", "ToolRule", "MappingProxyType", "NamedTuple", "stock.dispatch",
                   "builtins.exec", "__builtins__", "sorted", "dict", "list", "type", "id", "len", "open", "vars",
                   "assert_own_work", "StandIn", "server", "keys", "get", "items", "__class__", "__getitem__",
                   "pen_request", "max_euros", "refused", "wipe_inventory", "price_lookup", "stock_lookup",
                   "course_lib.inventory.stock_lookup", "inventory.stock_lookup"]  # fmt: skip
"""Names a dynamic lookup would find (the notebook's globals and builtins, course_lib.inventory's names, a
mapping's methods) beside the one name in the table."""


@st.composite
def layouts(draw: st.DrawFn, pairs: list[tuple[str, Any]]) -> str:
    """An object of these pairs as text: in a drawn layout (compact, spaced, indented, keys spelled with escapes)."""
    escape = draw(st.sampled_from([0, 0, 0, 1, 2]))
    ascii_only = draw(st.booleans())
    body = text(Obj(tuple(pairs)), escape, ascii_only)
    style = draw(st.sampled_from(["plain", "plain", "compact", "wide", "around"]))
    if style == "compact":
        body = body.replace('", "', '","').replace(": ", ":").replace(", {", ",{") if escape == 0 else body
    elif style == "wide":
        body = body.replace("{", "{\n  ").replace("}", "\n}")
    elif style == "around":
        body = (
            "".join(draw(st.lists(st.sampled_from(JSON_WHITESPACE), max_size=3)))
            + body
            + "".join(draw(st.lists(st.sampled_from(JSON_WHITESPACE), max_size=3)))
        )
    return body


def envelope(name: Any = "stock_lookup", sku: Any = "PEN") -> list[tuple[str, Any]]:
    return [("name", name), ("arguments", Obj((("sku", sku),)))]


@st.composite
def valid_text(draw: st.DrawFn) -> str:
    pairs = envelope(sku=draw(st.sampled_from(GOOD_SKUS)))
    return draw(layouts(draw(st.permutations(pairs))))


class Request(NamedTuple):
    """A request to `dispatch` and whether the contract says it is too large."""

    raw: Any
    oversized: bool = False


def req(raw: Any) -> Request:
    return Request(raw, over(raw))


# -- dispatch's families ----------------------------------------------------------------------------------------


@st.composite
def not_a_str(draw: st.DrawFn) -> Request:
    raw = draw(valid_text())
    if draw(st.integers(0, 4)) == 0:
        return req(raw)
    maker = draw(st.sampled_from(["bytes", "bytearray", "dict", "none", "list", "int", "float", "bool", "tuple",
                                  "big bytes", "utf16", "chars"]))  # fmt: skip
    values: dict[str, Callable[[], Any]] = {
        "bytes": lambda: raw.encode("utf-8"), "bytearray": lambda: bytearray(raw.encode("utf-8")),
        "dict": lambda: json.loads(raw), "none": lambda: None, "list": lambda: [raw], "int": lambda: 42,
        "float": lambda: 1.5, "bool": lambda: True, "tuple": lambda: (raw,),
        "big bytes": lambda: raw.encode("utf-8") + b" " * LIMIT, "utf16": lambda: raw.encode("utf-16"),
        "chars": lambda: list(raw),
    }  # fmt: skip
    return Request(values[maker](), False)


@st.composite
def multibyte(draw: st.DrawFn) -> Request:
    """An unknown SKU padded with 2-, 3- or 4-byte characters to a few bytes either side of the limit: under the
    limit in characters every time, over it in bytes half of the time."""
    char = draw(st.sampled_from(["é", "€", "😀", "\u2003", "ß", "中"]))
    pairs = draw(st.permutations(envelope()))
    base = draw(layouts(pairs))
    width = size(char)
    free = LIMIT - size(base)
    delta = draw(st.integers(-4, 4))
    count = max((free + delta) // width, 0)
    raw = base.replace('"PEN"', '"PEN' + char * count + '"', 1)
    if draw(st.booleans()) and size(raw) < LIMIT:
        raw = fill(draw, raw, LIMIT + draw(st.sampled_from([-1, 0, 0, 1, 1, 2])))
    return req(raw)


@st.composite
def at_the_limit(draw: st.DrawFn) -> Request:
    """A valid request (or an unknown SKU) padded with JSON white space to one or two bytes either side of 2,048."""
    raw = (
        draw(valid_text())
        if draw(st.integers(0, 3))
        else draw(layouts(envelope(sku=draw(st.sampled_from(NEAR_SKUS)))))
    )
    target = LIMIT + draw(st.sampled_from([-2, -1, 0, 0, 0, 1, 1, 2, 3]))
    if draw(st.booleans()):  # padding inside the object, between tokens
        missing = target - size(raw)
        if missing > 0 and raw.startswith("{"):
            raw = "{" + draw(st.sampled_from(JSON_WHITESPACE)) * missing + raw[1:]
            return req(raw)
    return req(fill(draw, raw, target))


NOT_JSON_BODIES = ["{", "[", '{"name":', "NaN", "x", "<xml/>", "'", "\\", "{'name': 'stock_lookup'}", "// c",
                   '{"sku": "PEN", "sku": "BOOK"}', "\u00a0", "€", "]"]  # fmt: skip


@st.composite
def oversized_not_json(draw: st.DrawFn) -> Request:
    """Text over the limit that is not JSON (or is JSON that breaks another rule too), and requests just under."""
    kind = draw(
        st.sampled_from(["repeat", "repeat", "deep", "dup", "nan", "padded", "stripped", "tool", "under"])
    )
    valid = draw(valid_text())
    if kind == "repeat":
        piece = draw(st.sampled_from(NOT_JSON_BODIES))
        raw = piece * (LIMIT // size(piece) + draw(st.integers(1, 3)))
    elif kind == "deep":
        raw = draw(st.sampled_from(["[", "{", '{"a":', "[{"])) * (LIMIT + draw(st.integers(1, 2)))
    elif kind == "dup":
        raw = valid.replace('"PEN"', '"PEN", "sku": "' + "€" * 700 + '"').replace(
            '"BOOK"', '"BOOK", "sku": "' + "€" * 700 + '"'
        )
    elif kind == "nan":
        raw = valid.replace('"PEN"', "NaN").replace('"BOOK"', "Infinity") + " " * LIMIT
    elif kind == "padded":
        raw = fill(draw, valid, LIMIT + draw(st.integers(1, 5)))
    elif kind == "stripped":  # over the limit as given, under it once stripped
        pad = draw(st.sampled_from(JSON_WHITESPACE + OTHER_WHITESPACE[:3]))
        raw = pad * (LIMIT - size(valid) + draw(st.integers(1, 3))) + valid
    elif kind == "tool":
        raw = valid.replace("stock_lookup", "x" * LIMIT)
    else:
        raw = draw(st.sampled_from(NOT_JSON_BODIES)) * draw(st.integers(1, 3))
    return req(raw)


@st.composite
def oversized_json(draw: st.DrawFn) -> Request:
    """Requests over the limit by one byte to many, each otherwise well-formed; and some just within it."""
    kind = draw(st.sampled_from(["valid", "sku", "name", "argument", "multibyte", "within"]))
    valid = draw(valid_text())
    extra = draw(st.integers(1, 3)) if draw(st.booleans()) else draw(st.integers(4, 3000))
    if kind == "valid":
        raw = fill(draw, valid, LIMIT + extra)
    elif kind == "sku":
        raw = draw(layouts(envelope(sku="PEN" + "x" * (LIMIT + extra))))
    elif kind == "name":
        raw = draw(layouts(envelope(name="stock_lookup" + "_" * (LIMIT + extra))))
    elif kind == "argument":
        raw = draw(
            layouts(
                [
                    ("name", "stock_lookup"),
                    ("arguments", Obj((("sku", "PEN"), ("note", "n" * (LIMIT + extra))))),
                ]
            )
        )
    elif kind == "multibyte":
        char = draw(st.sampled_from(["é", "€", "😀"]))
        raw = draw(layouts(envelope(sku="PEN" + char * ((LIMIT + extra) // size(char)))))
    else:
        raw = fill(draw, valid, LIMIT - draw(st.integers(0, 3)))
    return req(raw)


@st.composite
def not_one_value(draw: st.DrawFn) -> Request:
    """A valid request made not JSON by one change; or a valid request with JSON's own white space around it."""
    valid = draw(valid_text()).strip()
    kind = draw(st.sampled_from(["tail", "head", "cut", "comma", "comment", "python", "quote", "around", "around",
                                 "other space", "control", "unquoted", "bom"]))  # fmt: skip
    if kind == "tail":
        raw = valid + draw(st.sampled_from([" x", ",", " {}", "{}", "]", "}", " 1", "\x00", " null", '"', " //",
                                            " /* */", "\n{}", ";", " true"]))  # fmt: skip
    elif kind == "head":
        raw = (
            draw(st.sampled_from(["[", "{}", "x", "\ufeff", "/* c */", "// c\n", ",", "1 ", "\x00"])) + valid
        )
    elif kind == "cut":
        raw = valid[: draw(st.integers(0, len(valid) - 1))]
    elif kind == "comma":
        raw = valid[:-1] + ",}" if draw(st.booleans()) else valid.replace('"}', '",}', 1)
    elif kind == "comment":
        raw = valid.replace(", ", ", /* c */ ", 1) if ", " in valid else valid + "#"
    elif kind == "python":
        raw = (
            valid.replace('"', "'")
            if draw(st.booleans())
            else valid.replace('"PEN"', "'PEN'").replace('"BOOK"', "'BOOK'")
        )
    elif kind == "quote":
        raw = valid.replace('"sku"', "sku", 1) if '"sku"' in valid else valid + "'"
    elif kind == "around":
        raw = (
            "".join(draw(st.lists(st.sampled_from(JSON_WHITESPACE), max_size=6)))
            + valid
            + "".join(draw(st.lists(st.sampled_from(JSON_WHITESPACE), max_size=6)))
        )
    elif kind == "other space":
        pad = draw(st.sampled_from(OTHER_WHITESPACE))
        raw = draw(st.sampled_from([pad + valid, valid + pad, pad + valid + pad, " " + pad + valid]))
    elif kind == "bom":
        raw = (
            "\ufeff" + valid
            if draw(st.booleans())
            else "\ufeff" + draw(st.sampled_from(JSON_WHITESPACE)) + valid
        )
    elif kind == "control":  # a raw control character inside a string
        raw = valid.replace('"PEN"', '"PE\tN"').replace('"BOOK"', '"BO\nOK"')
    else:
        raw = valid.replace('"name"', "name", 1)
    return req(raw)


@st.composite
def repeated_keys(draw: st.DrawFn) -> Request:
    """A key repeated within one object (its last value valid), at the top or inside arguments, maybe spelled
    with an escape; or the same key in different objects (not repeated), or no repeat at all."""
    sku = draw(st.sampled_from(GOOD_SKUS))
    where = draw(st.sampled_from(["name", "arguments", "sku", "sku", "none", "escaped only"]))
    decoy = draw(st.sampled_from(["shell", "stock_lookup", "PENCIL", "BOOK", None, 1]))
    arguments: list[tuple[str, Any]] = [("sku", sku)]
    pairs: list[tuple[str, Any]] = [("name", "stock_lookup")]
    if where == "sku":
        arguments.insert(draw(st.integers(0, 1)), ("sku", decoy))
    if where == "name":
        pairs.insert(0, ("name", decoy))
    pairs.append(("arguments", Obj(tuple(arguments))))
    if where == "arguments":
        pairs.insert(draw(st.integers(0, len(pairs))), ("arguments", Obj((("sku", decoy),))))
    pairs = draw(st.permutations(pairs)) if where == "none" else pairs
    escape = draw(st.sampled_from([0, 1, 2]))
    return req(text(Obj(tuple(pairs)), escape, draw(st.booleans())))


def nest(depth: int, opener: str, inner: str = "1") -> str:
    closers = {"[": "]", "{": "}", '{"a":': "}", '[{"a":': "}]"}
    return opener * depth + inner + closers[opener] * depth


@st.composite
def deep(draw: st.DrawFn) -> Request:
    """Nesting deep enough to reach Python's recursion limit within 2,048 bytes, anywhere in a request; or a
    valid request with shallow nesting beside it (which is refused, for another rule, or accepted)."""
    opener = draw(st.sampled_from(["[", "{", '{"a":', '[{"a":']))
    depth = draw(st.sampled_from([1000, 1001, 1010, 1020])) if opener == "[" else draw(st.integers(150, 400))
    inner = nest(depth, opener, "1" if opener != "[" else "")
    if size(inner) > 1900:
        inner = "[" * 1000 + "]" * 1000 if opener in ("[",) else nest(min(depth, 300), opener)
    where = draw(st.sampled_from(["alone", "unclosed", "sku", "name", "extra", "shallow"]))
    if where == "alone":
        raw = inner
    elif where == "unclosed":
        raw = draw(st.sampled_from(["[", '{"a":', '[{"a":'])) * draw(st.sampled_from([1000, 1500, 2000 // 6]))
    elif where == "shallow":
        raw = text(
            Obj(
                (
                    ("name", "stock_lookup"),
                    ("arguments", Obj((("sku", Lit(nest(draw(st.integers(1, 60)), "["))),))),
                )
            )
        )
    else:
        pairs = {"sku": envelope(sku=Lit(inner)), "name": envelope(name=Lit(inner)),
                 "extra": [*envelope(), ("deep", Lit(inner))]}[where]  # fmt: skip
        raw = text(Obj(tuple(pairs)))
    return req(raw)


ENVELOPE_VARIANTS: list[Any] = [
    ["name", "arguments"], ["arguments", "name"], [], Obj(()), "name", 42, None, True, Lit("NaN"),
    [Obj((("name", "stock_lookup"), ("arguments", Obj((("sku", "PEN"),)))))],
    Obj((("name", "stock_lookup"),)), Obj((("arguments", Obj((("sku", "PEN"),))),)),
    Obj((("name", "stock_lookup"), ("args", Obj((("sku", "PEN"),))))),
    Obj((("Name", "stock_lookup"), ("arguments", Obj((("sku", "PEN"),))))),
    Obj((("name", "stock_lookup"), ("arguments", Obj((("sku", "PEN"),))), ("name ", "x"))),
    Obj((("tool", "stock_lookup"), ("arguments", Obj((("sku", "PEN"),))))),
]  # fmt: skip


@st.composite
def envelopes(draw: st.DrawFn) -> Request:
    """The valid envelope with one key missing or one extra, or replaced by another JSON value; or valid."""
    kind = draw(st.sampled_from(["extra", "extra", "missing", "other", "valid"]))
    pairs = envelope(sku=draw(st.sampled_from(GOOD_SKUS)))
    if kind == "extra":
        key = draw(st.sampled_from(["id", "admin", "extra", "Name", "", "name ", "arguments\n", "type", "sku",
                                    "\u006eame2", "call_id"]))  # fmt: skip
        value = draw(st.sampled_from([None, "c1", True, False, 0, Obj(()), [], "stock_lookup"]))
        pairs.insert(draw(st.integers(0, 2)), (key, value))
    elif kind == "missing":
        pairs.pop(draw(st.integers(0, 1)))
    elif kind == "other":
        return req(text(draw(st.sampled_from(ENVELOPE_VARIANTS))))
    return req(draw(layouts(draw(st.permutations(pairs)))))


@st.composite
def names(draw: st.DrawFn) -> Request:
    """`name` near `stock_lookup` (case, white space, look-alikes, escapes), of another type, or exact."""
    kind = draw(st.sampled_from(["near", "near", "type", "exact", "escaped"]))
    if kind == "exact":
        return req(draw(layouts(draw(st.permutations(envelope(sku=draw(st.sampled_from(GOOD_SKUS))))))))
    if kind == "escaped":  # stock_lookup spelled with escapes: the same name
        spelled = "".join(f"\\u{ord(c):04x}" if draw(st.booleans()) else c for c in "stock_lookup")
        return req(text(Obj((("name", Lit(f'"{spelled}"')), ("arguments", Obj((("sku", "PEN"),)))))))
    name = draw(st.sampled_from(NEAR_NAMES if kind == "near" else NOT_STR_NAMES))
    return req(
        text(Obj(tuple(envelope(name=name, sku=draw(st.sampled_from(GOOD_SKUS))))), 0, draw(st.booleans()))
    )


@st.composite
def reachable(draw: st.DrawFn) -> Request:
    name = draw(st.sampled_from(REACHABLE_NAMES))
    arguments = draw(st.sampled_from([Obj((("sku", "PEN"),)), Obj((("sku", "BOOK"),)), Obj(()),
                                      Obj((("sku", "PEN"), ("x", 1)))]))  # fmt: skip
    return req(text(Obj((("name", name), ("arguments", arguments)))))


ARGUMENT_VARIANTS: list[Any] = [["sku"], ["sku", "PEN"], [["sku", "PEN"]], "sku", '{"sku": "PEN"}', 7, None, True,
                                Obj(()), [], Lit("NaN")]  # fmt: skip


@st.composite
def arguments_of(draw: st.DrawFn) -> Request:
    """`arguments` with `sku` missing, an extra argument, another key, or not an object; or exactly `sku`."""
    kind = draw(st.sampled_from(["extra", "extra", "renamed", "missing", "other", "other", "valid"]))
    sku = draw(st.sampled_from(GOOD_SKUS))
    pairs: list[tuple[str, Any]] = [("sku", sku)]
    if kind == "extra":
        extra = (draw(st.sampled_from(["admin", "quantity", "note", "SKU", "sku ", "", "id"])),
                 draw(st.sampled_from([None, False, True, 1, "PEN", Obj(()), []])))  # fmt: skip
        pairs.insert(draw(st.integers(0, 1)), extra)
    elif kind == "renamed":
        pairs = [
            (
                draw(
                    st.sampled_from(["SKU", "Sku", "sku ", " sku", "skus", "ｓｋｕ", "s\u200bku", "product"])
                ),
                sku,
            )
        ]
    elif kind == "missing":
        pairs = []
    other = draw(st.sampled_from([["sku"], ["sku"], ["sku", "PEN"], *ARGUMENT_VARIANTS]))
    arguments: Any = Obj(tuple(pairs)) if kind != "other" else other
    order = draw(st.booleans())
    outer = [("name", "stock_lookup"), ("arguments", arguments)]
    return req(
        text(Obj(tuple(outer if order else outer[::-1])), draw(st.sampled_from([0, 1])), draw(st.booleans()))
    )


@st.composite
def skus(draw: st.DrawFn) -> Request:
    kind = draw(st.sampled_from(["near", "near", "type", "type", "good"]))
    sku = draw(st.sampled_from({"near": NEAR_SKUS, "type": NOT_STR_SKUS, "good": GOOD_SKUS}[kind]))
    if kind == "good" and draw(st.booleans()):  # spelled with escapes: the same SKU
        sku = Lit('"' + "".join(f"\\u{ord(c):04x}" if draw(st.booleans()) else c for c in sku) + '"')
    return req(draw(layouts(draw(st.permutations(envelope(sku=sku))))))


@st.composite
def valid_requests(draw: st.DrawFn) -> Request:
    return req(draw(valid_text()))


@st.composite
def anything(draw: st.DrawFn) -> Request:
    """A mix of the other families: one rule broken at a time."""
    family = draw(st.sampled_from([not_one_value(), repeated_keys(), envelopes(), names(), reachable(), arguments_of(),
                                   skus(), deep(), valid_requests(), oversized_json()]))  # fmt: skip
    drawn: Request = draw(family)
    return drawn


# -- observing ------------------------------------------------------------------------------------------------


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    return depth + 1


def _call(answer: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """(True, result) or (False, exception): the call runs with 1,000 frames of recursion to spare."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 1000)
    try:
        return True, answer(*args)
    except Exception as error:
        if isinstance(error, contract.ABORTING):
            raise
        return False, error
    finally:
        sys.setrecursionlimit(limit)


def _refusal(error: BaseException, example: Any) -> tuple[Any, ...]:
    """A refusal as the contract fixes it: a ValueError (with `too large` when the request is over the limit),
    a TypeError or ValueError alike for a `raw` that is not a `str`, or any other exception by type."""
    if type(example.raw) is not str and isinstance(error, (TypeError, ValueError)):
        return ("refused", "not a str")
    if isinstance(error, ValueError):
        return ("refused", "too large" in str(error) if example.oversized else None)
    return ("raised", type(error).__name__)


def observe_dispatch(answer: Any, example: Request) -> Any:
    """The returned value (exact types) and whether a second call returns a new dict; or the refusal (see
    `_refusal`)."""
    ok, got = _call(answer, example.raw)
    if not ok:
        return _refusal(got, example)
    again: Any = None
    if type(got) is dict:
        ok_again, second = _call(answer, example.raw)
        again = (ok_again and second is not got, shape(second) if ok_again else None)
    return ("returned", shape(got), again)


def _dispatch_reference() -> Any:
    from course_lib.stock import dispatch  # noqa: PLC0415

    return dispatch


A = "require the parsed value to be a `dict` with exactly the keys `name` and `arguments`"

DISPATCH = Part(
    ASSIGNMENT,
    "dispatch",
    _dispatch_reference,
    observe_dispatch,
    "the returned dict (value and exact types; a second call gives a new, equal dict), or a ValueError (with "
    "'too large' in its message when the request is over MAX_REQUEST_BYTES), a TypeError or ValueError alike for "
    "a raw that is not a str, any other exception by type. Every other part of a message is open.",
    {
        "not_str": Family(
            "raise `TypeError` (or `ValueError`) when `raw` is not a `str` (`bytes`, a `dict`, `None`)",
            "test_dispatch_not_a_string",
            not_a_str(),
            examples=40,
        ),
        "bytes": Family(
            "count the size of `raw` in UTF-8 bytes", "test_dispatch_size_in_bytes", multibyte(), examples=40
        ),
        "inclusive": Family(
            "refuse a request larger than `MAX_REQUEST_BYTES` (2,048 bytes), and accept one of exactly 2,048 "
            "bytes: the limit is inclusive",
            "test_dispatch_size_in_bytes",
            at_the_limit(),
            examples=40,
        ),
        "size_first": Family(
            "check the size before parsing, so that an oversized request is refused as too large even when it "
            "is not JSON at all",
            "test_dispatch_size_first",
            oversized_not_json(),
            examples=40,
        ),
        "too_large": Family(
            "give a size refusal a message containing the words `too large`",
            "test_dispatch_size_first",
            oversized_json(),
            examples=40,
        ),
        "one_value": Family(
            "parse the whole text as one JSON value: malformed or truncated text, a trailing comma, a comment, "
            "text after the value or a Python literal is refused",
            "test_dispatch_strict_json",
            not_one_value(),
            examples=80,
        ),
        "duplicates": Family(
            "refuse a key repeated within one object, at any depth, also when the repeat is spelled with an "
            "escape",
            "test_dispatch_duplicate_keys",
            repeated_keys(),
        ),
        "recursion": Family(
            "never let a `RecursionError` escape: deep nesting (1,000 brackets fit in 2,048 bytes) is refused "
            "with a `ValueError`",
            "test_dispatch_recursion",
            deep(),
            examples=30,
        ),
        "envelope": Family(A, "test_dispatch_envelope", envelopes()),
        "name": Family(
            'require `name` to be exactly `"stock_lookup"`, with no stripping, case folding or other '
            "normalisation",
            "test_dispatch_name",
            names(),
            examples=80,
        ),
        "name_as_data": Family(
            "treat `name` as data only: never look it up in `globals()`, builtins or a module, and never run "
            "anything it names",
            "test_dispatch_name_as_data",
            reachable(),
        ),
        "arguments": Family(
            "require `arguments` to be a `dict` with exactly one key, `sku`",
            "test_dispatch_arguments",
            arguments_of(),
        ),
        "sku": Family(
            "require the SKU to be a `str` that is exactly a key of `STOCK`",
            "test_dispatch_sku",
            skus(),
            examples=80,
        ),
        "returns": Family(
            'return `{"sku": sku, "available": STOCK[sku]}` for a valid request, a new dict at every call',
            "test_dispatch_accepted",
            valid_requests(),
            examples=30,
        ),
        "value_error": Family(
            "refuse with a `ValueError` (a `DispatchError` is one), and let no other exception escape",
            "test_dispatch_seed_rejections",
            anything(),
            examples=80,
        ),
    },
)


# -- dispatch_with ----------------------------------------------------------------------------------------------


class Tool(NamedTuple):
    """One row of a generated table: the offered name, its argument names and what its handler does."""

    name: str
    arguments: tuple[str, ...]
    does: str
    """"stock", "price", "add", "echo" (returns its arguments), "none", "pong", "marker" (a fresh list),
    or "raise <Exception name>"."""


TOOLS = [
    Tool("stock_lookup", ("sku",), "stock"),
    Tool("price_lookup", ("sku",), "price"),
    Tool("add", ("a", "b"), "add"),
    Tool("echo", ("value",), "echo"),
    Tool("ping", (), "pong"),
    Tool("none", ("x",), "none"),
    Tool("marker", ("x", "y", "z"), "marker"),
    Tool("broken", (), "raise LookupError"),
    Tool("refusing", ("sku",), "raise ValueError"),
    Tool("own_refusal", ("x",), "raise DispatchError"),
    Tool("missing", ("key",), "raise KeyError"),
    Tool("typed", ("x",), "raise TypeError"),
    Tool("get", ("x",), "echo"),
    Tool("Price_Lookup", ("SKU",), "marker"),
    Tool("café", ("é",), "echo"),
    Tool("a b", ("",), "echo"),
]
"""Tools taking a SKU, numbers, any value or nothing; handlers that return, echo or raise; odd names."""

PRICES = {"PEN": 150, "BOOK": 1250}
RAISES: dict[str, type[Exception]] = {
    "LookupError": LookupError, "ValueError": ValueError, "KeyError": KeyError, "TypeError": TypeError,
}  # fmt: skip


class WithRequest(NamedTuple):
    """A request to `dispatch_with`, the table it runs against and whether the request is over the limit."""

    raw: Any
    tools: tuple[Tool, ...]
    proxy: bool = False
    """The table as a read-only `MappingProxyType` (as `STOCK_TOOLS` is) instead of a dict."""
    oversized: bool = False


class Run:
    """What the handlers of one observation saw and did."""

    def __init__(self) -> None:
        self.received: list[tuple[str, Any]] = []
        self.returned: list[Any] = []
        self.raised: list[BaseException] = []


def _handler(tool: Tool, run: Run) -> Callable[[Any], Any]:
    def handler(arguments: Any) -> Any:
        run.received.append((tool.name, shape(arguments)))
        try:
            result = _does(tool, arguments)
        except Exception as error:
            run.raised.append(error)
            raise
        run.returned.append(result)
        return result

    return handler


def _does(tool: Tool, arguments: Any) -> Any:
    from course_lib.errors import DispatchError  # noqa: PLC0415

    kind = tool.does
    if kind.startswith("raise "):
        name = kind.removeprefix("raise ")
        raise (DispatchError if name == "DispatchError" else RAISES[name])(f"{tool.name} failed on purpose")
    if kind in ("stock", "price"):
        sku = arguments["sku"]
        table = STOCK if kind == "stock" else PRICES
        if type(sku) is not str or sku not in table:
            raise DispatchError(f"unknown sku: {sku!r}")
        return {"sku": sku, "available" if kind == "stock" else "price_cents": table[sku]}
    if kind == "add":
        return {"sum": arguments["a"] + arguments["b"]}
    if kind == "echo":
        return arguments
    if kind == "pong":
        return "pong"
    if kind == "marker":
        return [tool.name, {"answer": None}]
    return None


def _table(example: WithRequest, run: Run) -> Any:
    from course_lib.inventory import ToolRule  # noqa: PLC0415

    tools = {tool.name: ToolRule(frozenset(tool.arguments), _handler(tool, run)) for tool in example.tools}
    return MappingProxyType(tools) if example.proxy else tools


def observe_with(answer: Any, example: WithRequest) -> Any:
    """The returned value (exact types) and whether it is the very object the handler returned, or the handler's
    exception (the very one), or a refusal (see `_refusal`); the arguments each handler received; whether the
    table came out as it went in (its rows, in order)."""
    run = Run()
    tools = _table(example, run)
    before = list(tools.items())
    ok, got = _call(answer, example.raw, tools)
    if ok:
        same = bool(run.returned) and got is run.returned[-1]
        outcome: Any = ("returned", shape(got), same)
    elif run.raised and type(got) is type(run.raised[-1]) and got.args == run.raised[-1].args:
        outcome = ("handler raised", type(got).__name__)
    else:
        outcome = _refusal(got, example)
    return outcome, run.received, list(tools.items()) == before


def _with_reference() -> Any:
    from course_lib.stock import dispatch_with  # noqa: PLC0415

    return dispatch_with


# -- dispatch_with's families ----------------------------------------------------------------------------------

SCALARS: list[Any] = ["PEN", "BOOK", "pen", "", "NaN", "Infinity", "-Infinity", "1e999", "[[{", "}}]", "é€😀",
                      True, False, None, 0, -1, 1.5, -2.5e-3, 10**30, -(10**40), 1e300, -0.0, Lit("1E2"),
                      Lit("-0"), Lit("1e-400"), Lit("1.7976931348623157e308"), Lit("12345678901234567890123"),
                      Lit("0.1e1"), Lit("2E+3")]  # fmt: skip


@st.composite
def json_values(draw: st.DrawFn, depth: int = 2) -> Any:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(SCALARS) | st.text(max_size=4))
    if draw(st.booleans()):
        return draw(st.lists(json_values(depth - 1), max_size=3))
    keys = draw(
        st.lists(
            st.sampled_from(["a", "b", "x", "sku", "name", "arguments", "é", ""]), max_size=3, unique=True
        )
    )
    return Obj(tuple((key, draw(json_values(depth - 1))) for key in keys))


@st.composite
def tables(draw: st.DrawFn) -> tuple[Tool, ...]:
    rows = draw(st.lists(st.sampled_from(TOOLS), min_size=0, max_size=5, unique_by=lambda tool: tool.name))
    return tuple(rows)


@st.composite
def good_arguments(draw: st.DrawFn, tool: Tool) -> list[tuple[str, Any]]:
    values: dict[str, st.SearchStrategy[Any]] = {
        "sku": st.sampled_from(GOOD_SKUS + ["pen", True, ["PEN"]]),
        "a": st.sampled_from([1, 2.5, -3, 10**20, Lit("1e2"), 0]),
        "b": st.sampled_from([4, -0.5, Lit("2E-3")]),
    }
    pairs = [(key, draw(values.get(key, json_values()))) for key in tool.arguments]
    return list(draw(st.permutations(pairs)))


@st.composite
def with_requests(
    draw: st.DrawFn, fault: str = "none", tools: st.SearchStrategy[tuple[Tool, ...]] | None = None
) -> WithRequest:
    """A request for a tool of the table (or not), with at most the one `fault` named."""
    table = draw(tools if tools is not None else tables())
    pool = list(table) or [TOOLS[0]]
    offered = (
        draw(st.integers(0, 5)) > 0
        if fault in ("none", "numbers", "arguments", "name")
        else draw(st.booleans())
    )
    tool = draw(st.sampled_from(pool)) if offered else draw(st.sampled_from(TOOLS))
    name: Any = tool.name
    arguments: Any = Obj(tuple(draw(good_arguments(tool))))
    if fault == "name":
        near = [name.upper(), name.title(), f" {name}", f"{name}\n", name + "\u200b", name.replace("o", "\u043e"),
                name[:-1], "", name.lower(), f"\t{name}", f"{name} ", f"\u00a0{name}", name.swapcase(),
                name + "\u0301"]  # fmt: skip
        other_types = [None, 1, True, 1.5, [name], [], Obj(((name, 1),)), Obj(()), [name, name]]
        name = draw(st.sampled_from(near if draw(st.integers(0, 2)) else other_types))
    elif fault == "reachable":
        name = draw(st.sampled_from(REACHABLE_NAMES + [tool.name]))
    elif fault == "arguments":
        kind = draw(st.sampled_from(["extra", "missing", "renamed", "other", "other tool's"]))
        pairs = list(arguments.pairs)
        if kind == "extra":
            extra = draw(st.sampled_from(["admin", "sku", "a", "x", "", "SKU", "value"]))
            if extra not in tool.arguments:
                pairs.insert(
                    draw(st.integers(0, len(pairs))), (extra, draw(st.sampled_from([None, 1, "PEN", False])))
                )
            arguments = Obj(tuple(pairs))
        elif kind == "missing" and pairs:
            pairs.pop(draw(st.integers(0, len(pairs) - 1)))
            arguments = Obj(tuple(pairs))
        elif kind == "renamed" and pairs:
            key, value = pairs[0]
            pairs[0] = (draw(st.sampled_from([key.upper() or "X", key + " ", " " + key, key + "s"])), value)
            arguments = Obj(tuple(pairs))
        elif kind == "other":
            arguments = draw(st.sampled_from([list(tool.arguments), [list(pair) for pair in pairs], "x", 7, None,
                                              text(arguments), Obj(())]))  # fmt: skip
        else:
            other = draw(st.sampled_from(TOOLS))
            arguments = Obj(tuple((key, 1) for key in other.arguments))
    elif fault == "numbers":
        bad = Lit(draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e309", "-1E400",
                                        "1.5e308", "123456789e300", "-NaN"])))  # fmt: skip
        holder = draw(st.sampled_from(["alone", "list", "object", "deeper"]))
        placed: Any = {
            "alone": bad,
            "list": [1, bad],
            "object": Obj((("n", bad),)),
            "deeper": [Obj((("d", [bad]),))],
        }[holder]
        pairs = list(arguments.pairs)
        if pairs and draw(st.integers(0, 7)) > 0:
            index = draw(st.integers(0, len(pairs) - 1))
            pairs[index] = (pairs[index][0], placed)
            arguments = Obj(tuple(pairs))
        else:
            name = bad if draw(st.booleans()) else name
    pairs_out: list[tuple[str, Any]] = [("name", name), ("arguments", arguments)]
    if fault == "envelope":
        kind = draw(st.sampled_from(["extra", "missing", "other"]))
        if kind == "extra":
            pairs_out.insert(draw(st.integers(0, 2)), (draw(st.sampled_from(["id", "admin", "Name", "", "tool"])),
                                                       draw(st.sampled_from([None, "c1", 1]))))  # fmt: skip
        elif kind == "missing":
            pairs_out.pop(draw(st.integers(0, 1)))
        else:
            raw = text(
                draw(
                    st.sampled_from(
                        ENVELOPE_VARIANTS
                        + [["name", "arguments"]] * 6
                        + [[name, arguments], Obj((("call", Obj(tuple(pairs_out))),))]
                    )
                )
            )
            return WithRequest(raw, table, draw(st.booleans()), over(raw))
    raw = draw(layouts(draw(st.permutations(pairs_out))))
    return WithRequest(raw, table, draw(st.integers(0, 4)) == 0, over(raw))


@st.composite
def text_faults(draw: st.DrawFn) -> WithRequest:
    """A request to a table, its text broken as Part A's rules refuse (size, bytes, one value, repeated keys,
    recursion, not a str), or not broken: brackets inside strings, the same key in different objects."""
    base = draw(with_requests())
    raw = base.raw
    kind = draw(st.sampled_from(["size", "multibyte", "not json", "one value", "dup", "dup deep", "deep",
                                 "brackets in a string", "same key elsewhere", "control", "not str", "limit",
                                 "brackets in a string", "same key elsewhere"]))  # fmt: skip
    if kind == "size":
        raw = fill(draw, raw, LIMIT + draw(st.integers(1, 3)))
    elif kind == "limit":
        raw = fill(draw, raw, LIMIT - draw(st.integers(0, 2)))
    elif kind == "multibyte":
        char = draw(st.sampled_from(["é", "€", "😀"]))
        raw = text(
            Obj(
                (
                    ("name", "echo"),
                    (
                        "arguments",
                        Obj((("value", char * ((LIMIT - 40) // size(char) + draw(st.integers(-2, 20)))),)),
                    ),
                )
            )
        )
        return WithRequest(raw, (TOOLS[3], *base.tools), base.proxy, over(raw))
    elif kind == "not json":
        raw = draw(st.sampled_from(NOT_JSON_BODIES)) * (LIMIT + 1)
    elif kind == "one value":
        raw = draw(not_one_value()).raw.replace("stock_lookup", draw(st.sampled_from(TOOLS)).name)
    elif kind == "dup":
        raw = text(
            Obj((("name", "shell"), ("name", "echo"), ("arguments", Obj((("value", 1),))))),
            draw(st.sampled_from([0, 1])),
        )
        return WithRequest(raw, (TOOLS[3], *base.tools), base.proxy, over(raw))
    elif kind == "dup deep":
        inner = Obj((("y", 1), ("y", 2))) if draw(st.booleans()) else [Obj((("a", 1), ("b", 2), ("a", 3)))]
        raw = text(
            Obj((("name", "echo"), ("arguments", Obj((("value", inner),))))), draw(st.sampled_from([0, 1]))
        )
        return WithRequest(raw, (TOOLS[3], *base.tools), base.proxy, over(raw))
    elif kind == "deep":
        nested = draw(
            st.sampled_from(
                ["[" * 1000 + "]" * 1000, "[" * 1500, "[" * 1200 + "]" * 5, "[" * 1010 + "1" + "]" * 1010]
            )
        )
        raw = '{"name": "echo", "arguments": {"value": ' + nested + "}}"
        return WithRequest(raw, (TOOLS[3], *base.tools), base.proxy, over(raw))
    elif kind == "brackets in a string":
        raw = text(
            Obj(
                (
                    ("name", "echo"),
                    (
                        "arguments",
                        Obj((("value", draw(st.sampled_from(["[" * 100 + "{" * 100, "]]]}", "[{" * 90]))),)),
                    ),
                )
            )
        )
        return WithRequest(raw, (TOOLS[3], *base.tools), base.proxy, over(raw))
    elif kind == "same key elsewhere":
        value = [
            Obj((("a", 1), ("b", 2))),
            Obj((("a", 3), ("b", 4))),
            Obj((("value", Obj((("value", 5),))),)),
        ]
        raw = text(Obj((("name", "echo"), ("arguments", Obj((("value", value),))))))
        return WithRequest(raw, (TOOLS[3], *base.tools), base.proxy, over(raw))
    elif kind == "control":
        raw = text(Obj((("name", "echo"), ("arguments", Obj((("value", "x"),)))))).replace('"x"', '"t\tab"')
        return WithRequest(raw, (TOOLS[3], *base.tools), base.proxy, over(raw))
    else:
        raw = draw(st.sampled_from([raw.encode("utf-8"), None, {"name": "echo"}, 7]))
    return WithRequest(raw, base.tools, base.proxy, over(raw))


@st.composite
def with_anything(draw: st.DrawFn) -> WithRequest:
    fault = draw(st.sampled_from(["none", "name", "reachable", "arguments", "numbers", "envelope"]))
    if draw(st.integers(0, 5)) == 0:
        return draw(text_faults())
    return draw(with_requests(fault))


def raising_tables() -> st.SearchStrategy[tuple[Tool, ...]]:
    raising = [
        tool for tool in TOOLS if tool.does.startswith("raise ") or tool.does in ("stock", "price", "add")
    ]
    return st.lists(st.sampled_from(raising), min_size=1, max_size=4, unique_by=lambda tool: tool.name).map(
        tuple
    )


@st.composite
def through(draw: st.DrawFn) -> WithRequest:
    return draw(with_requests(tools=raising_tables()))


def returning_tables() -> st.SearchStrategy[tuple[Tool, ...]]:
    returning = [tool for tool in TOOLS if not tool.does.startswith("raise ")]
    return st.lists(st.sampled_from(returning), min_size=1, max_size=4, unique_by=lambda tool: tool.name).map(
        tuple
    )


def number_tables() -> st.SearchStrategy[tuple[Tool, ...]]:
    taking = [tool for tool in TOOLS if tool.arguments]
    return st.lists(st.sampled_from(taking), min_size=1, max_size=4, unique_by=lambda tool: tool.name).map(
        tuple
    )


DISPATCH_WITH = Part(
    ASSIGNMENT,
    "dispatch_with",
    _with_reference,
    observe_with,
    "the returned value (exact types) and whether it is the very object the handler returned; a handler's "
    "exception by type and whether it came through unchanged; a refusal as in dispatch (ValueError, 'too large' "
    "when over the limit; TypeError or ValueError for a raw that is not a str); the arguments each handler "
    "received; the table left as it was. Messages are open otherwise; nesting from 65 levels to what json "
    "parses is not generated.",
    {
        "text": Family(
            "check the request text as your `dispatch` does",
            "test_dispatch_with_forbidden_still_refused",
            text_faults(),
            examples=80,
        ),
        "numbers": Family(
            "refuse `NaN`, `Infinity`, `-Infinity` and a number with a fraction or an exponent too large for a "
            "`float`",
            "test_dispatch_with_numbers",
            with_requests("numbers", number_tables()),
        ),
        "envelope": Family(
            A, "test_dispatch_with_forbidden_still_refused", with_requests("envelope"), examples=40
        ),
        "name": Family(
            "require `name` to be a `str` that is exactly a key of `tools`",
            "test_dispatch_with_two_tools",
            with_requests("name"),
        ),
        "only_tools": Family(
            "look the name up only in `tools`: never in `globals()`, builtins or a module",
            "test_dispatch_with_two_tools",
            with_requests("reachable"),
        ),
        "arguments": Family(
            "require `arguments` to be a `dict` whose keys are exactly the tool's `rule.arguments`, no more and "
            "no fewer",
            "test_dispatch_with_handler",
            with_requests("arguments"),
        ),
        "returns": Family(
            "return exactly what `rule.handler(arguments)` returns",
            "test_dispatch_with_two_tools",
            with_requests(tools=returning_tables()),
        ),
        "handler_raises": Family(
            "let an exception the handler raises pass through unchanged",
            "test_dispatch_with_handler",
            through(),
            examples=40,
        ),
        "value_error": Family(
            "refuse with a `ValueError` (a `DispatchError` is one), and let no other exception of its own escape",
            "test_dispatch_with_forbidden_still_refused",
            with_anything(),
            examples=60,
        ),
        "tools_unchanged": Family(
            "leave `tools` unchanged", "test_dispatch_with_handler", with_anything(), examples=40
        ),
    },
)

PARTS = {part.name: part for part in (DISPATCH, DISPATCH_WITH)}
