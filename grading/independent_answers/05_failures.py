"""Independent answers to notebook 05, written from its prose alone (see this package's docstring)."""

from __future__ import annotations

from grading.independent_answers import IndependentAnswer

PLAIN_CHECK = """
TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "object": (dict,),
         "array": (list,), "null": (type(None),)}


def _matches(value, name):
    if name in ("integer", "number") and type(value) is bool:
        return False
    if name == "integer" and type(value) is float:
        return value.is_integer()
    return isinstance(value, TYPES[name])


def _same(a, b):
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def check_args(value, schema, path="$"):
    problems = []
    if "type" in schema:
        wanted = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_matches(value, name) for name in wanted):
            return [f"{path}: expected {schema['type']}, got {type(value).__name__}"]
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        shown = repr(value)
        if len(shown) > 100:
            shown = shown[:97] + "..."
        problems.append(f"{path}: {shown} is not one of {schema['enum']}")
    if type(value) is dict:
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{path}.{key}: missing required argument")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                problems += check_args(item, properties[key], f"{path}.{key}")
            elif extra is False:
                problems.append(f"{path}.{key}: unexpected argument")
            elif isinstance(extra, dict):
                problems += check_args(item, extra, f"{path}.{key}")
    if type(value) is list:
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{path}: needs at least {schema['minItems']} item(s)")
        if "items" in schema:
            for index, item in enumerate(value):
                problems += check_args(item, schema["items"], f"{path}[{index}]")
    return problems
"""

PLAIN_TIGHTEN = """
def tighten_average(toolbox):
    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1
"""

PLAIN_RUN = """
def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):
    def answer(payload):
        return json.dumps(payload, allow_nan=False)

    available = sorted(n for n in offered if isinstance(n, str) and n in toolbox)
    if not isinstance(name, str) or name not in offered or name not in toolbox:
        return answer({"error": f"unknown tool {name!r}", "available_tools": available})
    if not isinstance(raw_arguments, str):
        return answer({"error": f"arguments must be a string of JSON, got {type(raw_arguments).__name__}"})
    try:
        args = json.loads(raw_arguments)
    except RecursionError:
        return answer({"error": "arguments are nested too deeply"})
    except ValueError as error:
        return answer({"error": f"arguments are not valid JSON: {error}"})
    if not isinstance(args, dict):
        return answer({"error": "arguments must be a JSON object"})
    tool = toolbox[name]
    problems = check_args(args, tool.parameters)
    if problems:
        return answer({"error": "invalid arguments", "problems": problems})
    if tool.destructive:
        approved = False
        if confirm is not None:
            try:
                approved = confirm(name, copy.deepcopy(args)) is True
            except Exception as error:
                toolbox.server_log.append(f"{name}: confirm failed: {type(error).__name__}: {error}")
        if not approved:
            return answer({"error": "a human did not confirm this action; it was NOT performed"})
    try:
        return answer({"result": tool.fn(**args)})
    except ToolError as error:
        return answer({"error": str(error)})
    except Exception as error:
        toolbox.server_log.append(f"{name}: {type(error).__name__}: {error}")
        return answer({"error": f"tool {name!r} failed with {type(error).__name__}"})
"""

TABLE_CHECK = """
def _type_ok(value, type_name):
    checks = {
        "string": lambda v: type(v) is str,
        "integer": lambda v: type(v) is int or (type(v) is float and v == int(v)),
        "number": lambda v: type(v) in (int, float),
        "boolean": lambda v: type(v) is bool,
        "object": lambda v: type(v) is dict,
        "array": lambda v: type(v) is list,
        "null": lambda v: v is None,
    }
    return checks[type_name](value)


def _json_equal(left, right):
    kinds = {type(left), type(right)}
    if bool in kinds:
        return len(kinds) == 1 and left == right
    if kinds <= {int, float}:
        return left == right
    if kinds == {list}:
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if kinds == {dict}:
        return set(left) == set(right) and all(_json_equal(left[k], right[k]) for k in left)
    return len(kinds) == 1 and left == right


def _short(value):
    text = repr(value)
    return text if len(text) <= 100 else text[:97] + "..."


def check_args(value, schema, path="$"):
    declared = schema.get("type")
    if declared is not None:
        names = declared if isinstance(declared, list) else [declared]
        if not any(_type_ok(value, n) for n in names):
            return [f"{path}: expected {declared}, got {type(value).__name__}"]
    found = []
    if "enum" in schema and not any(_json_equal(value, o) for o in schema["enum"]):
        found.append(f"{path}: {_short(value)} is not one of {schema['enum']}")
    if isinstance(value, dict):
        found += [f"{path}.{k}: missing required argument" for k in schema.get("required", ()) if k not in value]
        props = schema.get("properties", {})
        other = schema.get("additionalProperties")
        for k, v in value.items():
            where = f"{path}.{k}"
            if k in props:
                found += check_args(v, props[k], where)
            elif other is False:
                found.append(where + ": unexpected argument")
            elif isinstance(other, dict):
                found += check_args(v, other, where)
    elif isinstance(value, list):
        least = schema.get("minItems")
        if least is not None and len(value) < least:
            found.append(f"{path}: needs at least {least} item(s)")
        for i, v in enumerate(value):
            if "items" in schema:
                found += check_args(v, schema["items"], f"{path}[{i}]")
    return found
"""

TABLE_TIGHTEN = '''
def tighten_average(toolbox):
    """Add minItems 1 to the numbers array, in the very schema dict."""
    numbers = toolbox["average"].parameters["properties"]["numbers"]
    numbers.update(minItems=1)
    return None
'''

TABLE_RUN = """
class _Refusal(Exception):
    def __init__(self, payload):
        super().__init__(payload)
        self.payload = payload


def _parsed(raw_arguments):
    if type(raw_arguments) is not str and not isinstance(raw_arguments, str):
        raise _Refusal({"error": f"arguments must be a string of JSON, got {type(raw_arguments).__name__}"})
    try:
        value = json.loads(raw_arguments)
    except RecursionError:
        raise _Refusal({"error": "arguments are nested too deeply"}) from None
    except ValueError as problem:
        raise _Refusal({"error": f"arguments are not valid JSON: {problem}"}) from None
    if type(value) is not dict:
        raise _Refusal({"error": "arguments must be a JSON object"})
    return value


def _confirmed(toolbox, name, args, confirm):
    if confirm is None:
        return False
    try:
        return confirm(name, copy.deepcopy(args)) is True
    except Exception as problem:
        toolbox.server_log.append(f"{name}: confirm failed: {type(problem).__name__}: {problem}")
        return False


def _steps(toolbox, name, raw_arguments, offered, confirm):
    if not (isinstance(name, str) and name in offered and name in toolbox):
        names = sorted(n for n in offered if isinstance(n, str) and n in toolbox)
        raise _Refusal({"error": f"unknown tool {name!r}", "available_tools": names})
    args = _parsed(raw_arguments)
    tool = toolbox[name]
    problems = check_args(args, tool.parameters)
    if problems:
        raise _Refusal({"error": "invalid arguments", "problems": problems})
    if tool.destructive and not _confirmed(toolbox, name, args, confirm):
        raise _Refusal({"error": "a human did not confirm this action; it was NOT performed"})
    try:
        return {"result": tool.fn(**args)}
    except ToolError as problem:
        return {"error": str(problem)}


def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):
    try:
        try:
            payload = _steps(toolbox, name, raw_arguments, offered, confirm)
        except _Refusal as refusal:
            payload = refusal.payload
        return json.dumps(payload, allow_nan=False)
    except Exception as problem:
        toolbox.server_log.append(f"{name}: {type(problem).__name__}: {problem}")
        return json.dumps({"error": f"tool {name!r} failed with {type(problem).__name__}"})
"""

TERSE_CHECK = """
def check_args(value, schema, path="$"):
    def is_a(v, t):
        if type(v) is bool:
            return t == "boolean"
        return {"string": type(v) is str, "integer": type(v) is int or (type(v) is float and v % 1 == 0),
                "number": type(v) in (int, float), "object": type(v) is dict, "array": type(v) is list,
                "null": v is None}.get(t, False)

    def eq(a, b):
        if (type(a) is bool) != (type(b) is bool):
            return False
        if type(a) in (list, tuple) and type(b) in (list, tuple):
            return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))
        if type(a) is dict and type(b) is dict:
            return a.keys() == b.keys() and all(eq(a[k], b[k]) for k in a)
        return a == b

    t = schema.get("type")
    if t is not None and not any(is_a(value, x) for x in (t if type(t) is list else [t])):
        return [f"{path}: expected {t}, got {type(value).__name__}"]
    out = []
    if "enum" in schema and not any(eq(value, o) for o in schema["enum"]):
        r = repr(value)
        out.append(f"{path}: {r if len(r) <= 100 else r[:97] + '...'} is not one of {schema['enum']}")
    if type(value) is dict:
        out += [f"{path}.{k}: missing required argument" for k in schema.get("required", []) if k not in value]
        extra = schema.get("additionalProperties")
        for k, v in value.items():
            sub = schema.get("properties", {}).get(k, extra if type(extra) is dict else None)
            if sub is not None:
                out += check_args(v, sub, f"{path}.{k}")
            elif extra is False:
                out.append(f"{path}.{k}: unexpected argument")
    if type(value) is list:
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: needs at least {schema['minItems']} item(s)")
        if "items" in schema:
            out += [p for i, v in enumerate(value) for p in check_args(v, schema["items"], f"{path}[{i}]")]
    return out
"""

TERSE_TIGHTEN = """
def tighten_average(toolbox):
    schema = toolbox["average"].parameters
    schema["properties"]["numbers"]["minItems"] = 1
"""

TERSE_RUN = """
def run_tool_call(toolbox, name, raw_arguments, offered, confirm=None):
    log = toolbox.server_log
    try:
        if type(name) is not str or name not in offered or name not in toolbox:
            return json.dumps({"error": f"unknown tool {name!r}",
                               "available_tools": sorted(x for x in offered if type(x) is str and x in toolbox)})
        if type(raw_arguments) is not str:
            return json.dumps({"error": f"arguments must be a string of JSON, got {type(raw_arguments).__name__}"})
        try:
            args = json.loads(raw_arguments)
        except RecursionError:
            return json.dumps({"error": "arguments are nested too deeply"})
        except ValueError as e:
            return json.dumps({"error": f"arguments are not valid JSON: {e}"})
        if type(args) is not dict:
            return json.dumps({"error": "arguments must be a JSON object"})
        tool = toolbox[name]
        bad = check_args(args, tool.parameters)
        if bad:
            return json.dumps({"error": "invalid arguments", "problems": bad})
        if tool.destructive:
            ok = False
            try:
                ok = confirm is not None and confirm(name, copy.deepcopy(args)) is True
            except Exception as e:
                log.append(f"{name}: confirm failed: {type(e).__name__}: {e}")
            if not ok:
                return json.dumps({"error": "a human did not confirm this action; it was NOT performed"})
        try:
            out = {"result": tool.fn(**args)}
        except ToolError as e:
            out = {"error": str(e)}
        return json.dumps(out, allow_nan=False)
    except Exception as e:
        log.append(f"{name}: {type(e).__name__}: {e}")
        return json.dumps({"error": f"tool {name!r} failed with {type(e).__name__}"})
"""

ANSWERS = [
    IndependentAnswer(
        "plain", {"check_args": PLAIN_CHECK, "tighten_average": PLAIN_TIGHTEN, "run_tool_call": PLAIN_RUN}
    ),
    IndependentAnswer(
        "table", {"check_args": TABLE_CHECK, "tighten_average": TABLE_TIGHTEN, "run_tool_call": TABLE_RUN}
    ),
    IndependentAnswer(
        "terse", {"check_args": TERSE_CHECK, "tighten_average": TERSE_TIGHTEN, "run_tool_call": TERSE_RUN}
    ),
]
