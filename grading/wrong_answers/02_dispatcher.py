"""Plausible wrong answers to notebook 02 and the tests that catch them.

Most are a correct answer with one mistake spliced in, so each one fails for exactly the reason in its `why`.
"""

from __future__ import annotations

from grading.wrong_answers import WrongAnswer, splice

EUROS = "max_euros"
DISPATCH = "dispatch"
DISPATCH_WITH = "dispatch_with"
ALL_DISPATCH_TESTS = (
    "test_dispatch_accepted",
    "test_dispatch_seed_rejections",
    "test_dispatch_size_in_bytes",
    "test_dispatch_size_first",
    "test_dispatch_duplicate_keys",
    "test_dispatch_strict_json",
    "test_dispatch_recursion",
    "test_dispatch_envelope",
    "test_dispatch_name",
    "test_dispatch_name_as_data",
    "test_dispatch_arguments",
    "test_dispatch_sku",
    "test_dispatch_not_a_string",
)
ALL_DISPATCH_WITH_TESTS = (
    "test_dispatch_with_two_tools",
    "test_dispatch_with_handler",
    "test_dispatch_with_forbidden_still_refused",
    "test_dispatch_with_numbers",
)

# The sentences of the contracts (bullets of the "Your function must" lists) the wrong answers break.
A_OWN = "importing, wrapping or calling the reference, `course_lib.stock`, scores nothing"
A_NOT_STR = "when `raw` is not a `str` (`bytes`, a `dict`, `None`), before anything else"
A_BYTES = "count the size of `raw` in UTF-8 bytes"
A_INCLUSIVE = "accept one of exactly 2,048 bytes: the limit is inclusive"
A_BEFORE = "check the size before parsing"
A_TOO_LARGE = "a message containing the words `too large`"
A_ONE_VALUE = "parse the whole text as one JSON value"
A_DUPLICATE = "refuse a key repeated within one object, at any depth"
A_RECURSION = "never let a `RecursionError` escape"
A_ENVELOPE = "require the parsed value to be a `dict` with exactly the keys `name` and `arguments`:"
A_NAME = 'require `name` to be exactly `"stock_lookup"`'
A_DATA = "treat `name` as data only"
A_ARGUMENTS = "require `arguments` to be a `dict` with exactly one key, `sku`"
A_SKU = "require the SKU to be a `str` that is exactly a key of `STOCK`"
A_RETURN = "a new dict at every call"
A_VALUE_ERROR = "and let no other exception escape: no `KeyError`"
B_OWN = A_OWN
B_TEXT = "check the request text as your `dispatch` does"
B_NUMBERS = "refuse `NaN`, `Infinity`, `-Infinity` and a number with a fraction or an exponent too large for a `float`"
B_ENVELOPE = "require the parsed value to be a `dict` with exactly the keys `name` and `arguments`;"
B_NAME = "require `name` to be a `str` that is exactly a key of `tools`"
B_ONLY_TOOLS = "look the name up only in `tools`"
B_ARGUMENTS = "keys are exactly the tool's `rule.arguments`"
B_RETURN = "return exactly what `rule.handler(arguments)` returns"
B_HANDLER = "let an exception the handler raises pass through unchanged"
B_VALUE_ERROR = "and let no other exception of its own escape"
B_TABLE = "leave `tools` unchanged"

_PARSE_OK = '''
def parse_request(raw):
    """A correct parser, written differently from the notebook's."""
    if not isinstance(raw, str):
        raise TypeError("the request must be text")
    if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:
        raise ValueError("request too large")

    def pairs_to_dict(pairs):
        keys = [key for key, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate key")
        return dict(pairs)

    def refuse_constant(text):
        raise ValueError(f"{text} is not JSON")

    try:
        return json.loads(raw, object_pairs_hook=pairs_to_dict, parse_constant=refuse_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None
'''

_DISPATCH_OK = '''
def dispatch(raw):
    """A correct dispatcher on top of parse_request, to splice mistakes into."""
    call = parse_request(raw)
    if not (type(call) is dict and call.keys() == {"name", "arguments"}):
        raise ValueError("envelope: exactly name and arguments")
    if call["name"] != "stock_lookup":
        raise ValueError("unknown tool")
    arguments = call["arguments"]
    if not (type(arguments) is dict and arguments.keys() == {"sku"}):
        raise ValueError("arguments: exactly sku")
    sku = arguments["sku"]
    if type(sku) is not str or sku not in STOCK:
        raise ValueError("unknown sku")
    return {"sku": sku, "available": STOCK[sku]}
'''

_DISPATCH_WITH_OK = '''
def dispatch_with(raw, tools):
    """A correct table-driven dispatcher, to splice mistakes into."""
    call = parse_request(raw)
    if not (type(call) is dict and call.keys() == {"name", "arguments"}):
        raise ValueError("envelope: exactly name and arguments")
    name, arguments = call["name"], call["arguments"]
    if type(name) is not str:
        raise ValueError("unknown tool")
    rule = tools.get(name)
    if rule is None:
        raise ValueError(f"unknown tool: {name!r}")
    if not (type(arguments) is dict and set(arguments) == set(rule.arguments)):
        raise ValueError("arguments do not match the tool")
    return rule.handler(arguments)
'''

_PLAIN_PARSE = (
    'if not isinstance(raw, str):\n        raise TypeError("the request must be text")\n'
    '    if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:\n        raise ValueError("request too large")\n'
    "    try:\n        call = json.loads(raw)\n    except RecursionError:\n"
    '        raise ValueError("nested too deeply") from None'
)
_NUMBERS_PARSE = (
    'if not isinstance(raw, str):\n        raise TypeError("the request must be text")\n'
    '    if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:\n        raise ValueError("request too large")\n'
    "\n    def unique(pairs):\n        keys = [key for key, _ in pairs]\n"
    '        if len(keys) != len(set(keys)):\n            raise ValueError("duplicate key")\n'
    "        return dict(pairs)\n\n"
    "    try:\n        call = json.loads(raw, object_pairs_hook=unique)\n    except RecursionError:\n"
    '        raise ValueError("nested too deeply") from None'
)

_SIZE_CHECK = (
    'if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:\n        raise ValueError("request too large")\n'
)
_HOOKED_LOADS = "json.loads(raw, object_pairs_hook=pairs_to_dict, parse_constant=refuse_constant)"
_RECURSION_GUARD = (
    "    try:\n        return " + _HOOKED_LOADS + "\n    except RecursionError:\n"
    '        raise ValueError("nested too deeply") from None\n'
)

_STRICT_PARSE = (
    'if not isinstance(raw, str):\n        raise TypeError("the request must be text")\n'
    '    if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:\n        raise ValueError("request too large")\n'
    "\n    def unique(pairs):\n        keys = [key for key, _ in pairs]\n"
    '        if len(keys) != len(set(keys)):\n            raise ValueError("duplicate key")\n'
    "        return dict(pairs)\n\n"
    '    def no_constant(name):\n        raise ValueError(f"{name} is not JSON")\n\n'
    "    def finite(text):\n"
    '        if float(text) in (float("inf"), float("-inf")):\n            raise ValueError("number out of range")\n'
    "        return float(text)\n\n"
    "    try:\n        call = json.loads(raw, object_pairs_hook=unique, parse_constant=no_constant,"
    " parse_float=finite)\n"
    '    except RecursionError:\n        raise ValueError("nested too deeply") from None'
)
"""Part B's own copy of every check of the request text, correct, to splice a mistake into."""


def _dispatch(*edits: tuple[str, str], parse: tuple[tuple[str, str], ...] = ()) -> str:
    """The correct parse_request and dispatch with mistakes spliced into either."""
    return splice(_PARSE_OK, *parse) + "\n\n" + splice(_DISPATCH_OK, *edits)


_PARSE_AND_DISPATCH_OK = _dispatch()
"""A correct answer to Part A, written apart from the instructor's solution."""

WRONG_ANSWERS = [
    # ------------------------------------------------------------ the practice question
    WrongAnswer(
        EUROS,
        "counts characters: every euro sign taken as one byte",
        "max_euros = MAX_REQUEST_BYTES - len(pen_request)\n",
        ("test_max_euros",),
    ),
    WrongAnswer(
        EUROS,
        "rounds up: one euro sign too many",
        'max_euros = -(-(MAX_REQUEST_BYTES - len(pen_request.encode("utf-8"))) // 3)\n',
        ("test_max_euros",),
    ),
    # ------------------------------------------------------------ Part A: dispatch
    WrongAnswer(
        DISPATCH,
        "imports the library's dispatch instead of writing one",
        "from course_lib.stock import dispatch\n",
        ALL_DISPATCH_TESTS,
        breaks=A_OWN,
    ),
    WrongAnswer(
        DISPATCH,
        "wraps the library's dispatch in a function of its own",
        "import course_lib.stock as lib\n\n\ndef dispatch(raw):\n    return lib.dispatch(raw)\n",
        ALL_DISPATCH_TESTS,
        breaks=A_OWN,
    ),
    WrongAnswer(
        DISPATCH,
        "no type check of raw: bytes and None escape as AttributeError from raw.encode",
        _dispatch(
            parse=(
                (
                    '    if not isinstance(raw, str):\n        raise TypeError("the request must be text")\n',
                    "",
                ),
            )
        ),
        ("test_dispatch_not_a_string",),
        breaks=A_NOT_STR,
    ),
    WrongAnswer(
        DISPATCH,
        "counts characters (len(raw)) instead of UTF-8 bytes",
        _dispatch(
            parse=(('if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:', "if len(raw) > MAX_REQUEST_BYTES:"),)
        ),
        ("test_dispatch_size_in_bytes",),
        breaks=A_BYTES,
    ),
    WrongAnswer(
        DISPATCH,
        "an exclusive limit: a request of exactly 2,048 bytes is refused as too large",
        _dispatch(
            parse=(
                (
                    'if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:',
                    'if len(raw.encode("utf-8")) >= MAX_REQUEST_BYTES:',
                ),
            )
        ),
        ("test_dispatch_size_in_bytes",),
        breaks=A_INCLUSIVE,
    ),
    WrongAnswer(
        DISPATCH,
        "checks the size only after parsing",
        _dispatch(
            parse=(
                (_SIZE_CHECK, ""),
                (
                    _RECURSION_GUARD,
                    "    try:\n        value = " + _HOOKED_LOADS + "\n    except RecursionError:\n"
                    '        raise ValueError("nested too deeply") from None\n'
                    '    if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:\n'
                    '        raise ValueError("request too large")\n    return value\n',
                ),
            )
        ),
        ("test_dispatch_size_first",),
        breaks=A_BEFORE,
    ),
    WrongAnswer(
        DISPATCH,
        "a size refusal that says so in other words: 'request exceeds the byte limit'",
        _dispatch(
            parse=(
                (
                    'raise ValueError("request too large")',
                    'raise ValueError("request exceeds the byte limit")',
                ),
            )
        ),
        ("test_dispatch_size_in_bytes", "test_dispatch_size_first"),
        breaks=A_TOO_LARGE,
    ),
    WrongAnswer(
        DISPATCH,
        "parses with raw_decode: text after the first JSON value is ignored",
        _dispatch(
            parse=(
                (
                    "return " + _HOOKED_LOADS,
                    "return json.JSONDecoder(object_pairs_hook=pairs_to_dict, parse_constant=refuse_constant)"
                    ".raw_decode(raw.strip())[0]",
                ),
            )
        ),
        ("test_dispatch_strict_json",),
        breaks=A_ONE_VALUE,
    ),
    WrongAnswer(
        DISPATCH,
        "plain json.loads: a repeated key silently keeps its last value",
        _dispatch(parse=((_HOOKED_LOADS, "json.loads(raw, parse_constant=refuse_constant)"),)),
        ("test_dispatch_seed_rejections", "test_dispatch_duplicate_keys"),
        breaks=A_DUPLICATE,
    ),
    WrongAnswer(
        DISPATCH,
        "checks duplicates only for the envelope's own keys, by counting them in the text",
        _dispatch(
            parse=(
                (_HOOKED_LOADS, "json.loads(raw, parse_constant=refuse_constant)"),
                (
                    "    try:\n        return json.loads",
                    '    for key in ("name", "arguments"):\n'
                    "        if raw.count(f'\"{key}\"') > 1:\n"
                    '            raise ValueError(f"duplicate key: {key!r}")\n'
                    "    try:\n        return json.loads",
                ),
            )
        ),
        ("test_dispatch_seed_rejections", "test_dispatch_duplicate_keys"),
        breaks=A_DUPLICATE,
    ),
    WrongAnswer(
        DISPATCH,
        "no RecursionError handling: 1,000 nested brackets escape as RecursionError",
        _dispatch(parse=((_RECURSION_GUARD, "    return " + _HOOKED_LOADS + "\n"),)),
        ("test_dispatch_recursion",),
        breaks=A_RECURSION,
    ),
    WrongAnswer(
        DISPATCH,
        "accepts extra keys in the envelope: a subset check (>=) instead of the exact key set",
        _dispatch(('call.keys() == {"name", "arguments"}', 'call.keys() >= {"name", "arguments"}')),
        ("test_dispatch_envelope",),
        breaks=A_ENVELOPE,
    ),
    WrongAnswer(
        DISPATCH,
        "compares the envelope's key set before checking its type: a JSON array of the key names gets through",
        _dispatch(
            (
                'if not (type(call) is dict and call.keys() == {"name", "arguments"}):',
                'if set(call) != {"name", "arguments"}:',
            )
        ),
        ("test_dispatch_envelope",),
        breaks=A_ENVELOPE,
    ),
    WrongAnswer(
        DISPATCH,
        "normalises the tool name: ' stock_lookup' and 'Stock_Lookup' run the lookup",
        _dispatch(
            ('if call["name"] != "stock_lookup":', 'if str(call["name"]).strip().lower() != "stock_lookup":')
        ),
        ("test_dispatch_name",),
        breaks=A_NAME,
    ),
    WrongAnswer(
        DISPATCH,
        "looks the tool up in the notebook's globals: any function defined there can be run",
        splice(_PARSE_OK)
        + "\n\n"
        + splice(
            _DISPATCH_OK,
            (
                '    if call["name"] != "stock_lookup":\n        raise ValueError("unknown tool")\n',
                '    handler = globals().get(call["name"]) if type(call["name"]) is str else None\n'
                "    if not callable(handler):\n"
                '        raise ValueError("unknown tool")\n',
            ),
            ('    sku = arguments["sku"]\n', "    return handler(arguments)\n"),
            (
                '    if type(sku) is not str or sku not in STOCK:\n        raise ValueError("unknown sku")\n'
                '    return {"sku": sku, "available": STOCK[sku]}\n',
                "",
            ),
        )
        + '\n\ndef stock_lookup(arguments):\n    sku = arguments["sku"]\n'
        + '    if type(sku) is not str or sku not in STOCK:\n        raise ValueError("unknown sku")\n'
        + '    return {"sku": sku, "available": STOCK[sku]}\n',
        ("test_dispatch_name_as_data",),
        breaks=A_DATA,
    ),
    WrongAnswer(
        DISPATCH,
        "accepts extra arguments: a subset check (>=) instead of exactly {'sku'}",
        _dispatch(('arguments.keys() == {"sku"}', 'arguments.keys() >= {"sku"}')),
        ("test_dispatch_seed_rejections", "test_dispatch_arguments"),
        breaks=A_ARGUMENTS,
    ),
    WrongAnswer(
        DISPATCH,
        "compares the arguments' key set before checking their type: the array ['sku'] gets through",
        _dispatch(
            (
                'if not (type(arguments) is dict and arguments.keys() == {"sku"}):',
                'if set(arguments) != {"sku"}:',
            )
        ),
        ("test_dispatch_arguments",),
        breaks=A_ARGUMENTS,
    ),
    WrongAnswer(
        DISPATCH,
        "normalises the SKU with .strip().upper(): 'pen' is accepted and a Boolean raises AttributeError",
        _dispatch(('sku = arguments["sku"]', 'sku = arguments["sku"].strip().upper()')),
        ("test_dispatch_sku",),
        breaks=A_SKU,
    ),
    WrongAnswer(
        DISPATCH,
        "no type check of the SKU: a list SKU raises TypeError (unhashable) in the STOCK lookup",
        _dispatch(("if type(sku) is not str or sku not in STOCK:", "if sku not in STOCK:")),
        ("test_dispatch_sku",),
        breaks=A_SKU,
    ),
    WrongAnswer(
        DISPATCH,
        "hands out one cached dict per SKU: a caller that changes a result changes the next",
        "_ANSWERS = {}\n\n\n"
        + _dispatch(
            (
                '    return {"sku": sku, "available": STOCK[sku]}',
                '    return _ANSWERS.setdefault(sku, {"sku": sku, "available": STOCK[sku]})',
            )
        ),
        ("test_dispatch_accepted",),
        breaks=A_RETURN,
    ),
    WrongAnswer(
        DISPATCH,
        "refuses every request, as too large: each test of Part A also has a request it must run, so it scores nothing",
        'def parse_request(raw):\n    raise DispatchError("request too large")\n\n\n'
        'def dispatch(raw):\n    raise DispatchError("request too large")\n',
        ALL_DISPATCH_TESTS,
        breaks=A_RETURN,
    ),
    WrongAnswer(
        DISPATCH,
        "returns its input unchanged, the request text: nothing parsed, nothing checked, nothing run",
        "def parse_request(raw):\n    return raw\n\n\ndef dispatch(raw):\n    return raw\n",
        ALL_DISPATCH_TESTS,
        breaks=A_RETURN,
    ),
    WrongAnswer(
        DISPATCH,
        "refuses a SKU of the wrong type with TypeError instead of a ValueError",
        _dispatch(
            (
                "    if type(sku) is not str or sku not in STOCK:",
                '    if type(sku) is not str:\n        raise TypeError("the SKU must be a string")\n'
                "    if sku not in STOCK:",
            )
        ),
        ("test_dispatch_seed_rejections", "test_dispatch_sku"),
        breaks=A_VALUE_ERROR,
    ),
    # ---- Part A at its boundaries (issue 35) -------------------------------------------------------------------
    WrongAnswer(
        DISPATCH,
        "looks the SKU up with STOCK.get before checking its type: an object SKU escapes as TypeError (unhashable)",
        _dispatch(
            (
                "    if type(sku) is not str or sku not in STOCK:",
                "    if STOCK.get(sku) is None or type(sku) is not str:",
            )
        ),
        ("test_dispatch_seed_rejections",),
        breaks=A_VALUE_ERROR,
    ),
    WrongAnswer(
        DISPATCH,
        "counts the envelope's keys instead of naming them: {'name', 'args'} escapes as KeyError",
        _dispatch(
            (
                'if not (type(call) is dict and call.keys() == {"name", "arguments"}):',
                "if not (type(call) is dict and len(call) == 2):",
            )
        ),
        ("test_dispatch_envelope",),
        breaks=A_ENVELOPE,
    ),
    WrongAnswer(
        DISPATCH,
        "drops a leading byte order mark before parsing",
        _dispatch(
            parse=(
                (
                    _HOOKED_LOADS,
                    _HOOKED_LOADS.replace("json.loads(raw,", 'json.loads(raw.lstrip("\\ufeff"),'),
                ),
            )
        ),
        ("test_dispatch_strict_json",),
        breaks=A_ONE_VALUE,
    ),
    WrongAnswer(
        DISPATCH,
        "drops a trailing newline from the name: 'stock_lookup\\n' runs the lookup",
        _dispatch(
            ('if call["name"] != "stock_lookup":', 'if str(call["name"]).rstrip("\\n") != "stock_lookup":')
        ),
        ("test_dispatch_name",),
        breaks=A_NAME,
    ),
    WrongAnswer(
        DISPATCH,
        "drops arguments whose value is null before checking the names: an extra null argument is ignored",
        _dispatch(
            (
                '    arguments = call["arguments"]\n',
                '    arguments = call["arguments"]\n    if type(arguments) is dict:\n'
                "        arguments = {key: value for key, value in arguments.items() if value is not None}\n",
            )
        ),
        ("test_dispatch_arguments",),
        breaks=A_ARGUMENTS,
    ),
    WrongAnswer(
        DISPATCH,
        "measures the size after stripping white space: a valid request padded one byte over the limit runs",
        _dispatch(
            parse=(
                (
                    'if len(raw.encode("utf-8")) > MAX_REQUEST_BYTES:',
                    'if len(raw.strip().encode("utf-8")) > MAX_REQUEST_BYTES:',
                ),
            )
        ),
        ("test_dispatch_size_first",),
        breaks=A_BEFORE,
    ),
    # ------------------------------------------------------------ Part B: dispatch_with
    WrongAnswer(
        DISPATCH_WITH,
        "wraps the library's dispatch_with",
        "from course_lib import stock as lib\n\n\ndef dispatch_with(raw, tools):\n"
        "    return lib.dispatch_with(raw, tools)\n",
        ALL_DISPATCH_WITH_TESTS,
        breaks=B_OWN,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "parses with plain json.loads instead of the checks of dispatch: a repeated key keeps its last value",
        splice(_DISPATCH_WITH_OK, ("call = parse_request(raw)", _PLAIN_PARSE)),
        ("test_dispatch_with_forbidden_still_refused",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "a strict parser but for numbers: NaN, Infinity and 1e999 reach the tool",
        splice(_DISPATCH_WITH_OK, ("call = parse_request(raw)", _NUMBERS_PARSE)),
        ("test_dispatch_with_numbers",),
        breaks=B_NUMBERS,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "accepts extra keys in the envelope: a subset check (>=)",
        splice(
            _DISPATCH_WITH_OK,
            ('call.keys() == {"name", "arguments"}', 'call.keys() >= {"name", "arguments"}'),
        ),
        ("test_dispatch_with_forbidden_still_refused",),
        breaks=B_ENVELOPE,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "matches tool names case-insensitively",
        splice(
            _DISPATCH_WITH_OK,
            (
                "rule = tools.get(name)",
                "rule = {key.lower(): value for key, value in tools.items()}.get(name.lower())",
            ),
        ),
        ("test_dispatch_with_two_tools", "test_dispatch_with_forbidden_still_refused"),
        breaks=B_NAME,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "no type check of the name: a list name raises TypeError (unhashable) in the table lookup",
        splice(
            _DISPATCH_WITH_OK,
            ('    if type(name) is not str:\n        raise ValueError("unknown tool")\n', ""),
        ),
        ("test_dispatch_with_two_tools", "test_dispatch_with_forbidden_still_refused"),
        breaks=B_NAME,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "falls back to the notebook's globals for a name missing from the table",
        splice(
            _DISPATCH_WITH_OK,
            (
                '    if rule is None:\n        raise ValueError(f"unknown tool: {name!r}")\n',
                "    if rule is None:\n"
                "        handler = globals().get(name)\n"
                "        if not callable(handler):\n"
                '            raise ValueError(f"unknown tool: {name!r}")\n'
                "        return handler(arguments)\n",
            ),
        ),
        ("test_dispatch_with_two_tools",),
        breaks=B_ONLY_TOOLS,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "accepts extra arguments: the tool's argument names only need to be present",
        splice(
            _DISPATCH_WITH_OK,
            ("set(arguments) == set(rule.arguments)", "set(arguments) >= set(rule.arguments)"),
        ),
        ("test_dispatch_with_handler", "test_dispatch_with_forbidden_still_refused"),
        breaks=B_ARGUMENTS,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "hard-codes the stock tool's argument names instead of reading rule.arguments",
        splice(_DISPATCH_WITH_OK, ("set(arguments) == set(rule.arguments)", 'set(arguments) == {"sku"}')),
        ("test_dispatch_with_handler",),
        breaks=B_ARGUMENTS,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "refuses every request, as too large, whatever the table holds: each test of Part B also has one to run",
        'def dispatch_with(raw, tools):\n    raise DispatchError("request too large")\n',
        ALL_DISPATCH_WITH_TESTS,
        breaks=B_RETURN,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "returns its input unchanged, the request text",
        "def dispatch_with(raw, tools):\n    return raw\n",
        ALL_DISPATCH_WITH_TESTS,
        breaks=B_RETURN,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "turns an exception of the handler into a refusal",
        splice(
            _DISPATCH_WITH_OK,
            (
                "    return rule.handler(arguments)",
                "    try:\n        return rule.handler(arguments)\n    except Exception as error:\n"
                '        raise ValueError(f"{name} failed: {error}") from None',
            ),
        ),
        ("test_dispatch_with_handler",),
        breaks=B_HANDLER,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "looks the rule up with tools[name]: an unknown tool escapes as KeyError",
        splice(
            _DISPATCH_WITH_OK,
            (
                "    rule = tools.get(name)\n    if rule is None:\n"
                '        raise ValueError(f"unknown tool: {name!r}")\n',
                "    rule = tools[name]\n",
            ),
        ),
        (
            "test_dispatch_with_two_tools",
            "test_dispatch_with_handler",
            "test_dispatch_with_forbidden_still_refused",
        ),
        breaks=B_VALUE_ERROR,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "looks the rule up with tools.setdefault(name): an unknown name is added to the table",
        splice(_DISPATCH_WITH_OK, ("rule = tools.get(name)", "rule = tools.setdefault(name)")),
        ("test_dispatch_with_handler",),
        breaks=B_TABLE,
    ),
    # ---- Part B at its boundaries (issue 35) -------------------------------------------------------------------
    WrongAnswer(
        DISPATCH_WITH,
        "wraps the handler's answer in a dict of its own: {'result': ...}",
        splice(
            _DISPATCH_WITH_OK,
            ("    return rule.handler(arguments)", '    return {"result": rule.handler(arguments)}'),
        ),
        ("test_dispatch_with_two_tools",),
        breaks=B_RETURN,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "refuses NaN and the infinities by name but lets 1e999 overflow to inf",
        splice(
            _DISPATCH_WITH_OK,
            (
                "call = parse_request(raw)",
                _NUMBERS_PARSE.replace(
                    "        return dict(pairs)\n\n",
                    "        return dict(pairs)\n\n"
                    '    def no_constant(name):\n        raise ValueError(f"{name} is not JSON")\n\n',
                ).replace(
                    "json.loads(raw, object_pairs_hook=unique)",
                    "json.loads(raw, object_pairs_hook=unique, parse_constant=no_constant)",
                ),
            ),
        ),
        ("test_dispatch_with_numbers",),
        breaks=B_NUMBERS,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "no type check of arguments: a list of the right names reaches the handler",
        splice(
            _DISPATCH_WITH_OK,
            (
                "if not (type(arguments) is dict and set(arguments) == set(rule.arguments)):",
                "if set(arguments) != set(rule.arguments):",
            ),
        ),
        ("test_dispatch_with_handler", "test_dispatch_with_forbidden_still_refused"),
        breaks=B_ARGUMENTS,
    ),
    # ---- a second red-team round (issue 35): held-out wrong answers, each caught by a hidden check added with it ----
    WrongAnswer(
        DISPATCH,
        "strips the text before parsing it: a no-break space or a form feed around the JSON value is dropped",
        _dispatch(
            parse=((_HOOKED_LOADS, _HOOKED_LOADS.replace("json.loads(raw,", "json.loads(raw.strip(),")),)
        ),
        ("test_dispatch_strict_json",),
        breaks=A_ONE_VALUE,
    ),
    WrongAnswer(
        DISPATCH,
        "looks the tool up by name in course_lib.inventory, where stock_lookup lives, and runs what it finds",
        _dispatch(
            (
                '    if call["name"] != "stock_lookup":\n        raise ValueError("unknown tool")\n',
                "    import course_lib.inventory\n"
                '    handler = getattr(course_lib.inventory, call["name"], None)'
                ' if type(call["name"]) is str else None\n'
                '    if not callable(handler):\n        raise ValueError("unknown tool")\n',
            ),
            ('    return {"sku": sku, "available": STOCK[sku]}', "    return handler(arguments)"),
        ),
        ("test_dispatch_name_as_data",),
        breaks=A_DATA,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "its own parser with json.loads(strict=False): a raw control character inside a string reaches the tool",
        splice(
            _DISPATCH_WITH_OK,
            (
                "call = parse_request(raw)",
                _STRICT_PARSE.replace("json.loads(raw, ", "json.loads(raw, strict=False, "),
            ),
        ),
        ("test_dispatch_with_forbidden_still_refused",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "counts the bracket depth before parsing without skipping strings: brackets inside a string value count",
        splice(
            _DISPATCH_WITH_OK,
            (
                "call = parse_request(raw)",
                _STRICT_PARSE.replace(
                    "    try:\n",
                    "    depth = deepest = 0\n    for char in raw:\n"
                    '        depth += (char in "[{") - (char in "]}")\n        deepest = max(deepest, depth)\n'
                    '    if deepest > 64:\n        raise ValueError("nested too deeply")\n    try:\n',
                ),
            ),
        ),
        ("test_dispatch_with_forbidden_still_refused",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "its parser remembers every key of the request in one set: the same key in two different objects is refused",
        splice(
            _DISPATCH_WITH_OK,
            (
                "call = parse_request(raw)",
                _STRICT_PARSE.replace(
                    "    def unique(pairs):\n", "    seen = set()\n\n    def unique(pairs):\n"
                )
                .replace(
                    "if len(keys) != len(set(keys)):", "if len(keys) != len(set(keys)) or seen & set(keys):"
                )
                .replace(
                    "        return dict(pairs)\n", "        seen.update(keys)\n        return dict(pairs)\n"
                ),
            ),
        ),
        ("test_dispatch_with_forbidden_still_refused",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "its own parser counts the size in characters, len(raw), not in UTF-8 bytes",
        splice(
            _DISPATCH_WITH_OK,
            ("call = parse_request(raw)", _STRICT_PARSE.replace('len(raw.encode("utf-8"))', "len(raw)")),
        ),
        ("test_dispatch_with_forbidden_still_refused",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "turns a ValueError from the handler into a refusal of its own, so that every refusal looks the same",
        splice(
            _DISPATCH_WITH_OK,
            (
                "    return rule.handler(arguments)",
                "    try:\n        return rule.handler(arguments)\n    except ValueError as error:\n"
                '        raise ValueError(f"{name}: {error}") from None',
            ),
        ),
        ("test_dispatch_with_handler",),
        breaks=B_HANDLER,
    ),
    WrongAnswer(
        DISPATCH_WITH,
        "refuses NaN and Infinity by looking for the words in the text: a string value 'NaN' is refused too",
        splice(
            _DISPATCH_WITH_OK,
            (
                "    call = parse_request(raw)",
                '    if type(raw) is str and ("NaN" in raw or "Infinity" in raw):\n'
                '        raise ValueError("not a JSON number")\n    call = parse_request(raw)',
            ),
        ),
        ("test_dispatch_with_numbers",),
        breaks=B_NUMBERS,
    ),
]
