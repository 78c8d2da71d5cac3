"""Every exception course_lib raises, in one flat file: one class per kind of mistake."""

from __future__ import annotations

from typing import Any


class EnvelopeError(ValueError):
    """The model's response does not fit the provider-neutral envelope (the producer's mistake)."""


class DispatchError(ValueError):
    """A stock request was malformed or asked for something the dispatcher does not offer (the caller's mistake)."""


class ToolError(Exception):
    """An expected, reportable tool failure; its message is safe to show the model."""


class MaxStepsExceeded(RuntimeError):
    """The model kept asking for tools past the loop's step limit; `trace` keeps what ran."""

    def __init__(self, message: str, trace: list[Any]) -> None:
        super().__init__(message)
        self.trace = trace


class ModelHTTPError(RuntimeError):
    """The model endpoint answered with an HTTP error; `status` and the raw `body` are kept."""

    def __init__(self, status: int, message: str, body: bytes = b"") -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.body = body


class WireError(ValueError):
    """A request broke a documented wire-format rule; carries the HTTP status and the offending `param`."""

    def __init__(
        self, message: str, *, param: str | None = None, status: int = 400, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status
        self.code = code


class ScriptError(RuntimeError):
    """The stand-in's scripted model went off script or its step function failed (the script author's mistake)."""


class ModelTurnError(RuntimeError):
    """The model's answer holds no usable turn: cut off, empty, or not in its documented shape (the model's mistake)."""
