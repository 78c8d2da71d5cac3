"""Notebook 05's differential families (course_grade.score.oracle.n05_failures): each sentence-level misreading
below, a small change to the instructor's solution, is caught by some family of its part; the instructor's
solution and every independent answer agree with the reference on every family.

Not drawn here (open questions of the prose, decided elsewhere): an `offered` holding a name twice, and a tool or
a `confirm` raising `SystemExit` or `KeyboardInterrupt`.
"""

# ruff: noqa: E501 - each misreading reads best as one edit on one line

from __future__ import annotations

from collections.abc import Iterator

import pytest

from course_grade.score.oracle import judge as judging
from course_grade.score.oracle.judge import Disagreement, judge
from course_grade.score.oracle.registry import parts
from grading.differential import _cells_before, answer, disagreements
from grading.independent_answers import independent

ASSIGNMENT = "05_failures"
NAMES = ("check_args", "tighten_average", "run_tool_call")


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
    monkeypatch.setattr(judging, "SHRINK_SECONDS", 0.0)
    yield


def caught_by(name: str, source: str) -> str | None:
    """The first family of `name` that tells `source` from the reference, or None."""
    with answer(ASSIGNMENT, name, source) as namespace:
        for key in parts(ASSIGNMENT)[name].families:
            try:
                judge(f"{ASSIGNMENT}.{name}", key, namespace[name])
            except Disagreement:
                return key
    return None


CHECK_TYPE = "names = wanted if isinstance(wanted, list) else [wanted]"
CHECK_ENUM = 'shown = repr(value) if len(repr(value)) <= 100 else repr(value)[:97] + "..."'
CHECK_KEYS = "        for key, item in value.items():\n            if key in properties:"
RUN_CONFIRM = "approved = confirm(name, copy.deepcopy(args)) is True"

MISREADINGS: list[tuple[str, str, tuple[tuple[str, str], ...]]] = [
    # Part A: check_args
    ("check_args", "a schema without type is read as type object",
     (('if "type" in schema:\n        wanted = schema["type"]', 'if True:\n        wanted = schema.get("type", "object")'),)),
    ("check_args", "a list of types must all match, not any one",
     (("if not any(fits[name](value) for name in names):", "if not all(fits[name](value) for name in names):"),)),
    ("check_args", "a bool passes as a number (only integer refuses it)",
     (('"number": is_number,', '"number": lambda v: isinstance(v, (int, float)),'),)),
    ("check_args", "a float with no fractional part is an integer only when small enough to be exact",
     (("(isinstance(v, int) or v.is_integer())", "(isinstance(v, int) or (v.is_integer() and abs(v) < 2**53))"),)),
    ("check_args", "the type problem names the list of names, not the schema's value as written",
     (('return [f"{path}: expected {wanted}, got', 'return [f"{path}: expected {names}, got'),)),
    ("check_args", "the type problem names the JSON type of the value, not its Python type",
     (('got {type(value).__name__}"]', 'got {\'boolean\' if isinstance(value, bool) else \'null\' if value is None else type(value).__name__}"]'),)),
    ("check_args", "a wrong type still has its enum checked",
     (('            return [f"{path}: expected {wanted}, got {type(value).__name__}"]\n    problems = []\n',
       '            problems = [f"{path}: expected {wanted}, got {type(value).__name__}"]\n'
       '            if "enum" in schema:\n                problems.append(f"{path}: {value!r} is not one of {schema[\'enum\']}")\n'
       '            return problems\n    problems = []\n'),)),
    ("check_args", "shortens a repr of 100 characters or more",
     ((CHECK_ENUM, 'shown = repr(value) if len(repr(value)) < 100 else repr(value)[:97] + "..."'),)),
    ("check_args", "shortens to 100 characters followed by ...",
     ((CHECK_ENUM, 'shown = repr(value) if len(repr(value)) <= 100 else repr(value)[:100] + "..."'),)),
    ("check_args", "shortens str(value), not its repr",
     ((CHECK_ENUM, 'shown = repr(value) if len(repr(value)) <= 100 else str(value)[:97] + "..."'),)),
    ("check_args", "compares dicts in the enum key order and all",
     (("return a.keys() == b.keys() and all(", "return list(a) == list(b) and all("),)),
    ("check_args", "compares lists with == (so [True] equals [1])",
     (("return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))", "return a == b"),)),
    ("check_args", "an empty enum accepts everything",
     (('if "enum" in schema and not any(', 'if schema.get("enum") and not any('),)),
    ("check_args", "a required key present with null counts as missing",
     (("if key not in value]", "if value.get(key) is None]"),)),
    ("check_args", "reports only the first missing required name",
     (("if key not in value]", "if key not in value][:1]"),)),
    ("check_args", "checks the keys in the order of properties, then the others",
     ((CHECK_KEYS, "        for key, item in sorted(value.items(), key=lambda pair: pair[0] not in properties):\n"
                   "            if key in properties:"),)),
    ("check_args", "checks a listed key against additionalProperties too when that is a schema",
     (("                problems += check_args(item, properties[key], f\"{path}.{key}\")\n",
       "                problems += check_args(item, properties[key], f\"{path}.{key}\")\n"
       "                if isinstance(extra, dict):\n                    problems += check_args(item, extra, f\"{path}.{key}\")\n"),)),
    ("check_args", "minItems counts as met only above it",
     (('len(value) < schema["minItems"]', 'len(value) <= schema["minItems"]'),)),
    ("check_args", "a list too short has its items left unchecked",
     (('            problems.append(f"{path}: needs at least {schema[\'minItems\']} item(s)")\n',
       '            return problems + [f"{path}: needs at least {schema[\'minItems\']} item(s)"]\n'),)),
    ("check_args", "numbers a list's items from 1",
     (('f"{path}[{index}]"', 'f"{path}[{index + 1}]"'),)),
    ("check_args", "writes a key's path as {path}[key]",
     (('problems += check_args(item, properties[key], f"{path}.{key}")',
       'problems += check_args(item, properties[key], f"{path}[{key}]")'),)),
    ("check_args", "the problems of the top value always start with $",
     (('problems.append(f"{path}: {shown} is not one of', 'problems.append(f"$: {shown} is not one of'),)),
    ("check_args", "walks a dict's keys against items too",
     (("    if isinstance(value, list):\n", "    if isinstance(value, list | dict):\n"),)),
    ("check_args", "writes the enum options as JSON in the problem",
     (("is not one of {schema['enum']}\")", "is not one of {json.dumps(schema['enum'])}\")"),)),
    # Part A: tighten_average
    ("tighten_average", "replaces the tool with a copy whose schema is tightened",
     (('    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1\n',
       '    import dataclasses\n    tool = toolbox["average"]\n    schema = copy.deepcopy(tool.parameters)\n'
       '    schema["properties"]["numbers"]["minItems"] = 1\n'
       '    toolbox._tools["average"] = dataclasses.replace(tool, parameters=schema)\n'),)),
    ("tighten_average", "writes minItems as true",
     (('["minItems"] = 1', '["minItems"] = True'),)),
    ("tighten_average", "requires the numbers key again beside minItems",
     (('    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1\n',
       '    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1\n'
       '    toolbox["average"].parameters["required"] = ["numbers"]\n'
       '    toolbox["average"].parameters.pop("additionalProperties")\n'),)),
    ("tighten_average", "returns the tightened schema",
     (('    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1\n',
       '    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1\n'
       '    return toolbox["average"].parameters\n'),)),
    ("tighten_average", "puts minItems on the items of numbers",
     (('["numbers"]["minItems"] = 1', '["numbers"]["items"]["minItems"] = 1'),)),
    # Part B: run_tool_call
    ("run_tool_call", "repairs a name with spaces around it",
     (("    if not isinstance(name, str) or name not in offered", "    name = name.strip() if isinstance(name, str) else name\n"
       "    if not isinstance(name, str) or name not in offered"),)),
    ("run_tool_call", "lists every offered str in available_tools, registered or not",
     (("available = sorted(n for n in offered if isinstance(n, str) and n in toolbox)",
       "available = sorted(n for n in offered if isinstance(n, str))"),)),
    ("run_tool_call", "lists available_tools in the order offered",
     (("available = sorted(n for n in offered if isinstance(n, str) and n in toolbox)",
       "available = [n for n in offered if isinstance(n, str) and n in toolbox]"),)),
    ("run_tool_call", "decodes bytes arguments instead of refusing them",
     (("    if not isinstance(raw_arguments, str):\n",
       "    if isinstance(raw_arguments, bytes):\n        raw_arguments = raw_arguments.decode()\n"
       "    if not isinstance(raw_arguments, str):\n"),)),
    ("run_tool_call", "names the parser's message without its position",
     (('return json.dumps({"error": f"arguments are not valid JSON: {error}"})',
       'return json.dumps({"error": f"arguments are not valid JSON: {getattr(error, \'msg\', error)}"})'),)),
    ("run_tool_call", "reports deep nesting as JSON that is not valid",
     (('    except RecursionError:\n        return json.dumps({"error": "arguments are nested too deeply"})\n'
       '    except ValueError as error:\n', "    except (RecursionError, ValueError) as error:\n"),)),
    ("run_tool_call", "takes null arguments as an empty object",
     (("    if not isinstance(args, dict):\n", "    if args is None:\n        args = {}\n    if not isinstance(args, dict):\n"),)),
    ("run_tool_call", "checks the schema before checking that the arguments are an object",
     (("    if not isinstance(args, dict):\n        return json.dumps({\"error\": \"arguments must be a JSON object\"})\n"
       "    tool = toolbox[name]\n    problems = check_args(args, tool.parameters)\n",
       "    tool = toolbox[name]\n    problems = check_args(args, tool.parameters)\n"),)),
    ("run_tool_call", "sends only the first problem",
     (('"problems": problems}', '"problems": problems[:1]}'),)),
    ("run_tool_call", "takes a confirm that returns 1 as a yes",
     ((RUN_CONFIRM, "approved = confirm(name, copy.deepcopy(args)) == True"),)),
    ("run_tool_call", "runs a destructive tool when no confirm is given",
     (("        approved = False\n", "        approved = confirm is None\n"),)),
    ("run_tool_call", "hands confirm a copy.copy of the arguments",
     ((RUN_CONFIRM, "approved = confirm(name, copy.copy(args)) is True"),)),
    ("run_tool_call", "runs what confirm was shown",
     ((RUN_CONFIRM, "shown = copy.deepcopy(args)\n                approved = confirm(name, shown) is True\n"
                    "                args = shown"),)),
    ("run_tool_call", "logs a failing confirm without its type",
     (('toolbox.server_log.append(f"{name}: confirm failed: {type(error).__name__}: {error}")',
       'toolbox.server_log.append(f"{name}: confirm failed: {error}")'),)),
    ("run_tool_call", "catches only the RuntimeError a closed dialog raises",
     (("            except Exception as error:\n                toolbox.server_log.append(f\"{name}: confirm failed",
       "            except RuntimeError as error:\n                toolbox.server_log.append(f\"{name}: confirm failed"),)),
    ("run_tool_call", "sends a ToolError's first argument",
     (('return json.dumps({"error": str(error)})', 'return json.dumps({"error": error.args[0]})'),)),
    ("run_tool_call", "sends a ToolError as its repr",
     (('return json.dumps({"error": str(error)})', 'return json.dumps({"error": repr(error)})'),)),
    ("run_tool_call", "turns a result JSON cannot hold into a string",
     (('json.dumps({"result": tool.fn(**args)}, allow_nan=False)',
       'json.dumps({"result": tool.fn(**args)}, allow_nan=False, default=str)'),)),
    ("run_tool_call", "sends NaN and Infinity as null",
     (('json.dumps({"result": tool.fn(**args)}, allow_nan=False)',
       'json.dumps(json.loads(json.dumps({"result": tool.fn(**args)}), parse_constant=lambda c: None))'),)),
    ("run_tool_call", "logs an unexpected failure without the tool's name",
     (('toolbox.server_log.append(f"{name}: {type(error).__name__}: {error}")',
       'toolbox.server_log.append(f"{type(error).__name__}: {error}")'),)),
    ("run_tool_call", "names the failing tool without quotes",
     (('return json.dumps({"error": f"tool {name!r} failed with', 'return json.dumps({"error": f"tool {name} failed with'),)),
    ("run_tool_call", "names an unknown tool without quotes",
     (('"error": f"unknown tool {name!r}"', '"error": f"unknown tool {name}"'),)),
    ("run_tool_call", "logs the repr of an unexpected failure",
     (('toolbox.server_log.append(f"{name}: {type(error).__name__}: {error}")',
       'toolbox.server_log.append(f"{name}: {type(error).__name__}: {error!r}")'),)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "why", "edits"), MISREADINGS, ids=[why for _, why, _ in MISREADINGS])
def test_a_misreading_is_caught(name: str, why: str, edits: tuple[tuple[str, str], ...]) -> None:
    assert caught_by(name, edited(name, *edits)), f"{name}: no family catches: {why}"


def test_the_solution_and_the_independent_answers_agree() -> None:
    honest = [(name, None) for name in NAMES]
    honest += [(name, source) for one in independent(ASSIGNMENT) for name, source in one.cells.items()]
    for name, source in honest:
        assert disagreements(ASSIGNMENT, name, source) == {}, name
