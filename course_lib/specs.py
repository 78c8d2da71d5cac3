"""Notebook 04's key for Parts A-C: the `tools` field of a request, strict-mode schemas, the second request.

Chat Completions nests each tool's declaration under `"function"`; Responses puts the same fields at the
top level of the tool. The names may be any iterable; each entry's schema is a deep copy.
`is_strict_compatible` lists how a schema breaks strict mode's two rules, and `second_request_messages`
builds the chat `messages` that answer a first reply's tool calls.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from course_lib.toolbox import Toolbox

__all__ = ["is_strict_compatible", "second_request_messages", "tool_specs"]


def tool_specs(
    toolbox: Toolbox, names: Iterable[str], api: Literal["chat", "responses"]
) -> list[dict[str, Any]]:
    """The `tools` request field for `names`: nested under "function" for chat, flat for responses."""
    if api not in ("chat", "responses"):
        raise ValueError(f"api must be 'chat' or 'responses', not {api!r}")
    specs = []
    for name in names:
        if name not in toolbox:
            raise ValueError(f"no tool named {name!r} in this toolbox")
        tool = toolbox[name]
        function = {
            "name": tool.name,
            "description": tool.description,
            "parameters": copy.deepcopy(tool.parameters),
            "strict": True,
        }
        specs.append(
            {"type": "function", "function": function} if api == "chat" else {"type": "function", **function}
        )
    return specs


def is_strict_compatible(schema: Mapping[str, Any]) -> list[str]:
    """How `schema` breaks strict mode (additionalProperties false, every property required); [] if it does not."""
    problems: list[str] = []
    _strict_problems(schema, "$", problems)
    return problems


def _strict_problems(node: Mapping[str, Any], path: str, problems: list[str]) -> None:
    kind = node.get("type")
    properties = node.get("properties", {})
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties must be false")
        required = node.get("required", [])
        problems.extend(
            f"{path}: property {name!r} is not in required" for name in properties if name not in required
        )
    for name, child in properties.items():
        _strict_problems(child, f"{path}.{name}", problems)
    if isinstance(node.get("items"), dict):
        _strict_problems(node["items"], f"{path}[]", problems)


def second_request_messages(
    user_text: str, first_reply: Mapping[str, Any], results: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The chat `messages` of the second request: user turn, assistant turn as returned, one tool message per call."""
    assistant = first_reply["choices"][0]["message"]
    answers = [
        {"role": "tool", "tool_call_id": call["id"], "content": results[call["id"]]}
        for call in assistant.get("tool_calls") or []
    ]
    return [{"role": "user", "content": user_text}, assistant, *answers]
