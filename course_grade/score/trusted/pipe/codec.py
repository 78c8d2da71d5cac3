"""Python values as JSON data: an object graph (cycles, sharing and any depth survive) with remote references.

`encode` turns a value into `{"v": E, "n": [node, ...]}`. E is None, a bool, an int, a str, a finite float,
`{"f": "nan" | "inf" | "-inf"}`, `{"n": i}` (node i) or `{"b": i}` (node i of the call's arguments: the
very object the caller passed in). A node is a dict with a kind `k`: list, tuple, set, frozenset, dict
(pairs), bytes and bytearray (latin-1 text), complex, iter (an iterator, drained), chain (lists nested in
one another, as their depth and the innermost's items), obj and ntuple (a dataclass or NamedTuple of
`course_lib`; a callable one, a fake clock say, is a ref: a copy would not see its own side's changes),
ref (a callable left on its side, called back over the pipe), type (a builtin type) and
opaque (anything else). A subclass of a builtin container or scalar keeps its class as `c`: a dotted path
for the standard library's (`collections.OrderedDict`), `{"sub": name}` for one defined in the notebook.

Decoding on the trusted side is strict: classes come only from an allow-list and anything unknown becomes
its base type or an `Opaque` placeholder; nothing the learner sends is ever imported, called or evaluated.
The work is iterative, so a list nested 100,000 deep costs memory, not the stack, and what a message of the
learner's decodes to is bounded by its size: a `chain` node claiming more lists than its bytes pay for
(`CHAIN_LISTS_PER_BYTE`) is refused before any is built. The encoder asks an object's real class (`type`),
never its `__class__`, which a learner's object may fake, and any error its objects raise while read is a
`CodecError` (the call's error), never a crash of the process.

It is longer than ~350 lines because encoding and decoding are one format, read side by side: every node kind
`_node` writes is read by `_Decoder`, and the strict decoder's promises (an allow-list, bounded work, nothing
of the learner's imported or called) are stated against what the encoder writes.
"""

from __future__ import annotations

import collections
import collections.abc
import dataclasses
import importlib
import itertools
import json
import math
import sys
import types
from collections.abc import Callable
from typing import Any, Protocol

MAX_NODES = 500_000
"""The most containers one message may hold."""

CHAIN_LISTS_PER_BYTE = 2
"""The strict side builds at most this many lists of `chain` nodes per byte of the wire form they came in.

Every other node decodes to at most one container, and its items to what the wire spells out, so a message
from the learner decodes to an amount of memory in proportion to its size (a list is ~70 bytes: about 150
bytes per byte of a message made of chains, a few bytes per byte of any other)."""

KNOWN_CLASSES: dict[str, type] = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.defaultdict": collections.defaultdict,
    "collections.UserDict": collections.UserDict,
    "collections.UserList": collections.UserList,
    "types.MappingProxyType": types.MappingProxyType,
}
"""Standard-library container classes that cross as themselves both ways."""

BUILTIN_TYPES: dict[str, type] = {
    t.__name__: t for t in (str, int, float, bool, list, dict, tuple, set, frozenset, bytes, object)
}

_BASES: list[tuple[type, str]] = [
    (bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (bytes, "bytes"), (bytearray, "bytearray"),
    (complex, "complex"), (dict, "dict"), (list, "list"), (tuple, "tuple"), (frozenset, "frozenset"), (set, "set"),
]  # fmt: skip
_MUTABLE = {"list", "dict", "set", "bytearray", "obj", "chain"}


class CodecError(Exception):
    """A value could not be encoded, or a message does not decode to one."""


class Opaque:
    """A stand-in for a value that cannot cross as data (it compares equal only to itself)."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


class Refs(Protocol):
    """How one side names callables: its own, exported by id, and the other side's, seen as proxies."""

    def export(self, value: object) -> int:
        """An id under which the other side may call `value` back."""

    def remote_id(self, value: object) -> int | None:
        """The other side's id if `value` is a proxy for one of its objects."""

    def resolve(self, mine: bool, ident: int) -> object:
        """The local object exported as `ident`, or a proxy for the other side's object `ident`."""

    def remote_class(self, ident: int, name: str, methods: list[str]) -> object:
        """A class standing for the other side's class `ident` (the trusted side only)."""

    def remote_instance(self, ident: int, cls: object) -> object:
        """An object standing for the other side's instance `ident` of the class proxy `cls`."""

    @property
    def keeps_iterators(self) -> bool:
        """True where an iterator must not be drained to cross (the learner's: it is not ours to consume)."""


def _class_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _base_of(value: object) -> str | None:
    """The builtin kind of the value's real class (`type`, never `__class__`, which an object may fake)."""
    cls = type(value)
    for base, kind in _BASES:
        if issubclass(cls, base):
            return kind
    return None


def _is_course_record(cls: type) -> bool:
    """A dataclass or NamedTuple defined in course_lib: it crosses field by field."""
    if not cls.__module__.startswith("course_lib."):
        return False
    return dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))


def encode(
    value: object, refs: Refs, origin: dict[int, int] | None = None
) -> tuple[dict[str, Any], list[object]]:
    """The wire form of `value`, and the objects of its nodes (index -> object), for back references."""
    nodes: list[dict[str, Any] | None] = []
    objects: list[object] = []
    memo: dict[int, int] = {}
    pending: list[int] = []
    origin = origin or {}

    def ref(item: object) -> Any:
        if item is None or type(item) in (bool, int, str):
            return item
        if type(item) is float:
            if math.isfinite(item):
                return item
            return {"f": "nan" if math.isnan(item) else ("inf" if item > 0 else "-inf")}
        if id(item) in origin:
            return {"b": origin[id(item)]}
        if id(item) in memo:
            return {"n": memo[id(item)]}
        if len(nodes) >= MAX_NODES:
            raise CodecError(f"more than {MAX_NODES} containers in one value")
        memo[id(item)] = len(nodes)
        nodes.append(None)
        objects.append(item)
        pending.append(len(nodes) - 1)
        return {"n": len(nodes) - 1}

    try:
        top = ref(value)
        while pending:
            index = pending.pop()
            nodes[index] = _node(objects[index], ref, refs)
    except (CodecError, RecursionError):
        raise
    except Exception as error:  # an object of the learner's that breaks while read: its error, not a crash
        raise CodecError(
            f"a value that cannot be encoded: {type(error).__name__}: {str(error)[:100]}"
        ) from None
    return {"v": top, "n": nodes}, objects


CHAIN = 32
"""Lists nested this deep, each holding only the next, cross as one node: their depth and the innermost."""


def _chain(item: list[Any]) -> tuple[int, list[Any]]:
    """How many lists are nested one in the other from `item`, each holding only the next; the innermost."""
    depth, current, seen = 1, item, {id(item)}
    while len(current) == 1 and type(current[0]) is list and id(current[0]) not in seen:
        current = current[0]
        seen.add(id(current))
        depth += 1
    return depth, current


def _notebook_class(cls: type) -> bool:
    """A class the notebook defines: it stays in the learner's process, and crosses as a reference."""
    return issubclass(type(cls), type) and getattr(cls, "__module__", None) == "__main__"


def _methods(cls: type) -> list[str]:
    """The names of the class's methods (its own and inherited from other notebook classes)."""
    names: list[str] = []
    for base in cls.__mro__:
        if base.__module__ != "__main__":
            continue
        for name, value in vars(base).items():
            if issubclass(type(value), staticmethod | classmethod) or (
                callable(value) and not issubclass(type(value), type)
            ):
                names.append(name)
    return sorted(set(names))[:500]


def _node(item: Any, ref: Callable[[object], Any], refs: Refs) -> dict[str, Any]:
    """One node: the item's kind, class and contents (children as references)."""
    cls = type(item)
    if cls is list:  # the common containers first: a deep published input is 100,000 of them
        depth, innermost = _chain(item)
        if depth >= CHAIN:
            return {"k": "chain", "depth": depth, "v": [ref(x) for x in innermost]}
        return {"k": "list", "v": [ref(x) for x in item]}
    if cls is dict:
        return {"k": "dict", "v": [[ref(k), ref(v)] for k, v in item.items()]}
    if cls is tuple:
        return {"k": "tuple", "v": [ref(x) for x in item]}
    remote = refs.remote_id(item)
    if remote is not None:
        return {"k": "ref", "mine": False, "id": remote}
    is_class = issubclass(cls, type)  # every check below asks the real class, never `__class__`
    if getattr(refs, "shares_objects", False) and _notebook_class(item if is_class else cls):
        if is_class:
            return {"k": "class", "id": refs.export(item), "name": item.__name__, "methods": _methods(item)}
        if _base_of(item) is None and not issubclass(cls, BaseException):
            return {"k": "instance", "id": refs.export(item), "v": [ref(cls)]}
    if is_class:
        if any(item is builtin for builtin in BUILTIN_TYPES.values()):
            return {"k": "type", "name": item.__name__}
        return {"k": "opaque", "type": "type"}
    if _is_course_record(cls) and not (callable(item) and dataclasses.is_dataclass(cls)):
        if dataclasses.is_dataclass(cls):
            fields = {f.name: ref(getattr(item, f.name)) for f in dataclasses.fields(item)}
            return {"k": "obj", "path": _class_path(cls), "fields": fields}
        return {"k": "ntuple", "path": _class_path(cls), "items": [ref(x) for x in item]}
    if issubclass(cls, types.MappingProxyType):
        return {"k": "dict", "c": "types.MappingProxyType", "v": [[ref(k), ref(v)] for k, v in item.items()]}
    if issubclass(cls, collections.UserDict | collections.UserList):
        inner = _node(item.data, ref, refs)
        return {**inner, "c": _class_path(cls)}
    kind = _base_of(item)
    if kind is None and issubclass(cls, collections.abc.Iterator) and not refs.keeps_iterators:
        return {
            "k": "iter",
            "v": [ref(x) for x in itertools.islice(item, MAX_NODES)],
        }  # drained: a one-shot value
    if kind is None:
        if callable(item):
            return {"k": "ref", "mine": True, "id": refs.export(item)}
        return {"k": "opaque", "type": cls.__name__}
    node: dict[str, Any] = {"k": kind}
    if cls.__name__ != kind:
        path = _class_path(cls)
        node["c"] = path if path in KNOWN_CLASSES else {"sub": cls.__name__}
    if issubclass(cls, collections.defaultdict):
        factory = item.default_factory
        node["factory"] = factory.__name__ if factory in BUILTIN_TYPES.values() else None
    if kind in ("bool", "int", "str", "float"):
        node["v"] = ref({"bool": bool, "int": int, "str": str, "float": float}[kind](item))
    elif kind in ("bytes", "bytearray"):
        node["v"] = bytes(item).decode("latin-1")
    elif kind == "complex":
        node["v"] = [ref(item.real), ref(item.imag)]
    elif kind == "dict":
        pairs: list[tuple[Any, Any]] = list(dict.items(item))
        node["v"] = [[ref(k), ref(v)] for k, v in pairs]
    else:
        node["v"] = [ref(x) for x in item]
    return node


def decode(
    wire: Any, refs: Refs, strict: bool, back: list[object] | None = None
) -> tuple[object, list[object]]:
    """The value of a wire form, and the objects of its nodes; `strict` for what the learner sent."""
    try:
        return _Decoder(wire, refs, strict, back or []).run(wire)
    except CodecError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as error:
        raise CodecError(
            f"a value that does not decode: {type(error).__name__}: {str(error)[:100]}"
        ) from None


class _Decoder:
    """Three passes: empty mutable containers first, then immutable ones children first, then fill the mutable."""

    def __init__(self, wire: Any, refs: Refs, strict: bool, back: list[object]) -> None:
        if type(wire) is not dict or type(wire.get("n")) is not list:
            raise CodecError("a value that is not a {v, n} object")
        self.nodes: list[Any] = wire["n"]
        if len(self.nodes) > MAX_NODES:
            raise CodecError(f"more than {MAX_NODES} containers in one value")
        self.top = wire.get("v")
        self.refs, self.strict, self.back = refs, strict, back
        self.objects: list[object] = [_UNSET] * len(self.nodes)
        self._inner: dict[int, Any] = {}
        """id of a MappingProxyType or UserDict/UserList made here -> the container it wraps (filled in pass 3)."""

    def run(self, wire: Any) -> tuple[object, list[object]]:
        chained = 0
        for index, node in enumerate(self.nodes):
            if type(node) is not dict:
                raise CodecError(f"node {index} is not an object")
            if node.get("k") == "chain":
                chained += _depth(node) - 1
        if self.strict and chained:
            _within_budget(wire, chained)
        for index, node in enumerate(self.nodes):
            if node.get("k") in _MUTABLE:
                self.objects[index] = self._empty(node)
        for index in range(len(self.nodes)):
            if self.objects[index] is _UNSET:
                self._build(index)
        for index, node in enumerate(self.nodes):
            if node.get("k") in _MUTABLE:
                self._fill(self.objects[index], node)
        return self.value(self.top), self.objects

    def value(self, item: Any) -> object:
        if item is None or type(item) in (bool, int, str, float):
            return item
        if type(item) is dict and len(item) == 1:
            if "n" in item:
                found = self.objects[_index(item["n"], len(self.objects))]
                if found is _UNSET:
                    raise CodecError("an immutable value that contains itself")
                return found
            if "b" in item:
                return self.back[_index(item["b"], len(self.back))]
            if "f" in item:
                return float(str(item["f"]))
        raise CodecError(f"not a value: {str(item)[:60]}")

    def _class(self, node: dict[str, Any], kind: str) -> type | None:
        described = node.get("c")
        if described is None:
            return None
        if type(described) is str and described in KNOWN_CLASSES:
            return KNOWN_CLASSES[described]
        if type(described) is dict and type(described.get("sub")) is str and not self.strict:
            return _subclass(kind, described["sub"])
        return None  # the trusted side keeps the base type of a class it does not know

    def _empty(self, node: dict[str, Any]) -> object:
        kind = node["k"]
        if kind == "obj":
            cls = self._record_class(node)
            return object.__new__(cls) if cls is not None else Opaque(str(node.get("path")))
        cls = self._class(node, kind)
        if kind == "dict" and cls is collections.defaultdict:
            factory = BUILTIN_TYPES.get(str(node.get("factory")))
            return collections.defaultdict(factory)
        if cls is types.MappingProxyType and kind == "dict":
            inner: dict[Any, Any] = {}
            self._inner[id(proxy := types.MappingProxyType(inner))] = inner
            return proxy
        if cls in (collections.UserDict, collections.UserList) and kind in ("dict", "list"):
            wrapper: Any = cls()
            self._inner[id(wrapper)] = wrapper.data
            return wrapper
        if kind in ("dict", "list") and cls is not None:
            return cls()
        return {"list": list, "chain": list, "dict": dict, "set": set, "bytearray": bytearray}[kind]()

    def _record_class(self, node: dict[str, Any]) -> type | None:
        path = node.get("path")
        if type(path) is not str or not path.startswith("course_lib."):
            return None
        module_name, _, name = path.rpartition(".")
        try:  # the trusted side imports nothing the learner names: only modules it has loaded itself
            module = sys.modules.get(module_name) if self.strict else importlib.import_module(module_name)
            cls = getattr(module, name)
        except (ImportError, AttributeError):
            return None
        return cls if isinstance(cls, type) and _is_course_record(cls) else None

    def _fill(self, target: object, node: dict[str, Any]) -> None:
        kind = node["k"]
        target = self._inner.get(id(target), target)
        if isinstance(target, Opaque):
            return
        if kind == "obj":
            fields = node.get("fields")
            if type(fields) is not dict:
                raise CodecError("a record without fields")
            known = {f.name for f in dataclasses.fields(target)}  # type: ignore[arg-type]
            for name, item in fields.items():
                if name in known:
                    object.__setattr__(target, name, self.value(item))
        elif kind == "dict":
            for key, item in _pairs(node.get("v")):
                target[self.value(key)] = self.value(item)  # type: ignore[index]
        elif kind == "list":
            target.extend(self.value(x) for x in _items(node.get("v")))  # type: ignore[attr-defined]
        elif kind == "chain":
            current: Any = target
            for _ in range(_depth(node) - 1):
                current.append([])
                current = current[0]
            current.extend(self.value(x) for x in _items(node.get("v")))
        elif kind == "set":
            target.update(self.value(x) for x in _items(node.get("v")))  # type: ignore[attr-defined]
        elif kind == "bytearray":
            target.extend(str(node.get("v")).encode("latin-1"))  # type: ignore[attr-defined]

    def _build(self, start: int) -> None:
        """Build an immutable node after the immutable nodes it contains (iteratively)."""
        stack, visiting = [start], set()
        while stack:
            index = stack[-1]
            if self.objects[index] is not _UNSET:
                stack.pop()
                continue
            waiting = [i for i in self._children(self.nodes[index]) if self.objects[i] is _UNSET]
            if waiting:
                if index in visiting:
                    raise CodecError("an immutable value that contains itself")
                visiting.add(index)
                stack.extend(waiting)
                continue
            self.objects[index] = self._immutable(self.nodes[index])
            stack.pop()

    def _children(self, node: dict[str, Any]) -> list[int]:
        found, stack = [], [node.get("v"), node.get("items"), node.get("fields")]
        while stack:
            item = stack.pop()
            if type(item) is list:
                stack.extend(item)
            elif type(item) is dict and set(item) == {"n"}:
                found.append(_index(item["n"], len(self.nodes)))
        return found

    def _immutable(self, node: dict[str, Any]) -> object:
        kind = node.get("k")
        cls = self._class(node, str(kind))
        if kind in ("int", "str", "float", "bool"):
            raw = self.value(node.get("v"))
            base = {"int": int, "str": str, "float": float, "bool": bool}[kind]
            if type(raw) is not base and not (base is float and type(raw) is int):
                raise CodecError(f"a {kind} node holding {type(raw).__name__}")
            return (cls or base)(raw)
        if kind == "bytes":
            data = str(node.get("v")).encode("latin-1")
            return cls(data) if cls is not None else data
        if kind == "complex":
            real, imag = (self.value(x) for x in _items(node.get("v")))
            return complex(float(real), float(imag))  # type: ignore[arg-type]
        if kind in ("tuple", "frozenset"):
            items = [self.value(x) for x in _items(node.get("v"))]
            return (cls or {"tuple": tuple, "frozenset": frozenset}[kind])(items)
        if kind == "iter":
            return iter([self.value(x) for x in _items(node.get("v"))])
        if kind == "ntuple":
            record = self._record_class(node)
            items = [self.value(x) for x in _items(node.get("items"))]
            return record(*items) if record is not None else Opaque(str(node.get("path")))
        if kind == "ref":
            # "mine" is the sender's word: its own object is a proxy here, ours comes back as itself
            return self.refs.resolve(node.get("mine") is not True, _index(node.get("id"), 1 << 62))
        if kind in ("class", "instance") and self.strict:
            ident = _index(node.get("id"), 1 << 62)
            if kind == "class":
                methods = node.get("methods")
                return self.refs.remote_class(
                    ident, str(node.get("name"))[:100], [str(m)[:100] for m in _items(methods)][:500]
                )
            described = [self.value(x) for x in _items(node.get("v"))][:1]
            return self.refs.remote_instance(ident, described[0] if described else None)
        if kind in ("class", "instance"):
            return self.refs.resolve(False, _index(node.get("id"), 1 << 62))
        if kind == "type":
            return BUILTIN_TYPES.get(str(node.get("name")), Opaque("type"))
        if kind == "opaque":
            return Opaque(str(node.get("type"))[:100]) if self.strict else _opaque(str(node.get("type")))
        raise CodecError(f"a node of unknown kind {str(kind)[:20]!r}")


_UNSET = object()


def _depth(node: dict[str, Any]) -> int:
    """The number of lists a chain node stands for."""
    depth = node.get("depth")
    if type(depth) is not int or not 0 < depth <= MAX_NODES:
        raise CodecError("a chain of lists with no valid depth")
    return depth


def _within_budget(wire: Any, chained: int) -> None:
    """Refuse a wire form whose chains would build more lists than its size pays for."""
    size = len(json.dumps(wire, ensure_ascii=True, separators=(",", ":")))
    if chained > CHAIN_LISTS_PER_BYTE * size:
        raise CodecError(
            f"a value of {size} bytes whose chains would build {chained} lists "
            f"(at most {CHAIN_LISTS_PER_BYTE} per byte)"
        )


def _index(item: Any, size: int) -> int:
    if type(item) is not int or not 0 <= item < size:
        raise CodecError(f"a reference out of range: {str(item)[:20]}")
    return item


def _items(value: Any) -> list[Any]:
    if type(value) is not list:
        raise CodecError("a container without a list of items")
    return value


def _pairs(value: Any) -> list[tuple[Any, Any]]:
    pairs = _items(value)
    if not all(type(pair) is list and len(pair) == 2 for pair in pairs):
        raise CodecError("a dict whose items are not pairs")
    return [(pair[0], pair[1]) for pair in pairs]


_SUBCLASSES: dict[tuple[str, str], type] = {}


def _subclass(kind: str, name: str) -> type | None:
    """A class of that name deriving from the builtin `kind`, made once (the learner side only)."""
    base = {"int": int, "float": float, "str": str, "bytes": bytes, "dict": dict, "list": list,
            "tuple": tuple, "set": set, "frozenset": frozenset}.get(kind)  # fmt: skip
    if base is None:
        return None
    key = (kind, name)
    if key not in _SUBCLASSES:
        _SUBCLASSES[key] = type(name[:100], (base,), {})
    return _SUBCLASSES[key]


def _opaque(type_name: str) -> object:
    """A plain object standing for one the trusted side could not send (the learner side only)."""
    return type(type_name[:100] or "object", (), {})()
