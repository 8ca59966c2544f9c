"""A unit's result stored with the lists and dicts its records' parts repeat stored once.

The findings of a consistency group each carry the versions of their translation family in
their evidence: a group's findings repeat the same version dicts (on the million-unit
corpus, 617,264 version dicts in the groups' entries, 56,778 of them distinct within their
entry). Encoded as they are, every repeat is stored, decoded and then made one object again
(``tables.share``) on every run that reads the entry back.

Stored by ``encode``, an entry is its *parts*, each list or dict of the parts' values once
(those inside it put as references to the parts before it), then the result whose parts'
values are references. ``decode`` decodes each part once, in order, made single among the
run's values as it comes (its lists and dicts are single already: ``tables.single_over``),
and the result with each reference the part's one object. So a repeated value is decoded
once per entry and looked up once per entry, and equal values in other entries are the
same object as ``tables.share`` would make them.

The parts are the values of the fields ``STORED_ONCE`` names (fields typed ``dict[str,
Any]``: a reference may stand for any of their values, and nowhere else). References are
MessagePack extension values of type ``REFERENCE``, the part's index in four bytes.
"""

from __future__ import annotations

import threading
from typing import Any

import msgspec

from .model import Finding, as_dict
from .tables import single_over

STORED_ONCE: dict[type, tuple[str, ...]] = {Finding: ("evidence",)}
"""The record types whose fields' values are stored as parts, and those fields."""
REFERENCE = 1
"""The MessagePack extension type of a reference to a part."""

_ENTRY = msgspec.msgpack.Decoder(tuple[list[msgspec.Raw], msgspec.Raw])


class PartsOnce:
    """How results of one record type are encoded with their parts once, and decoded."""

    def __init__(self, record: Any) -> None:
        self._encode = msgspec.msgpack.Encoder().encode
        self._local = threading.local()
        hook = self._part
        self._parts = msgspec.msgpack.Decoder(ext_hook=hook)
        self._result = msgspec.msgpack.Decoder(record, ext_hook=hook)

    def encode(self, result: Any) -> bytes:
        parts = _Parts(self._encode)
        body = self._encode(parts.in_result(result))
        return self._encode((parts.stored, msgspec.Raw(body)))

    def decode(self, data: bytes | memoryview, copies: dict[Any, Any] | None = None) -> Any:
        """The result stored in ``data``; with ``copies``, each of its parts the one object
        of its value there (``tables.share``'s ``copies``), its records' parts' values too.
        msgspec.DecodeError or ValueError when ``data`` is no such entry."""
        stored, body = _ENTRY.decode(data)
        local = self._local
        local.parts = parts = []
        try:
            for raw in stored:
                value = self._parts.decode(raw)
                kind = type(value)
                if copies is not None and (kind is list or kind is dict):
                    value = single_over(kind, value, copies)
                parts.append(value)
            result = self._result.decode(body)
        finally:
            local.parts = []
        if copies is not None:
            _parts_single(result, copies)
        return result

    def _part(self, code: int, data: memoryview) -> Any:
        if code != REFERENCE or len(data) != 4:
            raise ValueError(f"not a reference to a part: extension type {code}")
        try:
            return self._local.parts[int.from_bytes(data, "little")]
        except IndexError:
            raise ValueError("a reference to a part not stored before it") from None


class _Parts:
    """The parts of one entry being encoded: each list or dict once, by its bytes."""

    def __init__(self, encode: Any) -> None:
        self.encode = encode
        self.stored: list[msgspec.Raw] = []
        self.index: dict[bytes, int] = {}

    def in_result(self, value: Any) -> Any:
        """The result to encode: its records' parts' values as references (a record as the
        map of its fields, which encodes as the record does)."""
        kind = type(value)
        if kind is list:
            return [self.in_result(item) for item in value]
        if kind is dict:
            return {key: self.in_result(item) for key, item in value.items()}
        names = STORED_ONCE.get(kind)
        if names is None:
            return value
        fields = as_dict(value)
        for name in names:
            part = fields[name]
            if type(part) is dict:
                fields[name] = {key: self.reference(item) for key, item in part.items()}
        return fields

    def reference(self, value: Any) -> Any:
        """A list or dict as a reference to its part (its own lists and dicts references to
        theirs, stored before it); any other value as it is."""
        kind = type(value)
        if kind is list:
            inner: Any = [self.reference(item) for item in value]
        elif kind is dict:
            inner = {key: self.reference(item) for key, item in value.items()}
        else:
            return value
        packed = self.encode(inner)
        at = self.index.get(packed)
        if at is None:
            at = self.index[packed] = len(self.stored)
            self.stored.append(msgspec.Raw(packed))
        return msgspec.msgpack.Ext(REFERENCE, at.to_bytes(4, "little"))


def _parts_single(value: Any, copies: dict[Any, Any]) -> None:
    """Each record's parts (whose values are single already) made single in ``copies``."""
    kind = type(value)
    if kind is list:
        for item in value:
            _parts_single(item, copies)
    elif kind is dict:
        for item in value.values():
            _parts_single(item, copies)
    else:
        for name in STORED_ONCE.get(kind, ()):
            part = getattr(value, name)
            if type(part) is dict:
                setattr(value, name, single_over(dict, part, copies))
