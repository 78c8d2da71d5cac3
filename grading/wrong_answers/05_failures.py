"""Plausible wrong answers to notebook 05 and the tests that catch them.

Most are a correct answer with one mistake spliced in, so each one fails for exactly the reason in its `why`.
"""

from __future__ import annotations

from grading.wrong_answers import WrongAnswer, splice

CHECK = "check_args"
TIGHTEN = "tighten_average"
RUN = "run_tool_call"
ALL_CHECK_TESTS = (
    "test_check_args_types",
    "test_check_args_enum",
    "test_check_args_objects",
    "test_check_args_arrays",
)
ALL_RUN_TESTS = (
    "test_run_tool_call_results",
    "test_run_tool_call_offered",
    "test_run_tool_call_arguments",
    "test_run_tool_call_order",
    "test_run_tool_call_destructive",
    "test_run_tool_call_confirm_copy",
    "test_run_tool_call_unexpected",
)

# The sentences of the contracts (bullets of the "Your function must" lists) the wrong answers break.
B_CHECK_OWN = "importing, wrapping or calling the reference (`course_lib.tools`) or its published answers"
B_RETURN = "return a list of problem strings, `[]` when the value fits"
B_PATH = "`{path}[{index}]` for an item of a list"
B_TYPES = "accept a value that matches any one of them"
B_BOOL_INTEGER = "never count a `bool` as an `integer` or a `number`"
B_TYPE_ONLY = "and check nothing else about that value"
B_ENUM_MESSAGE = "shortened to its first 97 followed by `...`"
B_ENUM_JSON = "compare with the `enum` options as JSON does"
B_REQUIRED = 'first report `"{path}.{key}: missing required argument"`'
B_KEYS = 'unexpected argument"` if `additionalProperties` is `False`'
B_MIN_ITEMS = "if it has fewer than `minItems` items"
B_ONLY_WHERE = "and `minItems` and `items` only to a `list`"
B_TIGHTEN_WHAT = "in the schema of the `numbers` array"
B_TIGHTEN_IN_PLACE = "make that change in place"
B_TIGHTEN_NOTHING_ELSE = "change nothing else"
B_TIGHTEN_NONE = "return nothing (`None`)"
B_RUN_OWN = "importing, wrapping or calling anything from `course_lib.tools`"
B_NEVER_RAISE = "return `json.dumps` of one dict, built by the first"
B_OFFERED = "if `name` is not a `str`, not in `offered`, or not registered in `toolbox`"
B_AVAILABLE = "list in `available_tools` the sorted names"
B_DUPLICATES = "kept as given, duplicates included"
B_NOT_STR = "if `raw_arguments` is not a `str`"
B_PARSE = "a `RecursionError` gives"
B_OBJECT = "if what it parsed is not a `dict`"
B_SCHEMA = "for every tool, destructive or not"
B_CONFIRM = "unless `confirm` is given and returns exactly `True`"
B_CONFIRM_WHICH = "for a destructive tool, answer"
B_CONFIRM_AFTER = "ask it only about arguments that passed step 3"
B_CONFIRM_COPY = "with a deep copy of the arguments"
B_CONFIRM_RAISES = "treat a `confirm` that raises as a no"
B_RUN = 'or `{"error": str(error)}` when the tool raises a `ToolError`'
B_ALLOW_NAN = "encode with `json.dumps(..., allow_nan=False)`"
B_ONLY_EXCEPTION = "catch only `Exception`: a `BaseException` that is not one"
B_UNEXPECTED = "the type name, never the message"

_CHECK_OK = '''
def check_args(value, schema, path="$"):
    """A correct answer, written differently from the notebook's."""
    python_types = {"string": str, "boolean": bool, "object": dict, "array": list}

    def matches(v, name):
        if name == "null":
            return v is None
        if name == "integer":
            return type(v) is int or (type(v) is float and v.is_integer())
        if name == "number":
            return type(v) in (int, float)
        return isinstance(v, python_types[name])

    def equal(a, b):
        if type(a) is bool or type(b) is bool:
            return type(a) is type(b) and a == b
        if type(a) is list or type(b) is list:
            return type(a) is type(b) and len(a) == len(b) and all(map(equal, a, b))
        if type(a) is dict or type(b) is dict:
            return type(a) is type(b) and set(a) == set(b) and all(equal(a[k], b[k]) for k in a)
        return a == b

    expected = schema.get("type")
    if expected is not None:
        options = expected if type(expected) is list else [expected]
        if not any(matches(value, option) for option in options):
            return [f"{path}: expected {expected}, got {type(value).__name__}"]
    out = []
    if "enum" in schema:
        if not any(equal(value, option) for option in schema["enum"]):
            shown = repr(value)
            if len(shown) > 100:
                shown = shown[:97] + "..."
            out.append(f"{path}: {shown} is not one of {schema['enum']}")
    if type(value) is dict:
        out += [f"{path}.{k}: missing required argument" for k in schema.get("required", []) if k not in value]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for k, v in value.items():
            if k in props:
                out += check_args(v, props[k], f"{path}.{k}")
            elif extra is False:
                out.append(f"{path}.{k}: unexpected argument")
            elif type(extra) is dict:
                out += check_args(v, extra, f"{path}.{k}")
    if type(value) is list:
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: needs at least {schema['minItems']} item(s)")
        for i, v in enumerate(value):
            if "items" in schema:
                out += check_args(v, schema["items"], f"{path}[{i}]")
    return out
'''

_RUN_OK = '''
def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):
    """A correct answer, to splice mistakes into."""
    def reply(**fields):
        return json.dumps(fields, allow_nan=False)

    names = [n for n in offered if isinstance(n, str)]
    if not isinstance(name, str) or name not in names or name not in toolbox:
        return reply(error=f"unknown tool {name!r}", available_tools=sorted(n for n in names if n in toolbox))
    if not isinstance(raw_arguments, str):
        return reply(error=f"arguments must be a string of JSON, got {type(raw_arguments).__name__}")
    try:
        arguments = json.loads(raw_arguments)
    except RecursionError:
        return reply(error="arguments are nested too deeply")
    except ValueError as error:
        return reply(error=f"arguments are not valid JSON: {error}")
    if not isinstance(arguments, dict):
        return reply(error="arguments must be a JSON object")
    tool = toolbox[name]
    problems = check_args(arguments, tool.parameters)
    if problems:
        return reply(error="invalid arguments", problems=problems)
    if tool.destructive:
        approved = False
        if confirm is not None:
            try:
                approved = confirm(name, copy.deepcopy(arguments)) is True
            except Exception as error:
                toolbox.server_log.append(f"{name}: confirm failed: {type(error).__name__}: {error}")
        if not approved:
            return reply(error="a human did not confirm this action; it was NOT performed")
    try:
        return reply(result=tool.fn(**arguments))
    except ToolError as error:
        return reply(error=str(error))
    except Exception as error:
        toolbox.server_log.append(f"{name}: {type(error).__name__}: {error}")
        return reply(error=f"tool {name!r} failed with {type(error).__name__}")
'''

_CONFIRM_BLOCK = """    if tool.destructive:
        approved = False
        if confirm is not None:
            try:
                approved = confirm(name, copy.deepcopy(arguments)) is True
            except Exception as error:
                toolbox.server_log.append(f"{name}: confirm failed: {type(error).__name__}: {error}")
        if not approved:
            return reply(error="a human did not confirm this action; it was NOT performed")
"""
_SCHEMA_BLOCK = """    problems = check_args(arguments, tool.parameters)
    if problems:
        return reply(error="invalid arguments", problems=problems)
"""

_ENUM_BLOCK = """    if "enum" in schema:
        if not any(equal(value, option) for option in schema["enum"]):
            shown = repr(value)
            if len(shown) > 100:
                shown = shown[:97] + "..."
            out.append(f"{path}: {shown} is not one of {schema['enum']}")
"""


WRONG_ANSWERS = [
    # ---- Part A: check_args ----------------------------------------------------------------------------
    WrongAnswer(
        CHECK,
        "echoes a long enum value whole instead of shortening it to 97 characters and ...",
        splice(
            _CHECK_OK,
            ('            if len(shown) > 100:\n                shown = shown[:97] + "..."\n', ""),
        ),
        ("test_check_args_enum",),
        breaks=B_ENUM_MESSAGE,
    ),
    WrongAnswer(
        CHECK,
        "isinstance(v, int) for integer and number: True passes as 1",
        splice(
            _CHECK_OK,
            ("return type(v) is int or (", "return isinstance(v, int) or ("),
            ("return type(v) in (int, float)", "return isinstance(v, (int, float))"),
        ),
        ("test_check_args_types",),
        breaks=B_BOOL_INTEGER,
    ),
    WrongAnswer(
        CHECK,
        "integer means type int only: 3.0, which JSON Schema counts as an integer, is refused",
        splice(
            _CHECK_OK,
            ("return type(v) is int or (type(v) is float and v.is_integer())", "return type(v) is int"),
        ),
        ("test_check_args_types",),
        breaks=B_BOOL_INTEGER,
    ),
    WrongAnswer(
        CHECK,
        "a wrong type does not stop the checks: the enum and keys of a mistyped value are reported too",
        splice(
            _CHECK_OK,
            (
                '            return [f"{path}: expected {expected}, got {type(value).__name__}"]\n    out = []\n',
                '            out = [f"{path}: expected {expected}, got {type(value).__name__}"]\n'
                "        else:\n            out = []\n    else:\n        out = []\n",
            ),
        ),
        ("test_check_args_types",),
        breaks=B_TYPE_ONLY,
    ),
    WrongAnswer(
        CHECK,
        "enum compared with `in` (==): True matches 1 and 0 matches False",
        splice(
            _CHECK_OK,
            (
                'if not any(equal(value, option) for option in schema["enum"]):',
                'if value not in schema["enum"]:',
            ),
        ),
        ("test_check_args_enum",),
        breaks=B_ENUM_JSON,
    ),
    WrongAnswer(
        CHECK,
        "enum compared with exact types: 1.0 no longer equals 1",
        splice(
            _CHECK_OK,
            (
                'if not any(equal(value, option) for option in schema["enum"]):',
                'if not any(type(value) is type(o) and value == o for o in schema["enum"]):',
            ),
        ),
        ("test_check_args_enum",),
        breaks=B_ENUM_JSON,
    ),
    WrongAnswer(
        CHECK,
        "ignores additionalProperties: an invented argument passes the check",
        splice(
            _CHECK_OK,
            (
                '            elif extra is False:\n                out.append(f"{path}.{k}: unexpected argument")\n',
                "",
            ),
        ),
        ("test_check_args_objects",),
        breaks=B_KEYS,
    ),
    WrongAnswer(
        CHECK,
        "reports missing required arguments after the per-key problems instead of first",
        splice(
            _CHECK_OK,
            (
                '        out += [f"{path}.{k}: missing required argument" for k in schema.get("required", []) '
                "if k not in value]\n",
                "",
            ),
            (
                "    if type(value) is list:\n",
                '    if type(value) is dict:\n        out += [f"{path}.{k}: missing required argument" '
                'for k in schema.get("required", []) if k not in value]\n    if type(value) is list:\n',
            ),
        ),
        ("test_check_args_objects",),
        breaks=B_REQUIRED,
    ),
    WrongAnswer(
        CHECK,
        "ignores minItems, so the empty list still reaches the division",
        splice(
            _CHECK_OK,
            (
                '        if len(value) < schema.get("minItems", 0):\n'
                "            out.append(f\"{path}: needs at least {schema['minItems']} item(s)\")\n",
                "",
            ),
        ),
        ("test_check_args_arrays",),
        breaks=B_MIN_ITEMS,
    ),
    WrongAnswer(
        CHECK,
        "writes an item's path as $.numbers.1 instead of $.numbers[1]",
        splice(_CHECK_OK, ('f"{path}[{i}]"', 'f"{path}.{i}"')),
        ("test_check_args_arrays",),
        breaks=B_PATH,
    ),
    WrongAnswer(
        CHECK,
        "imports the library's check_args instead of writing one",
        "from course_lib.tools import check_args\n",
        ALL_CHECK_TESTS,
        breaks=B_CHECK_OWN,
    ),
    WrongAnswer(
        CHECK,
        "returns the reference's published answers, which hold only the calls the notebook shows",
        'def check_args(value, schema, path="$"):\n    return reference_problems(value, schema)\n',
        ALL_CHECK_TESTS,
        breaks=B_CHECK_OWN,
    ),
    WrongAnswer(
        CHECK,
        "hides the reference behind a helper function of its own",
        "import course_lib.tools as tools_lib\n\n\n"
        "def _inner(value, schema, path):\n    return tools_lib.check_args(value, schema, path)\n\n\n"
        'def check_args(value, schema, path="$"):\n    return _inner(value, schema, path)\n',
        ALL_CHECK_TESTS,
        breaks=B_CHECK_OWN,
    ),
    # ---- Part A: tighten_average ---------------------------------------------------------------------------
    WrongAnswer(
        TIGHTEN,
        "puts minItems on the arguments object instead of on the numbers array",
        'def tighten_average(toolbox):\n    toolbox["average"].parameters["minItems"] = 1\n',
        ("test_tighten_average",),
        breaks=B_TIGHTEN_WHAT,
    ),
    WrongAnswer(
        TIGHTEN,
        "edits the spec tool_specs returns: a copy, so the checked schema never changes",
        "def tighten_average(toolbox):\n"
        '    spec = tool_specs(toolbox, ["average"], "chat")[0]\n'
        '    spec["function"]["parameters"]["properties"]["numbers"]["minItems"] = 1\n',
        ("test_tighten_average",),
        breaks=B_TIGHTEN_IN_PLACE,
    ),
    WrongAnswer(
        TIGHTEN,
        "replaces the numbers schema wholesale and loses its items rule",
        "def tighten_average(toolbox):\n"
        '    toolbox["average"].parameters["properties"]["numbers"] = {"type": "array", "minItems": 1}\n',
        ("test_tighten_average",),
        breaks=B_TIGHTEN_NOTHING_ELSE,
    ),
    # ---- Part B: run_tool_call -----------------------------------------------------------------------------
    WrongAnswer(
        RUN,
        "json.dumps without allow_nan=False: a NaN or Infinity result goes to the model as NaN, which is not JSON",
        splice(_RUN_OK, ("return json.dumps(fields, allow_nan=False)", "return json.dumps(fields)")),
        ("test_run_tool_call_unexpected",),
        breaks=B_ALLOW_NAN,
    ),
    WrongAnswer(
        RUN,
        "checks only that the tool is registered, so a tool the request did not offer runs",
        splice(_RUN_OK, ("or name not in names or name not in toolbox", "or name not in toolbox")),
        ("test_run_tool_call_offered",),
        breaks=B_OFFERED,
    ),
    WrongAnswer(
        RUN,
        "lists every registered tool in available_tools, revealing what the request did not offer",
        splice(
            _RUN_OK,
            ("available_tools=sorted(n for n in names if n in toolbox)", "available_tools=toolbox.names"),
        ),
        ("test_run_tool_call_offered",),
        breaks=B_AVAILABLE,
    ),
    WrongAnswer(
        RUN,
        "drops duplicates from available_tools: a name offered twice is listed once",
        splice(
            _RUN_OK,
            (
                "available_tools=sorted(n for n in names if n in toolbox)",
                "available_tools=sorted({n for n in names if n in toolbox})",
            ),
        ),
        ("test_run_tool_call_offered",),
        breaks=B_DUPLICATES,
    ),
    WrongAnswer(
        RUN,
        "no check that the name is a str: an unhashable name raises TypeError",
        splice(
            _RUN_OK,
            (
                "    names = [n for n in offered if isinstance(n, str)]\n"
                "    if not isinstance(name, str) or name not in names or name not in toolbox:\n",
                "    names = list(offered)\n    if name not in set(names) or name not in toolbox:\n",
            ),
        ),
        ("test_run_tool_call_offered",),
        breaks=B_OFFERED,
    ),
    WrongAnswer(
        RUN,
        "catches only json.JSONDecodeError: deep nesting raises RecursionError out of the dispatcher",
        splice(
            _RUN_OK,
            (
                '    except RecursionError:\n        return reply(error="arguments are nested too deeply")\n'
                "    except ValueError as error:\n",
                "    except json.JSONDecodeError as error:\n",
            ),
        ),
        ("test_run_tool_call_arguments",),
        breaks=B_PARSE,
    ),
    WrongAnswer(
        RUN,
        "no check that the arguments are a str: bytes parse and a dict raises TypeError",
        splice(
            _RUN_OK,
            (
                "    if not isinstance(raw_arguments, str):\n"
                '        return reply(error=f"arguments must be a string of JSON, '
                'got {type(raw_arguments).__name__}")\n',
                "",
            ),
        ),
        ("test_run_tool_call_arguments",),
        breaks=B_NOT_STR,
    ),
    WrongAnswer(
        RUN,
        "passes a JSON array or number on as the arguments (no check for an object)",
        splice(
            _RUN_OK,
            (
                "    if not isinstance(arguments, dict):\n"
                '        return reply(error="arguments must be a JSON object")\n',
                "",
            ),
        ),
        ("test_run_tool_call_arguments",),
        breaks=B_OBJECT,
    ),
    WrongAnswer(
        RUN,
        "asks the human before validating the arguments",
        splice(_RUN_OK, (_SCHEMA_BLOCK + _CONFIRM_BLOCK, _CONFIRM_BLOCK + _SCHEMA_BLOCK)),
        ("test_run_tool_call_destructive", "test_run_tool_call_order"),
        breaks=B_CONFIRM_AFTER,
    ),
    WrongAnswer(
        RUN,
        "skips the schema for a destructive tool once a human has confirmed it",
        splice(
            _RUN_OK,
            (
                _SCHEMA_BLOCK,
                _SCHEMA_BLOCK.replace("    if problems:", "    if problems and not tool.destructive:"),
            ),
        ),
        ("test_run_tool_call_destructive",),
        breaks=B_SCHEMA,
    ),
    WrongAnswer(
        RUN,
        "takes any truthy answer from confirm as a yes",
        splice(_RUN_OK, ("copy.deepcopy(arguments)) is True", "copy.deepcopy(arguments))")),
        ("test_run_tool_call_destructive",),
        breaks=B_CONFIRM,
    ),
    WrongAnswer(
        RUN,
        "hands confirm the live arguments, so the dialog can change what runs",
        splice(_RUN_OK, ("confirm(name, copy.deepcopy(arguments))", "confirm(name, arguments)")),
        ("test_run_tool_call_confirm_copy",),
        breaks=B_CONFIRM_COPY,
    ),
    WrongAnswer(
        RUN,
        "sends the exception's message to the model",
        splice(
            _RUN_OK,
            (
                'return reply(error=f"tool {name!r} failed with {type(error).__name__}")',
                'return reply(error=f"tool {name!r} failed with {type(error).__name__}: {error}")',
            ),
        ),
        ("test_run_tool_call_unexpected",),
        breaks=B_UNEXPECTED,
    ),
    WrongAnswer(
        RUN,
        "encodes the result outside the try: a result JSON cannot hold raises TypeError",
        splice(
            _RUN_OK,
            (
                "        return reply(result=tool.fn(**arguments))\n",
                "        result = tool.fn(**arguments)\n",
            ),
            (
                'return reply(error=f"tool {name!r} failed with {type(error).__name__}")',
                'return reply(error=f"tool {name!r} failed with {type(error).__name__}")\n'
                "    return reply(result=result)",
            ),
        ),
        ("test_run_tool_call_unexpected",),
        breaks=B_UNEXPECTED,
    ),
    WrongAnswer(
        RUN,
        "catches BaseException around the tool: a KeyboardInterrupt becomes an error result instead of stopping",
        splice(
            _RUN_OK,
            (
                "    except Exception as error:\n"
                '        toolbox.server_log.append(f"{name}: {type(error).__name__}: {error}")\n',
                "    except BaseException as error:\n"
                '        toolbox.server_log.append(f"{name}: {type(error).__name__}: {error}")\n',
            ),
        ),
        ("test_run_tool_call_unexpected",),
        breaks=B_ONLY_EXCEPTION,
    ),
    WrongAnswer(
        RUN,
        "catches only ToolError: any other exception escapes the dispatcher",
        splice(
            _RUN_OK,
            (
                "    except Exception as error:\n"
                '        toolbox.server_log.append(f"{name}: {type(error).__name__}: {error}")\n'
                '        return reply(error=f"tool {name!r} failed with {type(error).__name__}")\n',
                "",
            ),
        ),
        ("test_run_tool_call_unexpected",),
        breaks=B_UNEXPECTED,
    ),
    WrongAnswer(
        RUN,
        "imports the library's run_tool_call instead of writing one",
        "from course_lib.tools import run_tool_call\n",
        ALL_RUN_TESTS,
        breaks=B_RUN_OWN,
    ),
    WrongAnswer(
        RUN,
        "wraps the library's run_tool_call in a function of its own",
        "import course_lib.tools as tools_lib\n\n\n"
        "def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):\n"
        "    return tools_lib.run_tool_call(toolbox, name, raw_arguments, offered, confirm)\n",
        ALL_RUN_TESTS,
        breaks=B_RUN_OWN,
    ),
    WrongAnswer(
        RUN,
        "hides the library's run_tool_call behind a helper",
        "import course_lib.tools as tools_lib\n\n\n"
        "def _dispatch(*args, **kwargs):\n    return tools_lib.run_tool_call(*args, **kwargs)\n\n\n"
        "def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):\n"
        "    return _dispatch(toolbox, name, raw_arguments, offered, confirm=confirm)\n",
        ALL_RUN_TESTS,
        breaks=B_RUN_OWN,
    ),
    WrongAnswer(
        CHECK,
        "refuses every value: a problem for each, valid or not",
        'def check_args(value, schema, path="$"):\n    return [f"{path}: refused"]\n',
        ALL_CHECK_TESTS,
        breaks=B_RETURN,
    ),
    WrongAnswer(
        CHECK,
        "returns its input unchanged, the value it was given, instead of a list of problems",
        'def check_args(value, schema, path="$"):\n    return value\n',
        ALL_CHECK_TESTS,
        breaks=B_RETURN,
    ),
    WrongAnswer(
        RUN,
        "refuses every call: an error result for each, nothing ever runs",
        "def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):\n"
        '    return json.dumps({"error": "refused"})\n',
        ALL_RUN_TESTS,
        breaks=B_RUN,
    ),
    WrongAnswer(
        RUN,
        "returns its input unchanged, the raw arguments: nothing parsed, checked or run",
        "def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):\n    return raw_arguments\n",
        ALL_RUN_TESTS,
        breaks=B_NEVER_RAISE,
    ),
    WrongAnswer(
        CHECK,
        'tries only the first name of a list of types: None fails ["string", "null"]',
        splice(_CHECK_OK, ("options = expected if", "options = expected[:1] if")),
        ("test_check_args_types",),
        breaks=B_TYPES,
    ),
    WrongAnswer(
        CHECK,
        "applies minItems to anything with a length: a short string or dict is refused too",
        splice(
            _CHECK_OK,
            (
                "    if type(value) is list:\n",
                '    if type(value) in (str, dict) and len(value) < schema.get("minItems", 0):\n'
                "        out.append(f\"{path}: needs at least {schema['minItems']} item(s)\")\n"
                "    if type(value) is list:\n",
            ),
        ),
        ("test_check_args_arrays",),
        breaks=B_ONLY_WHERE,
    ),
    WrongAnswer(
        TIGHTEN,
        "tightens the schema and returns the toolbox instead of nothing",
        "def tighten_average(toolbox):\n"
        '    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1\n'
        "    return toolbox\n",
        ("test_tighten_average",),
        breaks=B_TIGHTEN_NONE,
    ),
    WrongAnswer(
        RUN,
        "a confirm that raises is a no, but nothing is written to server_log",
        splice(
            _RUN_OK,
            (
                'toolbox.server_log.append(f"{name}: confirm failed: {type(error).__name__}: {error}")',
                "pass",
            ),
        ),
        ("test_run_tool_call_destructive",),
        breaks=B_CONFIRM_RAISES,
    ),
    # ---- issue 35: the boundaries the hidden tests did not reach ----------------------------------------------
    WrongAnswer(
        CHECK,
        "compares enum lists with zip and no length check: [1] equals [1, 2]",
        splice(
            _CHECK_OK,
            (
                "type(a) is type(b) and len(a) == len(b) and all(map(equal, a, b))",
                "type(a) is type(b) and all(map(equal, a, b))",
            ),
        ),
        ("test_check_args_enum",),
        breaks=B_ENUM_JSON,
    ),
    WrongAnswer(
        CHECK,
        "compares enum numbers as floats: 2**53 + 1 equals 2.0**53, and 10**400 raises OverflowError",
        splice(
            _CHECK_OK,
            (
                "        return a == b\n",
                "        if type(a) in (int, float) and type(b) in (int, float):\n"
                "            return float(a) == float(b)\n"
                "        return a == b\n",
            ),
        ),
        ("test_check_args_enum",),
        breaks=B_ENUM_JSON,
    ),
    WrongAnswer(
        CHECK,
        "tests integer with float(v).is_integer(): an int too large for a float raises OverflowError",
        splice(
            _CHECK_OK,
            (
                "return type(v) is int or (type(v) is float and v.is_integer())",
                "return type(v) in (int, float) and float(v).is_integer()",
            ),
        ),
        ("test_check_args_types",),
        breaks=B_TYPES,
    ),
    WrongAnswer(
        CHECK,
        "checks a dict's keys in alphabetical order, not in the dict's own order",
        splice(
            _CHECK_OK,
            ("        for k, v in value.items():\n", "        for k, v in sorted(value.items()):\n"),
        ),
        ("test_check_args_objects",),
        breaks=B_KEYS,
    ),
    WrongAnswer(
        CHECK,
        "reports the missing required names in alphabetical order, not in the order of required",
        splice(
            _CHECK_OK, ('for k in schema.get("required", [])', 'for k in sorted(schema.get("required", []))')
        ),
        ("test_check_args_objects",),
        breaks=B_REQUIRED,
    ),
    WrongAnswer(
        RUN,
        "parses the arguments before checking the name: a call to a tool not offered gets a JSON error",
        splice(
            _RUN_OK,
            (
                "    names = [n for n in offered if isinstance(n, str)]\n"
                "    if not isinstance(name, str) or name not in names or name not in toolbox:\n"
                '        return reply(error=f"unknown tool {name!r}", '
                "available_tools=sorted(n for n in names if n in toolbox))\n",
                "",
            ),
            (
                "    if not isinstance(arguments, dict):\n",
                "    names = [n for n in offered if isinstance(n, str)]\n"
                "    if not isinstance(name, str) or name not in names or name not in toolbox:\n"
                '        return reply(error=f"unknown tool {name!r}", '
                "available_tools=sorted(n for n in names if n in toolbox))\n"
                "    if not isinstance(arguments, dict):\n",
            ),
        ),
        ("test_run_tool_call_order",),
        breaks=B_NEVER_RAISE,
    ),
    WrongAnswer(
        RUN,
        "hands confirm a shallow copy: a list inside the arguments is still shared with what runs",
        splice(_RUN_OK, ("confirm(name, copy.deepcopy(arguments))", "confirm(name, dict(arguments))")),
        ("test_run_tool_call_confirm_copy",),
        breaks=B_CONFIRM_COPY,
    ),
    WrongAnswer(
        RUN,
        "asks confirm about every tool when one is given, so a human's no stops a harmless lookup",
        splice(_RUN_OK, ("    if tool.destructive:\n", "    if tool.destructive or confirm is not None:\n")),
        ("test_run_tool_call_destructive",),
        breaks=B_CONFIRM_WHICH,
    ),
    WrongAnswer(
        RUN,
        "passes confirm the arguments first and the name second",
        splice(
            _RUN_OK, ("confirm(name, copy.deepcopy(arguments))", "confirm(copy.deepcopy(arguments), name)")
        ),
        ("test_run_tool_call_confirm_copy",),
        breaks=B_CONFIRM_COPY,
    ),
    # ---- held-out wrong answers of a red-team check (issue 35), each caught by a hidden check added with it ----
    WrongAnswer(
        CHECK,
        "tests additionalProperties with `not extra`: an empty schema {} refuses every extra key",
        splice(
            _CHECK_OK,
            (
                'extra = schema.get("additionalProperties")',
                'extra = schema.get("additionalProperties", True)',
            ),
            ("elif extra is False:", "elif not extra:"),
        ),
        ("test_check_args_objects",),
        breaks=B_KEYS,
    ),
    WrongAnswer(
        CHECK,
        "checks required on a list or a string too: ['x'] lacks its required names",
        splice(
            _CHECK_OK,
            (
                '    if type(value) is dict:\n        out += [f"{path}.{k}: missing required argument"',
                '    if type(value) in (dict, list, str):\n        out += [f"{path}.{k}: missing required argument"',
            ),
            ("        props = schema.get(", "    if type(value) is dict:\n        props = schema.get("),
        ),
        ("test_check_args_objects",),
        breaks="apply `required`, `properties` and `additionalProperties` only to a `dict`",
    ),
    WrongAnswer(
        CHECK,
        "reports the enum problem last, after the problems of a dict's keys or a list's items",
        splice(_CHECK_OK, (_ENUM_BLOCK, ""), ("    return out\n", _ENUM_BLOCK + "    return out\n")),
        ("test_check_args_enum",),
        breaks=B_RETURN,
    ),
    WrongAnswer(
        TIGHTEN,
        "tightens every tool with a numbers array, not only average",
        "def tighten_average(toolbox):\n"
        "    for tool_name in toolbox.names:\n"
        '        numbers = toolbox[tool_name].parameters.get("properties", {}).get("numbers")\n'
        "        if numbers is not None:\n"
        '            numbers["minItems"] = 1\n',
        ("test_tighten_average",),
        breaks=B_TIGHTEN_NOTHING_ELSE,
    ),
    # ---- a second red-team round (issue 35): held-out wrong answers, each caught by a hidden check added with it ----
    WrongAnswer(
        CHECK,
        "tests props.get(key) for truth: a key whose schema is {} is treated as not listed",
        splice(_CHECK_OK, ("            if k in props:\n", "            if props.get(k):\n")),
        ("test_check_args_objects",),
        "check a key listed in `properties` against its schema",
    ),
    WrongAnswer(
        CHECK,
        "skips an empty enum: with no options, every value is accepted",
        splice(_CHECK_OK, ('    if "enum" in schema:\n', '    if schema.get("enum"):\n')),
        ("test_check_args_enum",),
        "when the value equals none of the `enum` options",
    ),
]
