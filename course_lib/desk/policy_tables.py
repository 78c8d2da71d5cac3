"""Notebook 07: the policy tables (auto, confirm, never) the desk runs under, and what an approver is.

A policy maps each tool name to "auto" (run at once), "confirm" (run only on a human's yes) or "never"
(not offered at all). Enforcing a table is Part A's exercise (`course_lib.desk.policy`); the tables
themselves are data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal

from course_lib.desk.data import READ_TOOLS, WRITE_TOOLS

__all__ = [
    "APPROVER_TIMEOUT_SECONDS",
    "DEFAULT_POLICY",
    "OPEN_POLICY",
    "POLICIES",
    "READ_ONLY_POLICY",
    "Approver",
    "Mode",
    "Policy",
]

Mode = Literal["auto", "confirm", "never"]
Policy = Mapping[str, str]
"""Tool name -> "auto" | "confirm" | "never"."""

Approver = Callable[[str, dict[str, Any]], object]
"""Asked about one call (its name and a copy of its validated arguments); only a returned True is a yes."""

APPROVER_TIMEOUT_SECONDS = 10.0
"""How long an approver may take before its silence counts as no."""

DEFAULT_POLICY: Policy = MappingProxyType(
    {**dict.fromkeys(READ_TOOLS, "auto"), **dict.fromkeys(WRITE_TOOLS, "confirm")}
)
"""Reads run; every write waits for a human."""

OPEN_POLICY: Policy = MappingProxyType(dict.fromkeys(READ_TOOLS + WRITE_TOOLS, "auto"))
"""Everything runs unasked (taint and the refund limit still escalate a write to a human)."""

READ_ONLY_POLICY: Policy = MappingProxyType(
    {**dict.fromkeys(READ_TOOLS, "auto"), **dict.fromkeys(WRITE_TOOLS, "never")}
)
"""Least privilege: the write tool is never offered."""

POLICIES: Mapping[str, Policy] = MappingProxyType(
    {"open": OPEN_POLICY, "default": DEFAULT_POLICY, "read_only": READ_ONLY_POLICY}
)
"""The policies the pack compares, by name."""
