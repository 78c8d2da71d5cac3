"""Fakes for the trusted codec's tests: references that fail loudly when a value needs one."""

from __future__ import annotations


class NoRefs:
    """References for values with no callables in them."""

    keeps_iterators = False

    def export(self, value: object) -> int:
        raise AssertionError(f"unexpected callable {value!r}")

    def remote_id(self, value: object) -> int | None:
        return None

    def resolve(self, mine: bool, ident: int) -> object:
        raise AssertionError("unexpected reference")
