"""A checkpoint question and its key's shape: what a value answering it looks like, and when two agree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

LETTERS = "ABCDEF"

Kind = Literal["choice", "choices", "number"]
"""choice: one letter; choices: a list of letters (order free); number: a whole number."""


@dataclass(frozen=True)
class Question:
    """One question of a checkpoint quiz, as the learner reads it (no answer)."""

    text: str
    """The question, in markdown (one paragraph)."""
    kind: Kind
    options: tuple[str, ...] = ()
    """The options of a choice or choices question, lettered A, B, ... in this order (markdown)."""

    @property
    def letters(self) -> tuple[str, ...]:
        """The letters of its options."""
        return tuple(LETTERS[: len(self.options)])

    def form(self) -> str:
        """What kind of value answers it, as the answer cell's comment says it."""
        if self.kind == "number":
            return "a whole number"
        shown = ", ".join(f'"{letter}"' for letter in self.letters)
        return f"one of {shown}" if self.kind == "choice" else f"a list of letters among {shown}"

    def fits(self, value: object) -> bool:
        """Whether `value` has the form of an answer (says nothing of whether it is right)."""
        if self.kind == "number":
            return type(value) is int
        if self.kind == "choice":
            return type(value) is str and value in self.letters
        return type(value) is list and all(type(v) is str and v in self.letters for v in value)


class Key(NamedTuple):
    """The answer to one question and the idea it checks (shown to a learner who misses it, never the value)."""

    value: object
    rule: str


def same(question: Question, value: object, key: object) -> bool:
    """Whether `value` answers `question` as `key` does (a list of letters in any order)."""
    if question.kind == "choices":
        return type(value) is list and sorted(map(str, value)) == sorted(map(str, key))  # type: ignore[call-overload]
    return type(value) is type(key) and value == key
