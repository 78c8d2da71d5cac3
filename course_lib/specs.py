"""Notebook 04's key: `tool_specs`, the `tools` field of a request, in either API style.

Chat Completions nests each tool's declaration under `"function"`; Responses puts the same fields at the
top level of the tool. The names may be any iterable; each entry's schema is a deep copy.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, Literal

from course_lib.toolbox import Toolbox

__all__ = ["tool_specs"]


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
