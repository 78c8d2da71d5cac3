"""Notebook 02's differential families (course_grade.score.oracle.n02_dispatcher): each sentence-level misreading
below, a small change to the instructor's solution, is caught by some family of its part; the instructor's
solution and every independent answer agree with the reference on every family.

Not drawn here (open questions of the prose): a `raw` that is an instance of a `str` subclass, and, for Part B,
nesting deeper than 64 levels that `json` can still parse.
"""

# ruff: noqa: E501 - each misreading reads best as one edit on one line

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Any

import pytest

from course_grade.score.oracle import judge as judging
from course_grade.score.oracle.judge import Disagreement, judge
from course_grade.score.oracle.registry import parts
from grading.differential import _cells_before, answer
from grading.independent_answers import independent

ASSIGNMENT = "02_dispatcher"
NAMES = ("dispatch", "dispatch_with")


def solution(name: str) -> str:
    """The instructor's solution cell of `name`."""
    return _cells_before(ASSIGNMENT, name)[1]


def edited(name: str, *edits: tuple[str, str]) -> str:
    """The instructor's solution of `name` with each (old, new) replaced once (old must be there)."""
    source = solution(name)
    for old, new in edits:
        assert old in source, f"{name}: {old!r} is not in the solution"
        source = source.replace(old, new, 1)
    return source


@pytest.fixture(autouse=True)
def no_shrinking(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Catching is what these tests measure: the first input found is reported as it is."""
    monkeypatch.setattr(judging, "_shrunk", lambda family, differs, found: found)
    yield


@pytest.fixture(scope="module")
def notebook() -> Iterator[dict[str, dict[str, Any]]]:
    """Each part's namespace as the notebook gives it (its earlier cells run once), to define answers in."""
    with contextlib.ExitStack() as stack:
        yield {name: stack.enter_context(answer(ASSIGNMENT, name)) for name in NAMES}


def caught_by(notebook: dict[str, dict[str, Any]], name: str, source: str) -> str | None:
    """The first family of `name` that tells `source` from the reference, or None."""
    namespace = dict(notebook[name])
    exec(compile(source, f"<{name}>", "exec"), namespace)
    with contextlib.redirect_stdout(io.StringIO()):
        for key in parts(ASSIGNMENT)[name].families:
            try:
                judge(f"{ASSIGNMENT}.{name}", key, namespace[name])
            except Disagreement:
                return key
    return None


SIZE = "if size > MAX_REQUEST_BYTES:"
LOADS = "return json.loads(raw, object_pairs_hook=unique, parse_constant=no_constant, parse_float=finite)"
ENVELOPE = 'if type(call) is not dict or set(call) != {"name", "arguments"}:'
ARGUMENTS = 'if type(arguments) is not dict or set(arguments) != {"sku"}:'
SKU = "if type(sku) is not str or sku not in STOCK:"
PLAIN_PARSE = (
    "    if type(raw) is not str:\n        raise TypeError('not a str')\n"
    "    if len(raw.encode('utf-8')) > MAX_REQUEST_BYTES:\n        raise DispatchError('request too large')\n"
    "    try:\n        call = json.loads(raw{hooks})\n    except RecursionError:\n        raise DispatchError('nested') from None\n"
)


def with_parse(hooks: str, before: str = "") -> tuple[str, str]:
    """Part B's first line replaced by a parser of its own, with these keyword arguments to json.loads."""
    return ("    call = parse_request(raw)", before + PLAIN_PARSE.format(hooks=hooks))


UNIQUE = (
    "    def unique(pairs):\n        keys = [key for key, _ in pairs]\n"
    "        if len(keys) != len(set(keys)):\n            raise DispatchError('duplicate')\n        return dict(pairs)\n\n"
    "    def no_constant(text):\n        raise DispatchError(text)\n\n"
)

MISREADINGS: list[tuple[str, str, tuple[tuple[str, str], ...]]] = [
    # Part A: dispatch
    (
        "dispatch",
        "bytes are text too: only other types are refused",
        (("if type(raw) is not str:", "if not isinstance(raw, (str, bytes, bytearray)):"),),
    ),
    (
        "dispatch",
        "a value that is not a str is taken as already parsed",
        (('raise TypeError(f"request must be a str, got {type(raw).__name__}")', "return raw"),),
    ),
    ("dispatch", "the size in characters", (('size = len(raw.encode("utf-8"))', "size = len(raw)"),)),
    (
        "dispatch",
        "the size in UTF-16 code units",
        (('size = len(raw.encode("utf-8"))', 'size = len(raw.encode("utf-16-le")) // 2'),),
    ),
    ("dispatch", "an exclusive limit", ((SIZE, "if size >= MAX_REQUEST_BYTES:"),)),
    ("dispatch", "one byte of slack", ((SIZE, "if size > MAX_REQUEST_BYTES + 1:"),)),
    (
        "dispatch",
        "the size of the text once stripped",
        (('size = len(raw.encode("utf-8"))', 'size = len(raw.strip().encode("utf-8"))'),),
    ),
    (
        "dispatch",
        "the size checked after parsing",
        (
            (
                SIZE
                + '\n        raise DispatchError(f"request too large: {size} bytes > {MAX_REQUEST_BYTES}")\n',
                "",
            ),
            (
                "    try:\n        " + LOADS,
                "    try:\n        value = json.loads(raw, object_pairs_hook=unique, parse_constant=no_constant, parse_float=finite)\n"
                "        if size > MAX_REQUEST_BYTES:\n            raise DispatchError('request too large')\n        return value",
            ),
        ),
    ),
    (
        "dispatch",
        "a size refusal in other words",
        (('f"request too large: {size} bytes > {MAX_REQUEST_BYTES}"', '"request over the byte limit"'),),
    ),
    (
        "dispatch",
        "a size refusal in capitals",
        (('f"request too large: {size}', 'f"request TOO LARGE: {size}'),),
    ),
    (
        "dispatch",
        "the first JSON value, the rest ignored",
        (
            (
                LOADS,
                "return json.JSONDecoder(object_pairs_hook=unique, parse_constant=no_constant, parse_float=finite).raw_decode(raw.lstrip(' \\t\\n\\r'))[0]",
            ),
        ),
    ),
    (
        "dispatch",
        "white space of every kind stripped before parsing",
        ((LOADS, LOADS.replace("json.loads(raw,", "json.loads(raw.strip(),")),),
    ),
    (
        "dispatch",
        "a byte order mark dropped",
        ((LOADS, LOADS.replace("json.loads(raw,", "json.loads(raw.removeprefix('\\ufeff'),")),),
    ),
    (
        "dispatch",
        "repeated keys refused only for the envelope's own keys",
        (
            (
                "            if key in result:\n",
                "            if key in result and key in ('name', 'arguments'):\n",
            ),
        ),
    ),
    (
        "dispatch",
        "repeated keys refused only inside arguments",
        (("            if key in result:\n", "            if key in result and key == 'sku':\n"),),
    ),
    (
        "dispatch",
        "only the parser's own error is caught: RecursionError escapes",
        (
            (
                '    except RecursionError:\n        raise DispatchError("request nested too deeply") from None\n',
                "    except json.JSONDecodeError:\n        raise\n",
            ),
        ),
    ),
    (
        "dispatch",
        "deep nesting refused as a TypeError",
        (
            (
                'raise DispatchError("request nested too deeply")',
                'raise TypeError("request nested too deeply")',
            ),
        ),
    ),
    (
        "dispatch",
        "the envelope's keys compared before its type",
        ((ENVELOPE, 'if set(call) != {"name", "arguments"}:'),),
    ),
    (
        "dispatch",
        "extra envelope keys ignored",
        ((ENVELOPE, 'if type(call) is not dict or not set(call) >= {"name", "arguments"}:'),),
    ),
    (
        "dispatch",
        "an envelope of two keys, whichever",
        ((ENVELOPE, "if type(call) is not dict or len(call) != 2:"),),
    ),
    (
        "dispatch",
        "the name stripped",
        (('if name != "stock_lookup":', 'if type(name) is not str or name.strip() != "stock_lookup":'),),
    ),
    (
        "dispatch",
        "the name case-folded",
        (('if name != "stock_lookup":', 'if type(name) is not str or name.casefold() != "stock_lookup":'),),
    ),
    (
        "dispatch",
        "the name normalised with NFKC",
        (
            (
                'if name != "stock_lookup":',
                'import unicodedata\n    if type(name) is not str or unicodedata.normalize("NFKC", name) != "stock_lookup":',
            ),
        ),
    ),
    (
        "dispatch",
        "the name looked up among the notebook's globals",
        (
            (
                'if name != "stock_lookup":\n        raise DispatchError(f"unknown tool: {name!r}")',
                'if name != "stock_lookup":\n        found = globals().get(name) if type(name) is str else None\n'
                '        if callable(found):\n            return found(arguments)\n        raise DispatchError(f"unknown tool: {name!r}")',
            ),
        ),
    ),
    (
        "dispatch",
        "the name looked up in course_lib.inventory",
        (
            (
                'if name != "stock_lookup":\n        raise DispatchError(f"unknown tool: {name!r}")',
                'if name != "stock_lookup":\n        import course_lib.inventory\n        found = getattr(course_lib.inventory, name, None) if type(name) is str else None\n'
                '        if found is None:\n            raise DispatchError(f"unknown tool: {name!r}")\n        return found(arguments)',
            ),
        ),
    ),
    (
        "dispatch",
        "the arguments' keys compared before their type",
        ((ARGUMENTS, 'if set(arguments) != {"sku"}:'),),
    ),
    (
        "dispatch",
        "extra arguments ignored",
        ((ARGUMENTS, 'if type(arguments) is not dict or "sku" not in arguments:'),),
    ),
    (
        "dispatch",
        "arguments whose value is null ignored",
        (
            (
                ARGUMENTS,
                "if type(arguments) is dict:\n        arguments = {k: v for k, v in arguments.items() if v is not None}\n    "
                + ARGUMENTS,
            ),
        ),
    ),
    (
        "dispatch",
        "the SKU upper-cased",
        (
            (
                'sku = arguments["sku"]',
                'sku = arguments["sku"].upper() if type(arguments["sku"]) is str else arguments["sku"]',
            ),
        ),
    ),
    (
        "dispatch",
        "the SKU stripped",
        (
            (
                'sku = arguments["sku"]',
                'sku = arguments["sku"].strip() if type(arguments["sku"]) is str else arguments["sku"]',
            ),
        ),
    ),
    ("dispatch", "the SKU's type not checked", ((SKU, "if sku not in STOCK:"),)),
    (
        "dispatch",
        "a SKU of the wrong type is a TypeError",
        ((SKU, 'if type(sku) is not str:\n        raise TypeError("sku")\n    if sku not in STOCK:'),),
    ),
    (
        "dispatch",
        "a cached answer per SKU",
        (
            (
                'return {"sku": sku, "available": STOCK[sku]}',
                'return CACHE.setdefault(sku, {"sku": sku, "available": STOCK[sku]})',
            ),
            ("def parse_request(raw):", "CACHE = {}\n\n\ndef parse_request(raw):"),
        ),
    ),
    ("dispatch", "the quantity as text", (('"available": STOCK[sku]}', '"available": str(STOCK[sku])}'),)),
    (
        "dispatch",
        "the arguments returned with the quantity added",
        (
            (
                'return {"sku": sku, "available": STOCK[sku]}',
                'return {**arguments, "available": STOCK[sku], "name": name}',
            ),
        ),
    ),
    # Part B: dispatch_with
    ("dispatch_with", "its own parser, plain json.loads", (with_parse(""),)),
    (
        "dispatch_with",
        "its own parser, without the number hooks",
        (with_parse(", object_pairs_hook=unique", UNIQUE),),
    ),
    (
        "dispatch_with",
        "NaN refused, 1e999 let through",
        (with_parse(", object_pairs_hook=unique, parse_constant=no_constant", UNIQUE),),
    ),
    (
        "dispatch_with",
        "its own parser, control characters allowed",
        (with_parse(", object_pairs_hook=unique, parse_constant=no_constant, strict=False", UNIQUE),),
    ),
    (
        "dispatch_with",
        "NaN and Infinity found by searching the text",
        (
            (
                "call = parse_request(raw)",
                "if type(raw) is str and ('NaN' in raw or 'Infinity' in raw):\n        raise DispatchError('not JSON')\n    call = parse_request(raw)",
            ),
        ),
    ),
    (
        "dispatch_with",
        "extra envelope keys ignored",
        ((ENVELOPE, 'if type(call) is not dict or not set(call) >= {"name", "arguments"}:'),),
    ),
    (
        "dispatch_with",
        "the envelope's keys compared before its type",
        ((ENVELOPE, 'if set(call) != {"name", "arguments"}:'),),
    ),
    (
        "dispatch_with",
        "the name's type not checked",
        (("if type(name) is not str or name not in tools:", "if name not in tools:"),),
    ),
    (
        "dispatch_with",
        "names matched case-insensitively",
        (
            (
                "if type(name) is not str or name not in tools:",
                "if type(name) is str:\n        name = next((key for key in tools if key.lower() == name.lower()), name)\n    if type(name) is not str or name not in tools:",
            ),
        ),
    ),
    (
        "dispatch_with",
        "the name stripped",
        (
            (
                'name, arguments = call["name"], call["arguments"]',
                'name, arguments = call["name"], call["arguments"]\n    name = name.strip() if type(name) is str else name',
            ),
        ),
    ),
    (
        "dispatch_with",
        "a name missing from the table looked up among builtins",
        (
            (
                'raise DispatchError(f"unknown tool: {name!r}")',
                'import builtins\n        if type(name) is str and hasattr(builtins, name):\n            return getattr(builtins, name)(arguments)\n        raise DispatchError(f"unknown tool: {name!r}")',
            ),
        ),
    ),
    (
        "dispatch_with",
        "extra arguments ignored",
        (("set(arguments) != rule.arguments", "not set(arguments) >= rule.arguments"),),
    ),
    (
        "dispatch_with",
        "missing arguments allowed",
        (("set(arguments) != rule.arguments", "not set(arguments) <= rule.arguments"),),
    ),
    (
        "dispatch_with",
        "the stock tool's arguments for every tool",
        (("set(arguments) != rule.arguments", 'set(arguments) != {"sku"}'),),
    ),
    (
        "dispatch_with",
        "the arguments' type not checked",
        (
            (
                "type(arguments) is not dict or set(arguments) != rule.arguments",
                "set(arguments) != rule.arguments",
            ),
        ),
    ),
    (
        "dispatch_with",
        "the handler's answer wrapped",
        (("return rule.handler(arguments)", 'return {"result": rule.handler(arguments)}'),),
    ),
    (
        "dispatch_with",
        "a copy of the handler's answer",
        (
            (
                "return rule.handler(arguments)",
                "result = rule.handler(arguments)\n    return dict(result) if type(result) is dict else result",
            ),
        ),
    ),
    (
        "dispatch_with",
        "no answer becomes an empty object",
        (("return rule.handler(arguments)", "return rule.handler(arguments) or {}"),),
    ),
    (
        "dispatch_with",
        "the handler receives a copy of its arguments with a caller's note",
        (("return rule.handler(arguments)", "return rule.handler({**arguments, '_tool': name})"),),
    ),
    (
        "dispatch_with",
        "a handler's exception turned into a refusal",
        (
            (
                "return rule.handler(arguments)",
                "try:\n        return rule.handler(arguments)\n    except Exception as error:\n        raise DispatchError(str(error)) from None",
            ),
        ),
    ),
    (
        "dispatch_with",
        "a handler's ValueError rewritten",
        (
            (
                "return rule.handler(arguments)",
                "try:\n        return rule.handler(arguments)\n    except ValueError as error:\n        raise DispatchError(f'{name}: {error}') from None",
            ),
        ),
    ),
    (
        "dispatch_with",
        "a handler's LookupError swallowed",
        (
            (
                "return rule.handler(arguments)",
                "try:\n        return rule.handler(arguments)\n    except LookupError:\n        return None",
            ),
        ),
    ),
    (
        "dispatch_with",
        "the rule looked up with tools[name] first",
        (
            (
                "if type(name) is not str or name not in tools:",
                "rule = tools[name]\n    if type(name) is not str:",
            ),
        ),
    ),
    (
        "dispatch_with",
        "a name not offered is added to the table",
        (
            (
                "rule = tools[name]",
                "rule = tools.setdefault(name, None) if type(tools) is dict else tools[name]",
            ),
            (
                "if type(name) is not str or name not in tools:",
                "if type(name) is str and type(tools) is dict:\n        tools.setdefault(name, None)\n    if type(name) is not str or tools.get(name) is None:",
            ),
        ),
    ),
    (
        "dispatch_with",
        "a tool whose handler raised is taken off the table",
        (
            (
                "return rule.handler(arguments)",
                "try:\n        return rule.handler(arguments)\n    except Exception:\n        if type(tools) is dict:\n            del tools[name]\n        raise",
            ),
        ),
    ),
]


@pytest.mark.parametrize(("name", "why", "edits"), MISREADINGS, ids=[why for _, why, _ in MISREADINGS])
def test_each_misreading_is_caught(
    notebook: dict[str, dict[str, Any]], name: str, why: str, edits: tuple[tuple[str, str], ...]
) -> None:
    assert caught_by(notebook, name, edited(name, *edits)) is not None, f"{name}: no family catches {why!r}"


def honest_answers() -> list[tuple[str, str, str]]:
    """(name, who, source) for the instructor's solution and every independent answer (Part B's with the same
    author's Part A before it, whose helpers it may use)."""
    found = [(name, "instructor", solution(name)) for name in NAMES]
    for one in independent(ASSIGNMENT):
        for name in NAMES:
            source = (
                one.cells[name] if name == "dispatch" else one.cells["dispatch"] + "\n\n" + one.cells[name]
            )
            found.append((name, one.author, source))
    return found


@pytest.mark.parametrize(
    ("name", "who", "source"), honest_answers(), ids=[f"{n}-{w}" for n, w, _ in honest_answers()]
)
def test_the_instructor_and_every_independent_answer_agree_with_the_reference(
    notebook: dict[str, dict[str, Any]], name: str, who: str, source: str
) -> None:
    assert caught_by(notebook, name, source) is None, f"{who}'s {name} differs from the reference"
