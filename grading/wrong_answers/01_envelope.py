"""Plausible wrong answers to notebook 01 and the tests that catch them.

Most are a correct answer with one mistake spliced in, so each one fails for exactly the reason in its `why`.
"""

from __future__ import annotations

from grading.wrong_answers import WrongAnswer, splice

PARSE = "parse_envelope"
ADAPTER = "chat_message_to_envelopes"
ALL_PARSE_TESTS = (
    "test_parse_envelope_branches",
    "test_parse_envelope_kind",
    "test_parse_envelope_keys",
    "test_parse_envelope_str_keys",
    "test_parse_envelope_types",
    "test_parse_envelope_arguments",
    "test_parse_envelope_blank_id",
    "test_parse_envelope_name",
    "test_parse_envelope_not_a_dict",
    "test_parse_envelope_copy",
    "test_parse_envelope_json_values",
    "test_parse_envelope_depth",
    "test_parse_envelope_missing",
    "test_parse_envelope_messages",
)
ADAPTER_TESTS = (
    "test_chat_message_to_envelopes_calls",
    "test_chat_message_to_envelopes_calls_win",
    "test_chat_message_to_envelopes_final",
    "test_chat_message_to_envelopes_bad_json",
)

# The sentences of the contracts (bullets of the "Your function must" lists) the wrong answers break.
A_OWN = "importing, wrapping or calling the reference, `course_lib.envelope`, scores nothing"
A_DICT = "refuse a `raw` that is not exactly a `dict`"
A_STR_KEYS = "refuse a `raw` with a key that is not exactly a `str`"
A_KIND = 'require `kind`, present and exactly the string `"final"` or `"call"`'
A_KEYS = "require exactly the keys of that kind"
A_MISSING = "when keys are missing, name every missing one in the message"
A_STR = "require `text`, `id` and `name` to be exactly `str`"
A_ID = "refuse a blank `id`"
A_NAME = "require `name` to match `[a-zA-Z0-9_-]{1,64}` as a whole"
A_ARGUMENTS = "require `arguments` to be exactly a `dict`"
A_JSON = "accept inside `arguments`, at any depth, only"
A_DEPTH = "accept `arguments` nested 64 containers deep"
A_COPY = "return a new dict, equal to `raw` when `raw` is accepted"
A_MESSAGES = "put in every `EnvelopeError` message the name of the offending field"
B_OWN = "importing, wrapping or calling anything from `course_lib.envelope` scores nothing"
B_EACH = "return one call envelope per tool call, in the order of `tool_calls`"
B_BUILD = "build each call envelope as"
B_CALLS_WIN = "return only the calls when the message has both `content` and tool calls"
B_FINAL = 'return `[{"kind": "final", "text": message["content"]}]`'
B_BAD_JSON = "raise an `EnvelopeError` whose message names `arguments`"
B_TRANSLATE = "translate only, checking nothing else"

_PARSE_OK = '''
def parse_envelope(raw):
    """A correct answer, written differently from the notebook's."""
    allowed = {"final": ("kind", "text"), "call": ("kind", "id", "name", "arguments")}

    def copy_json(value, depth):
        if type(value) in (dict, list) and depth > 64:
            raise EnvelopeError("arguments: nested too deeply")
        if type(value) is dict:
            if not all(type(key) is str for key in value):
                raise EnvelopeError("arguments: every key must be a str")
            return {key: copy_json(item, depth + 1) for key, item in value.items()}
        if type(value) is list:
            return [copy_json(item, depth + 1) for item in value]
        if type(value) is float and (value != value or value in (float("inf"), float("-inf"))):
            raise EnvelopeError("arguments: NaN and infinities are not JSON")
        if value is None or type(value) in (str, int, float, bool):
            return value
        raise EnvelopeError(f"arguments: {type(value).__name__} is not JSON")

    if type(raw) is not dict:
        raise EnvelopeError("envelope: not a dict")
    if not all(type(key) is str for key in raw):
        raise EnvelopeError("envelope: a field name is not a str")
    kind = raw.get("kind")
    if type(kind) is not str or kind not in allowed:
        raise EnvelopeError("kind: must be 'final' or 'call'")
    missing = [key for key in allowed[kind] if key not in raw]
    if missing:
        raise EnvelopeError("missing: " + ", ".join(missing))
    extra = [key for key in raw if key not in allowed[kind]]
    if extra:
        raise EnvelopeError("unexpected: " + ", ".join(extra))
    for field in allowed[kind][1:3]:
        if type(raw[field]) is not str:
            raise EnvelopeError(f"{field}: not a str")
    if kind == "final":
        return {"kind": "final", "text": raw["text"]}
    call_id = raw["id"]
    if not call_id.strip():
        raise EnvelopeError("id: blank")
    name = raw["name"]
    if not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name):
        raise EnvelopeError("name: breaks the naming rule")
    if type(raw["arguments"]) is not dict:
        raise EnvelopeError("arguments: not a dict")
    return {"kind": "call", "id": call_id, "name": name, "arguments": copy_json(raw["arguments"], 1)}
'''

_ADAPTER_OK = '''
def chat_message_to_envelopes(message):
    """A correct answer, to splice mistakes into."""
    calls = message.get("tool_calls") or []
    if not calls:
        return [{"kind": "final", "text": message.get("content")}]
    out = []
    for call in calls:
        try:
            arguments = json.loads(call["function"]["arguments"])
        except json.JSONDecodeError:
            raise EnvelopeError("arguments: not valid JSON") from None
        name = call["function"]["name"]
        out.append({"kind": "call", "id": call["id"], "name": name, "arguments": arguments})
    return out
'''

_CALL_RETURN = (
    'return {"kind": "call", "id": call_id, "name": name, "arguments": copy_json(raw["arguments"], 1)}'
)
_NAME_CHECK = 're.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name)'
_EXTRA_CHECK = '    if extra:\n        raise EnvelopeError("unexpected: " + ", ".join(extra))\n'


WRONG_ANSWERS = [
    WrongAnswer(
        PARSE,
        "imports the library's parse_envelope instead of writing one",
        "from course_lib.envelope import parse_envelope\n",
        ALL_PARSE_TESTS,
        breaks=A_OWN,
    ),
    WrongAnswer(
        PARSE,
        "wraps the library's parse_envelope in a function of its own",
        "import course_lib.envelope as lib\n\n\n"
        "def parse_envelope(raw):\n    return lib.parse_envelope(raw)\n",
        ALL_PARSE_TESTS,
        breaks=A_OWN,
    ),
    WrongAnswer(
        PARSE,
        "returns a shallow copy, dict(raw): nested arguments stay shared with the input",
        splice(
            _PARSE_OK,
            ('return {"kind": "final", "text": raw["text"]}', "return dict(raw)"),
            (_CALL_RETURN, 'copy_json(raw["arguments"], 1)\n    return dict(raw)'),
        ),
        ("test_parse_envelope_copy",),
        breaks=A_COPY,
    ),
    WrongAnswer(
        PARSE,
        "copy.copy for a call: the outer dict is new, everything inside it is an alias",
        splice(_PARSE_OK, (_CALL_RETURN, 'copy_json(raw["arguments"], 1)\n    return copy.copy(raw)')),
        ("test_parse_envelope_copy",),
        breaks=A_COPY,
    ),
    WrongAnswer(
        PARSE,
        "isinstance(raw, dict): an OrderedDict envelope is read",
        splice(_PARSE_OK, ("if type(raw) is not dict:", "if not isinstance(raw, dict):")),
        ("test_parse_envelope_not_a_dict",),
        breaks=A_DICT,
    ),
    WrongAnswer(
        PARSE,
        "isinstance(..., str) for text, id and name: a str subclass passes",
        splice(_PARSE_OK, ("if type(raw[field]) is not str:", "if not isinstance(raw[field], str):")),
        ("test_parse_envelope_types",),
        breaks=A_STR,
    ),
    WrongAnswer(
        PARSE,
        "isinstance(arguments, dict), then dict(): an OrderedDict of arguments is read",
        splice(
            _PARSE_OK,
            ('if type(raw["arguments"]) is not dict:', 'if not isinstance(raw["arguments"], dict):'),
            ('copy_json(raw["arguments"], 1)}', 'copy_json(dict(raw["arguments"]), 1)}'),
        ),
        ("test_parse_envelope_arguments",),
        breaks=A_ARGUMENTS,
    ),
    WrongAnswer(
        PARSE,
        "no check that the keys are str: a non-str extra key escapes as TypeError from the join",
        splice(
            _PARSE_OK,
            (
                "    if not all(type(key) is str for key in raw):\n"
                '        raise EnvelopeError("envelope: a field name is not a str")\n',
                "",
            ),
        ),
        ("test_parse_envelope_str_keys",),
        breaks=A_STR_KEYS,
    ),
    WrongAnswer(
        PARSE,
        "strips kind before comparing it: 'final ' is read as 'final'",
        splice(
            _PARSE_OK,
            (
                'kind = raw.get("kind")',
                'kind = raw.get("kind")\n    kind = kind.strip() if type(kind) is str else kind',
            ),
        ),
        ("test_parse_envelope_kind",),
        breaks=A_KIND,
    ),
    WrongAnswer(
        PARSE,
        "converts text, id and name with str() instead of refusing a wrong type",
        splice(
            _PARSE_OK,
            (
                "    for field in allowed[kind][1:3]:\n        if type(raw[field]) is not str:\n"
                '            raise EnvelopeError(f"{field}: not a str")\n',
                "    raw = {key: (str(value) if key in ('text', 'id', 'name') else value)"
                " for key, value in raw.items()}\n",
            ),
        ),
        ("test_parse_envelope_types",),
        breaks=A_STR,
    ),
    WrongAnswer(
        PARSE,
        "strips the name before checking it, and returns the stripped name",
        splice(_PARSE_OK, ('name = raw["name"]', 'name = raw["name"].strip()')),
        ("test_parse_envelope_name",),
        breaks=A_NAME,
    ),
    WrongAnswer(
        PARSE,
        "lower-cases the name, guessing which tool was meant",
        splice(_PARSE_OK, ('name = raw["name"]', 'name = raw["name"].lower()')),
        ("test_parse_envelope_name", "test_parse_envelope_copy"),
        breaks=A_NAME,
    ),
    WrongAnswer(
        PARSE,
        "re.match with ^...$: the $ lets a trailing newline through",
        splice(_PARSE_OK, (_NAME_CHECK, 're.match(r"^[a-zA-Z0-9_-]{1,64}$", name)')),
        ("test_parse_envelope_name",),
        breaks=A_NAME,
    ),
    WrongAnswer(
        PARSE,
        r"[\w-] for the name: \w also matches non-ASCII letters and digits",
        splice(_PARSE_OK, (_NAME_CHECK, 're.fullmatch(r"[\\w-]{1,64}", name)')),
        ("test_parse_envelope_name",),
        breaks=A_NAME,
    ),
    WrongAnswer(
        PARSE,
        "the blank-id check only catches the empty string, not whitespace",
        splice(_PARSE_OK, ("if not call_id.strip():", 'if call_id == "":')),
        ("test_parse_envelope_blank_id",),
        breaks=A_ID,
    ),
    WrongAnswer(
        PARSE,
        "returns the id stripped: ' c1 ' comes back as 'c1'",
        splice(
            _PARSE_OK,
            ('call_id = raw["id"]', 'call_id = raw["id"].strip()'),
            ("if not call_id.strip():", "if not call_id:"),
        ),
        ("test_parse_envelope_blank_id", "test_parse_envelope_copy"),
        breaks=A_ID,
    ),
    WrongAnswer(
        PARSE,
        "ignores extra keys instead of refusing them (they are silently dropped)",
        splice(_PARSE_OK, (_EXTRA_CHECK, "")),
        ("test_parse_envelope_keys",),
        breaks=A_KEYS,
    ),
    WrongAnswer(
        PARSE,
        "copy.deepcopy for the arguments: no check that they are JSON, no depth limit",
        splice(_PARSE_OK, ('copy_json(raw["arguments"], 1)}', 'copy.deepcopy(raw["arguments"])}')),
        ("test_parse_envelope_json_values", "test_parse_envelope_depth"),
        breaks=A_JSON,
    ),
    WrongAnswer(
        PARSE,
        "no finiteness check: NaN and infinities are copied as numbers",
        splice(
            _PARSE_OK,
            (
                '        if type(value) is float and (value != value or value in (float("inf"), float("-inf"))):\n'
                '            raise EnvelopeError("arguments: NaN and infinities are not JSON")\n',
                "",
            ),
        ),
        ("test_parse_envelope_json_values",),
        breaks=A_JSON,
    ),
    WrongAnswer(
        PARSE,
        "counts levels from 0: arguments nested exactly 64 deep are refused",
        splice(_PARSE_OK, ("depth > 64", "depth > 63")),
        ("test_parse_envelope_depth",),
        breaks=A_DEPTH,
    ),
    WrongAnswer(
        PARSE,
        "no depth limit: 65 levels are read, and 100,000 escape as RecursionError",
        splice(
            _PARSE_OK,
            (
                "        if type(value) in (dict, list) and depth > 64:\n"
                '            raise EnvelopeError("arguments: nested too deeply")\n',
                "",
            ),
        ),
        ("test_parse_envelope_depth",),
        breaks=A_DEPTH,
    ),
    WrongAnswer(
        PARSE,
        "every refusal says the same thing, so no message names the offending field",
        splice(_PARSE_OK, ("def parse_envelope(raw):", "def check_envelope(raw):"))
        + "\n\ndef parse_envelope(raw):\n    try:\n        return check_envelope(raw)\n"
        '    except EnvelopeError:\n        raise EnvelopeError("invalid input") from None\n',
        ("test_parse_envelope_messages", "test_parse_envelope_keys"),
        breaks=A_MESSAGES,
    ),
    WrongAnswer(
        PARSE,
        "checks extra keys before missing ones: with both, the missing keys go unnamed",
        splice(
            _PARSE_OK,
            (
                "    missing = [key for key in allowed[kind] if key not in raw]\n"
                '    if missing:\n        raise EnvelopeError("missing: " + ", ".join(missing))\n'
                "    extra = [key for key in raw if key not in allowed[kind]]\n"
                '    if extra:\n        raise EnvelopeError("unexpected: " + ", ".join(extra))\n',
                "    extra = [key for key in raw if key not in allowed[kind]]\n"
                '    if extra:\n        raise EnvelopeError("unexpected: " + ", ".join(extra))\n'
                "    missing = [key for key in allowed[kind] if key not in raw]\n"
                '    if missing:\n        raise EnvelopeError("missing: " + ", ".join(missing))\n',
            ),
        ),
        ("test_parse_envelope_missing", "test_parse_envelope_keys", "test_parse_envelope_messages"),
        breaks=A_MISSING,
    ),
    WrongAnswer(
        PARSE,
        "names only the first missing key",
        splice(
            _PARSE_OK,
            (
                'raise EnvelopeError("missing: " + ", ".join(missing))',
                'raise EnvelopeError("missing: " + missing[0])',
            ),
        ),
        ("test_parse_envelope_missing", "test_parse_envelope_messages"),
        breaks=A_MISSING,
    ),
    WrongAnswer(
        PARSE,
        "refuses every envelope, with a message naming every field: each test of Part A also has one it must"
        " accept, so it scores nothing",
        'def parse_envelope(raw):\n    raise EnvelopeError("envelope, kind, text, id, name, arguments: refused")\n',
        ALL_PARSE_TESTS,
        breaks=A_COPY,
    ),
    WrongAnswer(
        PARSE,
        "returns its input unchanged: no check, no copy, so every test of Part A fails (each wants a new dict or"
        " a refusal)",
        "def parse_envelope(raw):\n    return raw\n",
        ALL_PARSE_TESTS,
        breaks=A_COPY,
    ),
    # ---- Part A at its boundaries (issue 35) -------------------------------------------------------------------
    WrongAnswer(
        PARSE,
        "checks kind by membership alone: a str subclass 'final' is read, and a list kind raises TypeError",
        splice(_PARSE_OK, ("if type(kind) is not str or kind not in allowed:", "if kind not in allowed:")),
        ("test_parse_envelope_kind",),
        breaks=A_KIND,
    ),
    WrongAnswer(
        PARSE,
        "drops an extra key whose value is None instead of refusing it",
        splice(
            _PARSE_OK,
            (
                "extra = [key for key in raw if key not in allowed[kind]]",
                "extra = [key for key in raw if key not in allowed[kind] and raw[key] is not None]",
            ),
        ),
        ("test_parse_envelope_keys",),
        breaks=A_KEYS,
    ),
    WrongAnswer(
        PARSE,
        "isinstance(key, str) for the keys: a str subclass equal to 'kind' is read as the key kind",
        splice(
            _PARSE_OK,
            (
                "if not all(type(key) is str for key in raw):",
                "if not all(isinstance(key, str) for key in raw):",
            ),
        ),
        ("test_parse_envelope_str_keys",),
        breaks=A_STR_KEYS,
    ),
    WrongAnswer(
        PARSE,
        "strips only ASCII whitespace before the blank-id check: an id of Unicode spaces is accepted",
        splice(_PARSE_OK, ("if not call_id.strip():", 'if not call_id.strip(" \\t\\n\\r\\x0b\\x0c"):')),
        ("test_parse_envelope_blank_id",),
        breaks=A_ID,
    ),
    WrongAnswer(
        PARSE,
        "[a-zA-Z0-9_-]+ for the name: no limit of 64 characters",
        splice(_PARSE_OK, (_NAME_CHECK, 're.fullmatch(r"[a-zA-Z0-9_-]+", name)')),
        ("test_parse_envelope_name",),
        breaks=A_NAME,
    ),
    WrongAnswer(
        PARSE,
        "decodes arguments given as a JSON string instead of refusing them",
        splice(
            _PARSE_OK,
            (
                '    if type(raw["arguments"]) is not dict:\n',
                '    if type(raw["arguments"]) is str:\n'
                '        raw = {**raw, "arguments": json.loads(raw["arguments"])}\n'
                '    if type(raw["arguments"]) is not dict:\n',
            ),
        ),
        ("test_parse_envelope_arguments",),
        breaks=A_ARGUMENTS,
    ),
    WrongAnswer(
        PARSE,
        "isinstance inside arguments: an OrderedDict, a str subclass or an IntEnum member is copied as JSON",
        splice(
            _PARSE_OK,
            ("        if type(value) is dict:\n", "        if isinstance(value, dict):\n"),
            ("        if type(value) is list:\n", "        if isinstance(value, list):\n"),
            ("type(value) in (str, int, float, bool)", "isinstance(value, (str, int, float, bool))"),
        ),
        ("test_parse_envelope_json_values",),
        breaks=A_JSON,
    ),
    WrongAnswer(
        PARSE,
        "checks the keys of the envelope but not of the dicts inside arguments",
        splice(
            _PARSE_OK,
            (
                "            if not all(type(key) is str for key in value):\n"
                '                raise EnvelopeError("arguments: every key must be a str")\n',
                "",
            ),
        ),
        ("test_parse_envelope_json_values",),
        breaks=A_JSON,
    ),
    WrongAnswer(
        PARSE,
        "counts only dicts toward the depth: lists nested 65 deep are read",
        splice(
            _PARSE_OK,
            ("if type(value) in (dict, list) and depth > 64:", "if type(value) is dict and depth > 64:"),
        ),
        ("test_parse_envelope_depth",),
        breaks=A_DEPTH,
    ),
    WrongAnswer(
        PARSE,
        "counts a value that is not a container as a level: a number inside the 64th container is refused",
        splice(_PARSE_OK, ("if type(value) in (dict, list) and depth > 64:", "if depth > 64:")),
        ("test_parse_envelope_depth",),
        breaks=A_DEPTH,
    ),
    WrongAnswer(
        PARSE,
        "returns a final answer's raw itself: only calls are copied",
        splice(_PARSE_OK, ('return {"kind": "final", "text": raw["text"]}', "return raw")),
        ("test_parse_envelope_branches", "test_parse_envelope_copy"),
        breaks=A_COPY,
    ),
    WrongAnswer(
        PARSE,
        "strips the text of a final answer: the result is no longer equal to raw",
        splice(
            _PARSE_OK,
            (
                'return {"kind": "final", "text": raw["text"]}',
                'return {"kind": "final", "text": raw["text"].strip()}',
            ),
        ),
        ("test_parse_envelope_branches", "test_parse_envelope_copy"),
        breaks=A_COPY,
    ),
    WrongAnswer(
        PARSE,
        "an extra key's refusal does not name the key",
        splice(
            _PARSE_OK,
            (
                'raise EnvelopeError("unexpected: " + ", ".join(extra))',
                'raise EnvelopeError("unexpected field")',
            ),
        ),
        ("test_parse_envelope_messages",),
        breaks=A_MESSAGES,
    ),
    # ------------------------------------------------------------ Part B: chat_message_to_envelopes
    WrongAnswer(
        ADAPTER,
        "copies the decoded arguments with the reference's own helper",
        "from course_lib.envelope import _copy_json\n\n\n"
        + splice(
            _ADAPTER_OK,
            ('"arguments": arguments}', '"arguments": _copy_json(arguments, "arguments", 1)}'),
        ),
        ADAPTER_TESTS,
        breaks=B_OWN,
    ),
    WrongAnswer(
        ADAPTER,
        "translates only the first tool call of a parallel turn",
        splice(_ADAPTER_OK, ("for call in calls:", "for call in calls[:1]:")),
        ("test_chat_message_to_envelopes_calls", "test_chat_message_to_envelopes_bad_json"),
        breaks=B_EACH,
    ),
    WrongAnswer(
        ADAPTER,
        "leaves function.arguments as the JSON string instead of decoding it",
        splice(
            _ADAPTER_OK,
            (
                'arguments = json.loads(call["function"]["arguments"])',
                'arguments = call["function"]["arguments"]',
            ),
        ),
        ("test_chat_message_to_envelopes_calls", "test_chat_message_to_envelopes_bad_json"),
        breaks=B_BUILD,
    ),
    WrongAnswer(
        ADAPTER,
        "looks at content first, so a message with text and tool calls becomes a final answer",
        splice(_ADAPTER_OK, ("if not calls:", 'if not calls or message.get("content") is not None:')),
        (
            "test_chat_message_to_envelopes_calls_win",
            "test_chat_message_to_envelopes_calls",
            "test_chat_message_to_envelopes_final",
            "test_chat_message_to_envelopes_bad_json",
        ),
        breaks=B_CALLS_WIN,
    ),
    WrongAnswer(
        ADAPTER,
        "tests only whether tool_calls is present: a tool_calls of None raises TypeError",
        splice(
            _ADAPTER_OK,
            ('calls = message.get("tool_calls") or []', 'calls = message.get("tool_calls", [])'),
            ("if not calls:", 'if "tool_calls" not in message:'),
        ),
        ("test_chat_message_to_envelopes_final",),
        breaks=B_FINAL,
    ),
    WrongAnswer(
        ADAPTER,
        "lets json.JSONDecodeError escape instead of raising EnvelopeError",
        splice(_ADAPTER_OK, ("        except json.JSONDecodeError:\n", "        except EnvelopeError:\n")),
        ("test_chat_message_to_envelopes_bad_json",),
        breaks=B_BAD_JSON,
    ),
    WrongAnswer(
        ADAPTER,
        "an EnvelopeError that does not say which field: 'not valid JSON'",
        splice(
            _ADAPTER_OK,
            ('raise EnvelopeError("arguments: not valid JSON")', 'raise EnvelopeError("not valid JSON")'),
        ),
        ("test_chat_message_to_envelopes_bad_json",),
        breaks=B_BAD_JSON,
    ),
    WrongAnswer(
        ADAPTER,
        "checks what it translates: a content of None is refused",
        splice(
            _ADAPTER_OK,
            (
                '        return [{"kind": "final", "text": message.get("content")}]',
                '        if message.get("content") is None:\n            raise EnvelopeError("text: missing")\n'
                '        return [{"kind": "final", "text": message.get("content")}]',
            ),
        ),
        ("test_chat_message_to_envelopes_final",),
        breaks=B_TRANSLATE,
    ),
    WrongAnswer(
        ADAPTER,
        "checks what it translates: arguments that decode to a list are refused",
        splice(
            _ADAPTER_OK,
            (
                '        name = call["function"]["name"]\n',
                "        if type(arguments) is not dict:\n"
                '            raise EnvelopeError("arguments: not an object")\n'
                '        name = call["function"]["name"]\n',
            ),
        ),
        ("test_chat_message_to_envelopes_calls",),
        breaks=B_TRANSLATE,
    ),
    WrongAnswer(
        ADAPTER,
        "refuses every message, naming arguments: each test of Part B also has a message it must translate",
        'def chat_message_to_envelopes(message):\n    raise EnvelopeError("arguments: refused")\n',
        ADAPTER_TESTS,
        breaks=B_FINAL,
    ),
    WrongAnswer(
        ADAPTER,
        "returns its input unchanged, the message itself: each test of Part B wants a list of envelopes",
        "def chat_message_to_envelopes(message):\n    return message\n",
        ADAPTER_TESTS,
        breaks=B_EACH,
    ),
    # ---- Part B at its boundaries (issue 35) -------------------------------------------------------------------
    WrongAnswer(
        ADAPTER,
        "one envelope per tool name: a second call of the same tool replaces the first",
        splice(
            _ADAPTER_OK,
            ("    out = []\n", "    out = {}\n"),
            (
                '        out.append({"kind": "call", "id": call["id"], "name": name, "arguments": arguments})\n'
                "    return out",
                '        out[name] = {"kind": "call", "id": call["id"], "name": name, "arguments": arguments}\n'
                "    return list(out.values())",
            ),
        ),
        ("test_chat_message_to_envelopes_calls",),
        breaks=B_EACH,
    ),
    WrongAnswer(
        ADAPTER,
        "decodes the arguments with ast.literal_eval: JSON's true and null are not Python",
        "import ast\n\n\n"
        + splice(
            _ADAPTER_OK,
            (
                'arguments = json.loads(call["function"]["arguments"])',
                'arguments = ast.literal_eval(call["function"]["arguments"])',
            ),
            (
                "        except json.JSONDecodeError:\n",
                "        except (SyntaxError, json.JSONDecodeError):\n",
            ),
        ),
        ("test_chat_message_to_envelopes_calls", "test_chat_message_to_envelopes_bad_json"),
        breaks=B_BUILD,
    ),
    WrongAnswer(
        ADAPTER,
        "returns the calls and a final envelope for the text beside them",
        splice(
            _ADAPTER_OK,
            (
                "    return out\n",
                '    if message.get("content"):\n        out.append({"kind": "final", "text": message["content"]})\n'
                "    return out\n",
            ),
        ),
        ("test_chat_message_to_envelopes_calls_win", "test_chat_message_to_envelopes_calls"),
        breaks=B_CALLS_WIN,
    ),
    WrongAnswer(
        ADAPTER,
        "an empty content gives no envelope at all",
        splice(
            _ADAPTER_OK,
            (
                '        return [{"kind": "final", "text": message.get("content")}]',
                '        return [{"kind": "final", "text": message.get("content")}]'
                ' if message.get("content") != "" else []',
            ),
        ),
        ("test_chat_message_to_envelopes_final",),
        breaks=B_FINAL,
    ),
    WrongAnswer(
        ADAPTER,
        "reads an empty arguments string as {} instead of refusing it",
        splice(
            _ADAPTER_OK,
            (
                'arguments = json.loads(call["function"]["arguments"])',
                'arguments = json.loads(call["function"]["arguments"] or "{}")',
            ),
        ),
        ("test_chat_message_to_envelopes_bad_json",),
        breaks=B_BAD_JSON,
    ),
    # ---- a second red-team round (issue 35): held-out wrong answers, each caught by a hidden check added with it ----
    WrongAnswer(
        PARSE,
        "checks the name with re.IGNORECASE on [a-z0-9_-]: the Kelvin sign and the long s fold to ASCII letters",
        splice(_PARSE_OK, (_NAME_CHECK, 're.fullmatch(r"[a-z0-9_-]{1,64}", name, re.IGNORECASE)')),
        ("test_parse_envelope_name",),
        breaks=A_NAME,
    ),
    WrongAnswer(
        PARSE,
        "checks finiteness with math.isfinite on ints too: a very large int raises OverflowError",
        splice(
            _PARSE_OK,
            ("    def copy_json(value, depth):\n", "    import math\n\n    def copy_json(value, depth):\n"),
            (
                'if type(value) is float and (value != value or value in (float("inf"), float("-inf"))):',
                "if type(value) in (int, float) and not math.isfinite(value):",
            ),
        ),
        ("test_parse_envelope_json_values", "test_parse_envelope_copy"),
        breaks=A_JSON,
    ),
    WrongAnswer(
        PARSE,
        "strips a hand-written list of spaces (ASCII, no-break, em, ideographic) before the blank-id check",
        splice(
            _PARSE_OK,
            (
                "    if not call_id.strip():",
                '    if not call_id.strip(" \\t\\n\\r\\x0b\\x0c\\u00a0\\u2003\\u3000"):',
            ),
        ),
        ("test_parse_envelope_blank_id",),
        breaks=A_ID,
    ),
    WrongAnswer(
        PARSE,
        "returns the id NFKC-normalised, so that look-alike ids compare equal",
        splice(
            _PARSE_OK,
            (
                _CALL_RETURN,
                "import unicodedata\n    "
                + _CALL_RETURN.replace("call_id,", 'unicodedata.normalize("NFKC", call_id),'),
            ),
        ),
        ("test_parse_envelope_blank_id", "test_parse_envelope_copy"),
        breaks=A_ID,
    ),
    WrongAnswer(
        PARSE,
        "normalises the line endings of a final text: \\r\\n comes back as \\n",
        splice(
            _PARSE_OK,
            (
                'return {"kind": "final", "text": raw["text"]}',
                'return {"kind": "final", "text": raw["text"].replace("\\r\\n", "\\n")}',
            ),
        ),
        ("test_parse_envelope_branches",),
        breaks=A_COPY,
    ),
    WrongAnswer(
        PARSE,
        "shortens the list of extra keys in its message to 40 characters, so a long extra key goes unnamed",
        splice(
            _PARSE_OK,
            (
                _EXTRA_CHECK,
                "    if extra:\n        raise EnvelopeError(f\"unexpected: {', '.join(extra):.40}\")\n",
            ),
        ),
        ("test_parse_envelope_messages",),
        breaks=A_MESSAGES,
    ),
    WrongAnswer(
        PARSE,
        "counts every container it visits (a running total), not the nesting depth: 70 sibling lists are refused",
        splice(
            _PARSE_OK,
            ("    def copy_json(value, depth):\n", "    seen = [0]\n\n    def copy_json(value, depth):\n"),
            (
                "        if type(value) in (dict, list) and depth > 64:",
                "        if type(value) in (dict, list):\n            seen[0] += 1\n"
                "        if type(value) in (dict, list) and seen[0] > 64:",
            ),
        ),
        ("test_parse_envelope_depth",),
        breaks=A_DEPTH,
    ),
    WrongAnswer(
        ADAPTER,
        "sorts the tool calls by id: call_10 comes before call_2",
        splice(
            _ADAPTER_OK,
            ("    for call in calls:", '    for call in sorted(calls, key=lambda call: call["id"]):'),
        ),
        ("test_chat_message_to_envelopes_calls",),
        breaks=B_EACH,
    ),
    WrongAnswer(
        ADAPTER,
        "collects the envelopes in a dict keyed by call id: two calls with the same id give one envelope",
        splice(
            _ADAPTER_OK,
            ("    out = []", "    out = {}"),
            (
                'out.append({"kind": "call", "id": call["id"], "name": name, "arguments": arguments})',
                'out[call["id"]] = {"kind": "call", "id": call["id"], "name": name, "arguments": arguments}',
            ),
            ("    return out\n", "    return list(out.values())\n"),
        ),
        ("test_chat_message_to_envelopes_calls",),
        breaks=B_EACH,
    ),
    WrongAnswer(
        ADAPTER,
        "strips the function name, tidying what the model wrote",
        splice(_ADAPTER_OK, ('name = call["function"]["name"]', 'name = call["function"]["name"].strip()')),
        ("test_chat_message_to_envelopes_calls",),
        breaks=B_BUILD,
    ),
    WrongAnswer(
        ADAPTER,
        "strips the call id, tidying what the model wrote",
        splice(_ADAPTER_OK, ('"id": call["id"], "name": name', '"id": call["id"].strip(), "name": name')),
        ("test_chat_message_to_envelopes_calls",),
        breaks=B_BUILD,
    ),
    WrongAnswer(
        ADAPTER,
        "decodes with json.loads(..., strict=False): a raw control character inside a string is accepted",
        splice(
            _ADAPTER_OK,
            (
                'json.loads(call["function"]["arguments"])',
                'json.loads(call["function"]["arguments"], strict=False)',
            ),
        ),
        ("test_chat_message_to_envelopes_bad_json",),
        breaks=B_BAD_JSON,
    ),
]
