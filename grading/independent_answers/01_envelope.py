"""Independent answers to notebook 01, written from its prose alone (see this package's docstring)."""

from __future__ import annotations

from grading.independent_answers import IndependentAnswer

PLAIN_PARSE = """
import math
import re

CALL_KEYS = {"kind", "id", "name", "arguments"}
FINAL_KEYS = {"kind", "text"}
NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def copy_json(value, depth):
    if depth > 64 and type(value) in (dict, list):
        raise EnvelopeError("arguments: nested more than 64 levels")
    if type(value) is dict:
        result = {}
        for key, item in value.items():
            if type(key) is not str:
                raise EnvelopeError("arguments: every key must be a str")
            result[key] = copy_json(item, depth + 1)
        return result
    if type(value) is list:
        return [copy_json(item, depth + 1) for item in value]
    if value is None or type(value) in (str, int, bool):
        return value
    if type(value) is float:
        if math.isfinite(value):
            return value
        raise EnvelopeError("arguments: numbers must be finite")
    raise EnvelopeError(f"arguments: {type(value).__name__} is not JSON")


def parse_envelope(raw):
    if type(raw) is not dict:
        raise EnvelopeError(f"envelope: expected a dict, got {type(raw).__name__}")
    for key in raw:
        if type(key) is not str:
            raise EnvelopeError("envelope: every key must be a str")
    kind = raw.get("kind")
    if type(kind) is not str or kind not in ("final", "call"):
        raise EnvelopeError("kind: must be 'final' or 'call'")
    expected = FINAL_KEYS if kind == "final" else CALL_KEYS
    missing = sorted(expected - set(raw))
    if missing:
        raise EnvelopeError("missing: " + ", ".join(missing))
    extra = sorted(set(raw) - expected)
    if extra:
        raise EnvelopeError("unexpected: " + ", ".join(extra))
    if kind == "final":
        if type(raw["text"]) is not str:
            raise EnvelopeError("text: must be a str")
        return {"kind": "final", "text": raw["text"]}
    for field in ("id", "name"):
        if type(raw[field]) is not str:
            raise EnvelopeError(f"{field}: must be a str")
    if not raw["id"].strip():
        raise EnvelopeError("id: must not be blank")
    if not NAME_RE.fullmatch(raw["name"]):
        raise EnvelopeError("name: must match [a-zA-Z0-9_-]{1,64}")
    if type(raw["arguments"]) is not dict:
        raise EnvelopeError("arguments: must be a dict")
    return {"kind": "call", "id": raw["id"], "name": raw["name"], "arguments": copy_json(raw["arguments"], 1)}
"""

PLAIN_ADAPTER = """
import json


def chat_message_to_envelopes(message):
    calls = message.get("tool_calls")
    if not calls:
        return [{"kind": "final", "text": message["content"]}]
    envelopes = []
    for call in calls:
        try:
            arguments = json.loads(call["function"]["arguments"])
        except json.JSONDecodeError as error:
            raise EnvelopeError(f"arguments of {call['id']} are not JSON: {error}") from None
        envelopes.append({"kind": "call", "id": call["id"], "name": call["function"]["name"], "arguments": arguments})
    return envelopes
"""

CHECKS_PARSE = '''
import math
import re


def _fail(field, why):
    raise EnvelopeError(f"{field}: {why}")


def _is_exact_str(value):
    return type(value) is str


def _check_keys(raw):
    if any(not _is_exact_str(k) for k in raw):
        _fail("envelope", "keys must be strings")
    kind = raw.get("kind")
    if not _is_exact_str(kind) or kind not in {"final", "call"}:
        _fail("kind", f"{kind!r} is neither 'final' nor 'call'")
    wanted = ["kind", "text"] if kind == "final" else ["kind", "id", "name", "arguments"]
    absent = [k for k in wanted if k not in raw]
    surplus = [k for k in raw if k not in wanted]
    if absent:
        _fail(" and ".join(absent), "required but absent")
    if surplus:
        _fail(surplus[0], "not allowed in a " + kind + " envelope")
    return kind


def _walk(value, level):
    """Check one JSON value of the arguments and return its copy."""
    if level > 64 and type(value) in (dict, list):
        _fail("arguments", "too deeply nested")
    kind = type(value)
    if kind is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                _fail("arguments", "object keys must be strings")
            out[k] = _walk(v, level + 1)
        return out
    if kind is list:
        return [_walk(v, level + 1) for v in value]
    if kind is float and not math.isfinite(value):
        _fail("arguments", "NaN and infinity are not JSON")
    if value is None or kind in (str, int, float, bool):
        return value
    _fail("arguments", f"a {kind.__name__} is not a JSON value")


def parse_envelope(raw):
    if type(raw) is not dict:
        _fail("envelope", "not a dict")
    kind = _check_keys(raw)
    if kind == "final":
        if not _is_exact_str(raw["text"]):
            _fail("text", "must be exactly a str")
        return dict(raw)
    call_id, name, arguments = raw["id"], raw["name"], raw["arguments"]
    if not _is_exact_str(call_id):
        _fail("id", "must be exactly a str")
    if call_id.strip() == "":
        _fail("id", "is blank")
    if not _is_exact_str(name):
        _fail("name", "must be exactly a str")
    if re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name) is None:
        _fail("name", "has characters outside [a-zA-Z0-9_-] or the wrong length")
    if type(arguments) is not dict:
        _fail("arguments", "must be exactly a dict")
    return {"kind": kind, "id": call_id, "name": name, "arguments": _walk(arguments, 1)}
'''

CHECKS_ADAPTER = """
import json


def _call_envelope(tool_call):
    function = tool_call["function"]
    try:
        decoded = json.loads(function["arguments"])
    except ValueError:
        raise EnvelopeError("arguments: not valid JSON") from None
    return {"kind": "call", "id": tool_call["id"], "name": function["name"], "arguments": decoded}


def chat_message_to_envelopes(message):
    if message.get("tool_calls") in (None, []):
        return [{"kind": "final", "text": message["content"]}]
    return [_call_envelope(tool_call) for tool_call in message["tool_calls"]]
"""

TERSE_PARSE = """
import math
import re

SHAPES = {"final": ("kind", "text"), "call": ("kind", "id", "name", "arguments")}


def parse_envelope(raw):
    def bad(field, text):
        return EnvelopeError(f"{field}: {text}")

    def clone(v, depth=1):
        if depth > 64 and type(v) in (dict, list):
            raise bad("arguments", "deeper than 64")
        t = type(v)
        if t is dict:
            if not all(type(k) is str for k in v):
                raise bad("arguments", "non-str key")
            return {k: clone(x, depth + 1) for k, x in v.items()}
        if t is list:
            return [clone(x, depth + 1) for x in v]
        if t is float:
            if not math.isfinite(v):
                raise bad("arguments", "non-finite number")
            return v
        if v is None or t in (str, int, bool):
            return v
        raise bad("arguments", t.__name__ + " not allowed")

    if type(raw) is not dict or not all(type(k) is str for k in raw):
        raise bad("envelope", "must be a dict with str keys")
    kind = raw.get("kind")
    if type(kind) is not str or kind not in SHAPES:
        raise bad("kind", "must be final or call")
    keys = set(SHAPES[kind])
    if keys - raw.keys():
        raise bad(", ".join(sorted(keys - raw.keys())), "missing")
    if raw.keys() - keys:
        raise bad(", ".join(sorted(raw.keys() - keys)), "extra key")
    for field in SHAPES[kind][1:3]:
        if type(raw[field]) is not str:
            raise bad(field, "not a str")
    if kind == "final":
        return {"kind": kind, "text": raw["text"]}
    if not raw["id"].strip():
        raise bad("id", "blank")
    if not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", raw["name"]):
        raise bad("name", "invalid tool name")
    if type(raw["arguments"]) is not dict:
        raise bad("arguments", "not a dict")
    return {"kind": kind, "id": raw["id"], "name": raw["name"], "arguments": clone(raw["arguments"])}
"""

TERSE_ADAPTER = """
import json


def chat_message_to_envelopes(message):
    out = []
    for tc in message.get("tool_calls") or ():
        try:
            args = json.loads(tc["function"]["arguments"])
        except json.JSONDecodeError:
            raise EnvelopeError("arguments: invalid JSON")
        out.append({"kind": "call", "id": tc["id"], "name": tc["function"]["name"], "arguments": args})
    return out or [{"kind": "final", "text": message["content"]}]
"""

ANSWERS = [
    IndependentAnswer("plain", {"parse_envelope": PLAIN_PARSE, "chat_message_to_envelopes": PLAIN_ADAPTER}),
    IndependentAnswer(
        "checks", {"parse_envelope": CHECKS_PARSE, "chat_message_to_envelopes": CHECKS_ADAPTER}
    ),
    IndependentAnswer("terse", {"parse_envelope": TERSE_PARSE, "chat_message_to_envelopes": TERSE_ADAPTER}),
]
