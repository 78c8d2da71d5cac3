"""Notebook 07, Parts D and E: the audit log: one entry per proposed call, secrets redacted, safe to write.

An entry records the call's name, its validated arguments (None when they did not validate), the
decision ("auto", "approved", "denied", "refused", "skipped"), why, and the outcome sent to the model.
Every string in it goes through `clean`: lone surrogates become visible escapes, secrets become
`[REDACTED]`, long text is clipped. Redaction finds the secret spelled plainly, with any of its characters
escaped (`\\u0037`, `\\x37`, `%37`, `&#55;`), with invisible characters between them, or a long enough
piece of it; a string that still hides a secret after decoding its escapes is replaced whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from course_lib.desk.data import CANARY
from course_lib.desk.log_safety import KEY_PATTERN, MAX_AUDIT_CHARS, REDACTED, SECRET_PIECE, find_secrets
from course_lib.turns import STAND_IN_KEY

__all__ = ["audit_entry", "audit_lines", "clean", "redact", "write_audit"]

MAX_ITEMS = 50
"""The most keys or list items an entry keeps per container."""

_INVISIBLE = "(?:[\u00ad\u200b-\u200f\u2060\ufeff])*"


def _spelled(char: str) -> str:
    """A pattern for one character written plainly or escaped in any common way."""
    code = ord(char)
    forms = [
        re.escape(char),
        rf"\\+u{code:04x}",
        rf"\\+x{code:02x}",
        f"%{code:02x}",
        f"&#0*{code};",
        f"&#x0*{code:x};",
    ]
    return "(?:" + "|".join(forms) + ")"


def _runs(secret: str, size: int) -> str:
    """A pattern for any run of `secret` at least `size` characters long, matched as far as it goes."""
    alternatives = []
    for start in range(max(1, len(secret) - size + 1)):
        tail = ""
        for char in reversed(secret[start + size :]):
            tail = f"(?:{_INVISIBLE}{_spelled(char)}{tail})?"
        alternatives.append(_INVISIBLE.join(map(_spelled, secret[start : start + size])) + tail)
    return "|".join(alternatives)


_SECRET_PATTERN = re.compile(
    _runs(CANARY, SECRET_PIECE) + "|" + _runs(STAND_IN_KEY, len(STAND_IN_KEY)), re.IGNORECASE
)
_REPEATED_MARKS = re.compile(r"(?:\[REDACTED\]){2,}")


def redact(text: str) -> str:
    """`text` with every secret, key-like token and their escaped spellings replaced by [REDACTED]."""
    text = _REPEATED_MARKS.sub(REDACTED, KEY_PATTERN.sub(REDACTED, _SECRET_PATTERN.sub(REDACTED, text)))
    return REDACTED if find_secrets(text) else text


def clean(value: object, depth: int = 0) -> Any:
    """A JSON-safe copy of `value` for the log: visible surrogates, secrets redacted, text and containers clipped."""
    if depth > 20:
        return "[nested too deeply]"
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) < 10**18 else clean(str(value), depth)
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, str):
        text = redact(value.encode("utf-8", "backslashreplace").decode("utf-8"))
        return (
            text
            if len(text) <= MAX_AUDIT_CHARS
            else f"{text[:MAX_AUDIT_CHARS]}...[{len(text) - MAX_AUDIT_CHARS} more chars]"
        )
    if isinstance(value, Mapping):
        items = list(value.items())
        cleaned = {str(clean(str(k), depth + 1)): clean(v, depth + 1) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            cleaned["..."] = f"{len(items) - MAX_ITEMS} more keys"
        return cleaned
    if isinstance(value, list | tuple):
        kept = [clean(item, depth + 1) for item in value[:MAX_ITEMS]]
        return kept + [f"...{len(value) - MAX_ITEMS} more items"] if len(value) > MAX_ITEMS else kept
    return clean(repr(value), depth)


def audit_entry(
    step: int, call_id: str, name: str, arguments: object, decision: str, reason: str, outcome: str
) -> dict[str, Any]:
    """One audit entry for one proposed call, every field cleaned."""
    raw = {"step": step, "id": call_id, "name": name, "arguments": arguments,
           "decision": decision, "reason": reason, "outcome": outcome}  # fmt: skip
    cleaned: dict[str, Any] = clean(raw)
    return cleaned


def audit_lines(audit: Iterable[Mapping[str, Any]]) -> str:
    """The log as JSON lines, pure ASCII, each entry cleaned again (so a hand-made entry is safe too)."""
    return "".join(json.dumps(clean(entry), ensure_ascii=True, allow_nan=False) + "\n" for entry in audit)


def write_audit(audit: Iterable[Mapping[str, Any]], stream: TextIO) -> None:
    """Write the log to an open text stream as JSON lines."""
    stream.write(audit_lines(audit))
