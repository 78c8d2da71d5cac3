"""The learner's classes and their instances, seen from the trusted side: proxies whose every use crosses the pipe.

A class the notebook defines crosses as a `RemoteClass` (a real class here, so `isinstance` and the
harness's `Budget(...)` work): calling it builds the instance in the learner's process and returns a
`RemoteInstance`, whose attribute reads, writes and method calls go back over the pipe. Nothing of the
learner's code runs here: the class's namespace holds only what `runner` puts there for inspection (its
methods compiled from the submitted source, never called), and every attribute read on the class or its
instances asks the learner's process.
"""

from __future__ import annotations

from typing import Any, Protocol


class Caller(Protocol):
    """What a proxy needs of its endpoint."""

    def call(
        self,
        ident: int,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        attr: str | None = None,
        how: str = "call",
    ) -> Any:
        """Call (or get or set the attribute `attr` of) the other side's object `ident`."""


class RemoteClass(type):
    """The metaclass of a learner's class seen here: calling it, or reading its methods, asks the learner."""

    _remote_endpoint: Caller
    _remote_ident: int
    _remote_methods: frozenset[str]

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._remote_endpoint.call(cls._remote_ident, args, kwargs)

    def __getattribute__(cls, name: str) -> Any:
        if name.startswith("_remote") or name.startswith("__"):
            return type.__getattribute__(cls, name)
        return cls._remote_endpoint.call(cls._remote_ident, (), {}, attr=name, how="get")

    def __setattr__(cls, name: str, value: Any) -> None:
        if name.startswith("_remote") or name.startswith("__"):
            type.__setattr__(cls, name, value)
        else:
            cls._remote_endpoint.call(cls._remote_ident, (value,), {}, attr=name, how="set")

    def __repr__(cls) -> str:
        return f"<learner's class {type.__getattribute__(cls, '__name__')}>"


class RemoteMethod:
    """A method of a learner's instance: calling it is a call across the pipe."""

    def __init__(self, endpoint: Caller, ident: int, name: str) -> None:
        self._endpoint, self._ident, self.__name__ = endpoint, ident, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._endpoint.call(self._ident, args, kwargs, attr=self.__name__)

    def __repr__(self) -> str:
        return f"<learner's method {self.__name__}>"


class RemoteInstance:
    """An instance of a learner's class: every attribute is read, written or called in the learner's process."""

    _remote_endpoint: Caller
    _remote_ident: int

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("_remote") or name in ("__class__", "__dict__"):
            return object.__getattribute__(self, name)
        cls = type(self)
        endpoint, ident = (
            object.__getattribute__(self, "_remote_endpoint"),
            object.__getattribute__(self, "_remote_ident"),
        )
        if name in type.__getattribute__(cls, "_remote_methods"):
            return RemoteMethod(endpoint, ident, name)
        return endpoint.call(ident, (), {}, attr=name, how="get")

    def __setattr__(self, name: str, value: Any) -> None:
        endpoint, ident = (
            object.__getattribute__(self, "_remote_endpoint"),
            object.__getattribute__(self, "_remote_ident"),
        )
        endpoint.call(ident, (value,), {}, attr=name, how="set")

    def __repr__(self) -> str:
        return f"<learner's {type.__getattribute__(type(self), '__name__')} object>"


def remote_class(endpoint: Caller, ident: int, name: str, methods: list[str]) -> type:
    """A class standing here for the learner's class `ident`."""
    safe = name if name.isidentifier() else "LearnerClass"
    cls = RemoteClass(safe[:100], (RemoteInstance,), {"__module__": "__main__", "__qualname__": safe[:100]})
    type.__setattr__(cls, "_remote_endpoint", endpoint)
    type.__setattr__(cls, "_remote_ident", ident)
    type.__setattr__(
        cls, "_remote_methods", frozenset(m for m in methods if type(m) is str and not m.startswith("__"))
    )
    return cls


def remote_instance(endpoint: Caller, ident: int, cls: object) -> RemoteInstance:
    """An instance standing here for the learner's object `ident`, of the class proxy `cls`."""
    if not isinstance(cls, RemoteClass):
        cls = remote_class(endpoint, -1, "LearnerClass", [])
    instance: RemoteInstance = object.__new__(cls)
    object.__setattr__(instance, "_remote_endpoint", endpoint)
    object.__setattr__(instance, "_remote_ident", ident)
    return instance


def remote_ident(value: object, endpoint: object) -> int | None:
    """The learner's id of a class or instance proxy of `endpoint`, or None for anything else."""
    if issubclass(type(value), RemoteClass):  # the real class: a learner's object may fake `__class__`
        owner, ident = (
            type.__getattribute__(value, "_remote_endpoint"),
            type.__getattribute__(value, "_remote_ident"),
        )
    elif issubclass(type(type(value)), RemoteClass):
        owner, ident = (
            object.__getattribute__(value, "_remote_endpoint"),
            object.__getattribute__(value, "_remote_ident"),
        )
    else:
        return None
    return int(ident) if owner is endpoint and ident >= 0 else None
