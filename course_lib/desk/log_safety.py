"""Notebook 07: what a log line must never hold, how long it may be, and the detector that finds a secret.

The secrets are the data's `CANARY` (or any piece of it `SECRET_PIECE` characters long) and anything that
looks like an API key (`KEY_PATTERN`, which `STAND_IN_KEY` matches on purpose). `find_secrets` is the
judge: it decodes escapes (`\\u0037`, `\\x37`, `%37`, `&#55;`, `&#x37;`, nested), normalises, drops
invisible characters and reports which secrets a text still holds. Redacting them is Part D's exercise
(`course_lib.desk.audit`); the pack and the tests count what `find_secrets` still finds.
"""

from __future__ import annotations

import re
import unicodedata

from course_lib.desk.data import CANARY
from course_lib.turns import STAND_IN_KEY

__all__ = ["KEY_PATTERN", "MAX_AUDIT_CHARS", "REDACTED", "SECRET_PIECE", "find_secrets"]

REDACTED = "[REDACTED]"
MAX_AUDIT_CHARS = 300
"""The longest string an entry keeps; the rest is replaced by a note of how much was cut."""

SECRET_PIECE = 10
"""Any piece of CANARY this long is redacted too, so half a secret is no leak."""

KEY_PATTERN = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
"""Text that looks like an API key (OpenAI and Anthropic keys start with sk-) or an Authorization header."""


def _pieces(secret: str, size: int) -> list[str]:
    """Every piece of `secret` of length `size` (the whole secret if it is shorter)."""
    size = min(size, len(secret))
    return [secret[start : start + size] for start in range(len(secret) - size + 1)]


_ESCAPES = re.compile(
    r"\\+u([0-9a-fA-F]{4})|\\+x([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})|&#(\d{1,7});|&#x([0-9a-fA-F]{1,6});"
)


def _unescape(match: re.Match[str]) -> str:
    hex4, hex2, percent, decimal, hexadecimal = match.groups()
    code = int(hex4 or hex2 or percent or hexadecimal or "0", 16) if not decimal else int(decimal)
    return chr(code) if code < 0x110000 else ""


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _visible(match: re.Match[str]) -> str:
    """A non-ASCII character, or nothing for an invisible format character (category Cf; no ASCII one is):
    only these characters are looked at one by one, so a long ASCII text costs no Python call per character."""
    return "" if unicodedata.category(match[0]) == "Cf" else match[0]


def find_secrets(text: str) -> list[str]:
    """Which secrets `text` still holds once escapes are decoded and invisible characters dropped."""
    plain = text
    for _ in range(4):  # escapes may be nested: \\u005cu0037 ...
        decoded = _ESCAPES.sub(_unescape, plain)
        if decoded == plain:
            break
        plain = decoded
    plain = _NON_ASCII.sub(_visible, unicodedata.normalize("NFKC", plain)).casefold()
    found = []
    if any(piece.casefold() in plain for piece in _pieces(CANARY, SECRET_PIECE)):
        found.append("CANARY")
    if STAND_IN_KEY.casefold() in plain or KEY_PATTERN.search(plain):
        found.append("API key")
    return found
