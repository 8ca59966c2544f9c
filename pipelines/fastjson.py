"""The standard library's compact JSON, written by orjson and read by msgspec.

The stage tables and the work cache hold JSON as ``json`` writes it with
``ensure_ascii=False, separators=(",", ":")``, and read it as ``json.loads`` does. On the
183,568 records of a 100k run's corpus, alignment and findings, with the cyclic collector
paused as ``tables`` pauses it, ``tables`` writes them in 1.14 s against 1.58 s and reads them
in 0.43 s against 1.13 s (``benchmarks/results/json_codec.md``). msgspec reads exactly
what ``json`` reads, numbers beyond 64 bits included (orjson reads those as floats); orjson
writes floats as Python writes them but for those under 1e-4 (msgspec writes large ones
otherwise too, and no cheap test of the bytes tells them from text). An edited 100k run
takes 9% less time and 10% less CPU with it (``README.md``, incremental runs).

Where a library would differ from the standard library, the value goes through the standard
library instead, so the bytes written and the values read are the standard library's:

- written: a float under 1e-4 (orjson writes ``9.9e-5`` or ``0.000099`` where Python writes
  ``9.9e-05``; every other float alike, tested on 300,000 of every magnitude), an integer
  beyond 64 bits, text with a lone surrogate, keys that are not strings;
- read: what msgspec refuses and ``json.loads`` takes (``NaN``, ``1e400``, an escaped lone
  surrogate), and malformed text, for ``json``'s own error message.

One difference is kept: NaN and the infinities are written as ``null`` (as orjson writes
them, the values that go through ``json`` too), where the tables' encoder refused them and
the report's wrote ``NaN``, which is not JSON (no record holds one: they come from no
computation of a record).

The report writers use it too (the HTML page's data, SARIF): the same text, sooner.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

import msgspec
import orjson

from .model import as_dict


def _fields(value: Any) -> dict[str, Any]:
    """A dataclass instance as orjson writes it: its fields in declaration order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return as_dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_ENCODERS = {
    sort_keys: json.JSONEncoder(
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
        check_circular=False,
        default=_fields,
        sort_keys=sort_keys,
    )
    for sort_keys in (False, True)
}
_OPTIONS = {False: 0, True: orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS}
"""orjson sorts keys by their UTF-8 bytes, which is the order of their code points, as
``json`` sorts them (a key with a lone surrogate, the one exception, is refused by orjson
and so written by ``json``). It writes a dataclass's fields unsorted, so with sorted keys a
dataclass goes through ``_fields`` as a dict."""
_SMALL_FLOAT = re.compile(rb"\de-\d")
"""orjson's exponent for a float under 1e-4; Python writes at least two digits (e-05)."""
_DECODER = msgspec.json.Decoder()


def dumps(value: Any, *, sort_keys: bool = False) -> bytes:
    """``value`` as compact JSON in UTF-8, the bytes ``json`` would write (a dataclass
    instance as the object of its fields in order; with ``sort_keys``, every object's keys
    in order). A dataclass with slots is written straight from its fields; give one with a
    ``__dict__`` as a dict (orjson writes the ``__dict__``, which may hold more than the
    fields)."""
    try:
        data = orjson.dumps(value, default=_fields, option=_OPTIONS[sort_keys])
    except TypeError:  # orjson.JSONEncodeError included
        data = None
    if data is None or (b"e-" in data and _SMALL_FLOAT.search(data)) or b"0.0000" in data:
        try:
            return _ENCODERS[sort_keys].encode(value).encode("utf-8")
        except UnicodeError:  # a lone surrogate: as json fails
            raise
        except ValueError:  # NaN or an infinity: json refuses them
            return _ENCODERS[sort_keys].encode(_finite(value)).encode("utf-8")
    return data


def _finite(value: Any) -> Any:
    """``value`` with NaN and the infinities as None, as orjson writes them (``json`` would
    refuse them): the rare value that goes through ``json`` with one is written as orjson
    writes the others."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _finite(as_dict(value))
    return value


def text(value: Any, *, sort_keys: bool = False) -> str:
    """``dumps`` as text: what ``json``'s encoder with these options returns."""
    return dumps(value, sort_keys=sort_keys).decode("utf-8")


def indented(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)``, the same text.

    With ``indent`` the standard library encodes in pure Python, a generator per container:
    the run manifest of a million-unit run (112,000 input files' digests) took 5.7 s
    profiled. Here each scalar goes through ``json``'s C encoder and each container is
    joined once. A mapping with a key that is not a string goes through ``json`` whole (it
    turns such keys into strings before sorting them)."""
    parts: list[str] = []
    _indented(value, "\n", parts)
    return "".join(parts)


_scalar = json.JSONEncoder(ensure_ascii=False).encode


def _indented(value: Any, newline: str, parts: list[str]) -> None:
    if isinstance(value, dict) and value:
        if not all(isinstance(key, str) for key in value):
            parts.append(
                json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True).replace(
                    "\n", newline
                )
            )
            return
        inner = newline + " "
        opening = "{" + inner
        for key in sorted(value):
            parts.append(opening + _scalar(key) + ": ")
            _indented(value[key], inner, parts)
            opening = "," + inner
        parts.append(newline + "}")
    elif isinstance(value, list | tuple) and value:
        inner = newline + " "
        opening = "[" + inner
        for item in value:
            parts.append(opening)
            _indented(item, inner, parts)
            opening = "," + inner
        parts.append(newline + "]")
    elif isinstance(value, dict):
        parts.append("{}")
    elif isinstance(value, list | tuple):
        parts.append("[]")
    else:
        parts.append(_scalar(value))


def loads(text: str | bytes) -> Any:
    """The value of a JSON text, as ``json.loads`` reads it (and its errors)."""
    try:
        return _DECODER.decode(text)
    except msgspec.DecodeError:
        return json.loads(text)
