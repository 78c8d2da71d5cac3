"""Infrastructure for notebooks 03-07: a registry of tools, and a plain way to run one model tool call.

A `Toolbox` holds the tools an application *could* offer. `Tool.declaration()` gives the fields a request
declares a tool by (name, description, parameters, strict); each API style wraps them in its own shape.
`Toolbox.run` runs one call plainly (offered? parses as an object? confirmed if destructive? then run) and
returns one JSON string, `{"result": ...}` or `{"error": ...}`. It checks no argument against the schema:
notebook 05 writes `run_tool_call`, the dispatcher that does; a toolbox whose `runner` is set hands every
call to that runner instead.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from course_lib.errors import ToolError

__all__ = ["TOOL_NAME", "Confirm", "Runner", "Tool", "ToolError", "Toolbox", "request_tools"]

TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""The documented rule for a function name: letters, digits, underscores and dashes, at most 64."""

F = TypeVar("F", bound=Callable[..., Any])

Confirm = Callable[[str, dict[str, Any]], bool]
"""Asked before a destructive tool runs, with its name and arguments; only True means yes."""

Runner = Callable[["Toolbox", str, str, Collection[str], "Confirm | None"], str]
"""Runs one call as `runner(toolbox, name, raw_arguments, offered, confirm)` (05's `run_tool_call`, say)."""


@dataclass(frozen=True)
class Tool:
    """One function the application can offer: what the model reads, and the code that runs."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the model reads to decide when to call it."""
    parameters: dict[str, Any]
    """The JSON Schema of its arguments (an object schema)."""
    fn: Callable[..., Any]
    """Called with the arguments as keyword arguments."""
    destructive: bool = False
    """True if a human must confirm each call before it runs."""

    def declaration(self) -> dict[str, Any]:
        """The fields a request declares this tool by, in this order: name, description, parameters (a copy), strict."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": copy.deepcopy(self.parameters),
            "strict": True,
        }


def request_tools(
    shape: Literal["chat", "responses", "anthropic"], tools: Iterable[Tool]
) -> list[dict[str, Any]]:
    """The `tools` request field declaring `tools`: each tool's declaration nested under "function" (chat),
    flat (responses), or its name, description and `input_schema` (anthropic); each schema an independent copy.

    The one builder outside the keys (03's loops and 04's `tool_specs` build their own, as the exercises ask).
    """
    fields = []
    for tool in tools:
        spec = {"name": tool.name, "description": tool.description}
        schema = json.loads(json.dumps(tool.parameters))  # an independent copy
        if shape == "anthropic":
            fields.append({**spec, "input_schema": schema})
        elif shape == "chat":
            fields.append({"type": "function", "function": {**spec, "parameters": schema, "strict": True}})
        else:
            fields.append({"type": "function", **spec, "parameters": schema, "strict": True})
    return fields


@dataclass(eq=False)
class Toolbox:
    """A registry of tools; each instance has its own tools, log and state, so nothing is shared."""

    max_argument_chars: int = 100_000
    """The longest argument string 05's `run_tool_call` will parse."""
    server_log: list[str] = field(default_factory=list)
    """What went wrong, in detail, for us; the model never sees this."""
    state: dict[str, Any] = field(default_factory=dict)
    """Data the tools of this box work on (the demo keeps its notes here)."""
    runner: Runner | None = None
    """Who runs each call `run` is given; None: `run` itself, plainly."""
    _tools: dict[str, Tool] = field(default_factory=dict, init=False, repr=False)

    def tool(
        self,
        name: str,
        description: str,
        properties: Mapping[str, Any],
        *,
        destructive: bool = False,
        required: Iterable[str] | None = None,
    ) -> Callable[[F], F]:
        """Register the decorated function with a strict-mode schema: no extra properties, all required."""
        needed = list(properties) if required is None else list(required)
        if unknown := [key for key in needed if key not in properties]:
            raise ValueError(f"required names arguments that are not properties: {unknown}")
        parameters = {
            "type": "object",
            "properties": copy.deepcopy(dict(properties)),
            "required": needed,
            "additionalProperties": False,
        }

        def register(fn: F) -> F:
            self.add(Tool(name, description, parameters, fn, destructive))
            return fn

        return register

    def add(self, tool: Tool) -> None:
        """Register a tool; a badly formed or already registered name is a ValueError."""
        if not isinstance(tool.name, str) or not TOOL_NAME.fullmatch(tool.name):
            raise ValueError(f"tool name {tool.name!r} breaks the rule {TOOL_NAME.pattern}")
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._tools

    @property
    def names(self) -> list[str]:
        """The registered tool names, sorted."""
        return sorted(self._tools)

    def run(
        self, name: str, raw_arguments: str, offered: Collection[str], confirm: Confirm | None = None
    ) -> str:
        """Run one model tool call and return a JSON string; through `runner` when one is set."""
        if self.runner is not None:
            return self.runner(self, name, raw_arguments, offered, confirm)
        if isinstance(offered, str):  # one bare name, not a collection of its substrings
            offered = (offered,)
        if not isinstance(name, str) or name not in offered or name not in self:
            available = sorted(n for n in offered if isinstance(n, str) and n in self)
            return _reply({"error": f"unknown tool {name!r:.100}", "available_tools": available})
        tool = self[name]
        try:
            arguments = json.loads(raw_arguments)
        except (TypeError, ValueError, RecursionError):
            return _reply({"error": "arguments are not valid JSON"})
        if not isinstance(arguments, dict):
            return _reply({"error": "arguments must be a JSON object"})
        if tool.destructive and not _confirmed(confirm, name, arguments):
            return _reply({"error": "a human did not confirm this action; it was NOT performed"})
        try:
            return _reply({"result": tool.fn(**arguments)})
        except ToolError as exc:
            return _reply({"error": str(exc)})
        except (
            Exception
        ) as exc:  # a bug in our code, or arguments the function does not take: details stay here
            self.server_log.append(f"{name}: {type(exc).__name__}: {exc}")
            return _reply({"error": f"tool {name!r} failed with {type(exc).__name__}"})


def _confirmed(confirm: Confirm | None, name: str, arguments: dict[str, Any]) -> bool:
    """Only an explicit True from `confirm` is a yes; no confirm, or one that raises, is a no."""
    try:
        return confirm is not None and confirm(name, copy.deepcopy(arguments)) is True
    except Exception:
        return False


def _reply(payload: dict[str, Any]) -> str:
    """A result or error as JSON; a result JSON cannot hold is reported as such."""
    try:
        return json.dumps(payload, allow_nan=False)
    except (TypeError, ValueError):
        return json.dumps({"error": "the tool's result cannot be sent as JSON"})
