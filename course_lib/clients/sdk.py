"""What the three SDK adapters share: a body an SDK can encode, and an SDK's errors as every model failure."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from course_lib.errors import ModelHTTPError

if TYPE_CHECKING:  # the SDKs are imported only when an SDK adapter is used: each import costs seconds
    import anthropic
    import openai

_SURROGATE = re.compile("[\ud800-\udfff]")


def sendable(value: Any) -> Any:
    """A copy with every lone surrogate replaced by U+FFFD: an SDK encodes bodies as UTF-8 and cannot send one."""
    if isinstance(value, dict):
        return {sendable(key): sendable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [sendable(item) for item in value]
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    return value


def openai_error(error: openai.APIError) -> ModelHTTPError:
    """An SDK error as the harness sees every model failure."""
    import openai

    if isinstance(error, openai.APIStatusError):
        return ModelHTTPError(error.status_code, error.message)
    return ModelHTTPError(0, f"{type(error).__name__}: {error.message}")


def anthropic_error(error: anthropic.APIError) -> ModelHTTPError:
    """An SDK error as the harness sees every model failure."""
    import anthropic

    if isinstance(error, anthropic.APIStatusError):
        return ModelHTTPError(error.status_code, error.message)
    return ModelHTTPError(0, f"{type(error).__name__}: {error.message}")
