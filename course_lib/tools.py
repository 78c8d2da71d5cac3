"""Notebook 05's key: the argument checker, and the dispatcher that turns a tool call into a string.

A request offers some of a `Toolbox`'s tools; the model answers with a name and a string of arguments;
`run_tool_call` checks that call in a deliberate order (offered in this request? parses? matches the schema?
confirmed by a human? then run) and always returns one JSON string, `{"result": ...}` or `{"error": ...}`,
that goes back to the model as data. `Toolbox`, `Tool`, `Confirm` and `TOOL_NAME` live in
`course_lib.toolbox` (infrastructure) and are re-exported here, with 04's `tool_specs` (05 builds on 04).
`python -m course_lib.tools --record` writes notebook 05's published record of these functions' answers
(`course_lib.tools_record`).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

from course_lib.errors import ToolError
from course_lib.specs import tool_specs
from course_lib.toolbox import TOOL_NAME, Confirm, Tool, Toolbox

__all__ = [
    "MAX_SCHEMA_DEPTH",
    "Confirm",
    "TOOL_NAME",
    "Tool",
    "ToolError",
    "Toolbox",
    "check_args",
    "run_tool_call",
    "tool_specs",
]

MAX_SCHEMA_DEPTH = 64
"""How deep `check_args` follows a value into its schema; deeper is reported as a problem, never a crash."""


# ---- the argument checker: the subset of JSON Schema that tool parameters use -------------------------

_TYPES: dict[str, Callable[[object], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),  # JSON Schema: 3.0 is an integer
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}

_KEYWORD_KINDS: dict[str, type | tuple[type, ...]] = {
    "type": (str, list),
    "enum": list,
    "required": list,
    "properties": Mapping,
    "minItems": int,
}
"""The JSON type each keyword's value must have; anything else (say an endless iterator) is refused unread."""


def check_args(value: object, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """List how `value` breaks `schema` (type, enum, required, properties, items, minItems); never raise."""
    problems: list[str] = []
    try:
        _check(value, schema, path, 0, problems)
    except Exception as exc:  # a malformed schema or an exotic value: fail closed, never crash the caller
        problems.append(f"{path}: could not be checked against the schema ({type(exc).__name__})")
    return problems


def _check(value: object, schema: object, path: str, depth: int, problems: list[str]) -> None:
    """Append the problems of `value` at `path` to `problems`."""
    if schema is True or schema is False:  # JSON Schema's boolean schemas: anything / nothing
        if schema is False:
            problems.append(f"{path}: no value is allowed here")
        return
    if not isinstance(schema, Mapping):
        problems.append(f"{path}: the schema is not an object")
        return
    if depth > MAX_SCHEMA_DEPTH:
        problems.append(f"{path}: nested deeper than {MAX_SCHEMA_DEPTH} levels")
        return
    if malformed := [
        key for key, kind in _KEYWORD_KINDS.items() if key in schema and not isinstance(schema[key], kind)
    ]:
        problems.append(f"{path}: the schema's {', '.join(malformed)} has the wrong JSON type")
        return
    if "type" in schema:
        wanted = schema["type"]
        names = wanted if isinstance(wanted, list) else [wanted]
        if unknown := [n for n in names if n not in _TYPES]:
            problems.append(f"{path}: the schema names unknown types {unknown}")
            return
        if not any(_TYPES[n](value) for n in names):
            problems.append(f"{path}: expected {wanted}, got {type(value).__name__}")
            return
    if "enum" in schema and not any(_json_equal(value, option, 0) for option in schema["enum"]):
        problems.append(f"{path}: {_clip(repr(value))} is not one of {schema['enum']}")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        problems += [
            f"{path}.{k}: missing required argument" for k in schema.get("required", []) if k not in value
        ]
        for key, item in value.items():
            if key in properties:
                _check(item, properties[key], f"{path}.{key}", depth + 1, problems)
            elif extra is False:
                problems.append(f"{path}.{key}: unexpected argument")
            elif extra is not True:
                _check(item, extra, f"{path}.{key}", depth + 1, problems)
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{path}: needs at least {schema['minItems']} item(s)")
        if "items" in schema:
            for index, item in enumerate(value):
                _check(item, schema["items"], f"{path}[{index}]", depth + 1, problems)


def _json_equal(a: object, b: object, depth: int) -> bool:
    """Equality as JSON Schema sees it: True is not 1, 1 is 1.0, lists and objects compare item by item."""
    if depth > MAX_SCHEMA_DEPTH:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y, depth + 1) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k], depth + 1) for k in a)
    if isinstance(a, list | dict) or isinstance(b, list | dict):
        return False
    return bool(a == b)


# ---- the dispatcher: one tool call in, one JSON string out ---------------------------------------------


def run_tool_call(
    toolbox: Toolbox,
    name: str,
    raw_arguments: str,
    offered: Collection[str],
    confirm: Confirm | None = None,
) -> str:
    """Check one model tool call (offered, parses, schema, confirmed), run it, and return a JSON string."""
    try:
        return _dispatch(toolbox, name, raw_arguments, offered, confirm)
    except Exception as exc:  # a bug in our own wiring (say `offered` is not a collection): still answer
        _log(toolbox, f"dispatch failed: {_describe(exc)}")
        return _reply({"error": "the tool call could not be handled"})


def _dispatch(
    toolbox: Toolbox,
    name: object,
    raw_arguments: object,
    offered: Collection[str],
    confirm: Confirm | None,
) -> str:
    """The five checks of `run_tool_call`, in order; may raise only on a bug in the caller's wiring."""
    if isinstance(offered, str):  # one bare name, not a collection of its substrings
        offered = (offered,)
    # 1. offered in THIS request: a registered tool the request did not offer is as unknown as a made-up one
    if not isinstance(name, str) or name not in offered or name not in toolbox:
        available = sorted(n for n in offered if isinstance(n, str) and n in toolbox)
        return _reply({"error": f"unknown tool {_clip(repr(name))}", "available_tools": available})
    tool = toolbox[name]

    # 2. the arguments parse as a JSON object
    if not isinstance(raw_arguments, str):
        return _reply({"error": f"arguments must be a string of JSON, got {type(raw_arguments).__name__}"})
    if len(raw_arguments) > toolbox.max_argument_chars:
        limit = toolbox.max_argument_chars
        return _reply(
            {"error": f"arguments are too long: {len(raw_arguments)} characters, the limit is {limit}"}
        )
    try:
        args = json.loads(
            raw_arguments,
            object_pairs_hook=_no_repeats,
            parse_constant=_no_constant,
            parse_float=_finite,
            parse_int=_whole,
        )
    except _RepeatedKey as exc:
        return _reply({"error": f"arguments repeat the key {_clip(repr(exc.key))}"})
    except RecursionError:
        return _reply({"error": "arguments are nested too deeply"})
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, a number out of range
        return _reply({"error": f"arguments are not valid JSON: {exc}"})
    if not isinstance(args, dict):
        return _reply({"error": "arguments must be a JSON object"})

    # 3. the arguments match the schema
    if problems := check_args(args, tool.parameters):
        return _reply({"error": "invalid arguments", "problems": problems})

    # 4. a destructive tool runs only if a human said exactly yes
    if tool.destructive and not _confirmed(toolbox, confirm, name, args):
        return _reply({"error": "a human did not confirm this action; it was NOT performed"})

    # 5. run: an expected failure is reported as is, an unexpected one only by its type
    try:
        return _reply({"result": tool.fn(**args)})
    except ToolError as exc:
        return _reply({"error": str(exc)})
    except Exception as exc:  # a bug in OUR code (or a result JSON cannot hold): details stay here
        _log(toolbox, f"{name}: {_describe(exc)}")
        return _reply({"error": f"tool {name!r} failed with {type(exc).__name__}"})


def _confirmed(toolbox: Toolbox, confirm: Confirm | None, name: str, args: dict[str, Any]) -> bool:
    """Ask `confirm` about a copy of the arguments (so it cannot change what runs); only `True` is a yes."""
    if confirm is None:
        return False
    try:
        return confirm(name, copy.deepcopy(args)) is True
    except Exception as exc:
        _log(toolbox, f"{name}: confirm failed: {_describe(exc)}")
        return False


class _RepeatedKey(Exception):
    """Raised while parsing when a JSON object names the same key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object, refusing a key that appears twice (json would silently keep the last)."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _RepeatedKey(key)
        obj[key] = value
    return obj


def _no_constant(constant: str) -> Any:
    """Refuse NaN, Infinity and -Infinity, which Python's json accepts but JSON does not."""
    raise ValueError(f"{constant} is not allowed")


def _finite(text: str) -> float:
    """Parse a JSON number with a fraction or exponent, refusing one too large for a float (1e999)."""
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"the number {_clip(text)} is out of range")
    return number


def _whole(text: str) -> int:
    """Parse a JSON integer, refusing one with more digits than Python will convert."""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"the number {_clip(text, 20)} has too many digits") from None


def _reply(payload: dict[str, Any]) -> str:
    """Encode a result or error as ASCII JSON, refusing NaN and Infinity."""
    return json.dumps(payload, allow_nan=False)


def _log(toolbox: Toolbox, line: str) -> None:
    """Append to the toolbox's server log if it has one; logging must never be what breaks a reply."""
    log = getattr(toolbox, "server_log", None)
    if isinstance(log, list):
        log.append(line)


def _describe(exc: BaseException) -> str:
    """`TypeName: message`, or just the type name if the message itself cannot be built."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return type(exc).__name__


def _clip(text: str, limit: int = 100) -> str:
    """Shorten text that is echoed back, so a huge input does not come back huge."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _main(argv: list[str] | None = None) -> int:
    """`python -m course_lib.tools --record`: write notebook 05's published record of the reference's answers."""
    import argparse

    from course_lib.loops import LOOPS  # 03's key, which 05 builds on: the played scenarios run its loops
    from course_lib.tools_record import FIXTURE, record, write

    parser = argparse.ArgumentParser(prog="python -m course_lib.tools", description=_main.__doc__)
    parser.add_argument("--record", action="store_true", help=f"write the fixture {FIXTURE}.json")
    args = parser.parse_args(argv)
    if not args.record:
        parser.print_help()
        return 2
    path = write(record(check_args, run_tool_call, LOOPS))
    print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
