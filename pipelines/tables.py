"""The stage files in the output folder: JSON Lines in, JSON Lines out, byte-identical."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import json
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from operator import attrgetter
from pathlib import Path
from types import MemberDescriptorType
from typing import IO, Any, TypeVar

import msgspec

from . import fastjson
from .files import write_atomic, wrote
from .hashing import Hasher
from .heap import pause_done
from .model import (
    REPEATED_COLUMNS,
    SHARED_PARTS,
    Alignment,
    Finding,
    Ruling,
    as_dict,
    column_names,
    field_getter,
)

CORPUS = "corpus.jsonl"
PARSE_FINDINGS = "parse-findings.jsonl"
CARD_NAMES = "cards.jsonl"
ALIGNMENT = "alignment.jsonl"
FINDINGS = "findings.jsonl"
SUPPRESSED = "suppressed.jsonl"
INPUTS = "inputs.jsonl"
"""The bilingual CAT files a run read, where they were read and their digest (the report
writes each back annotated: ``report/writers/annotated.py``)."""

T = TypeVar("T")


class TableError(Exception):
    """A stage file that is missing or malformed: the command exits 2."""


def dumps(record: Any) -> str:
    """One record as compact JSON, fields in declaration order (``model.as_dict``)."""
    return _line(record).decode("utf-8")


def _line(record: Any) -> bytes:
    """A record's line in its table, without the line end."""
    if hasattr(record, "__dataclass_fields__") and not _slotted(type(record)):
        record = as_dict(record)
    return fastjson.dumps(record)


@cache
def _slotted(record_type: type) -> bool:
    """Whether a record has its fields and nothing else (a dataclass with slots, as every
    record of ``model`` is): ``fastjson`` writes it as it is, without a dict made first
    (which took more time than the writing)."""
    return record_type.__dictoffset__ == 0


def values_json(records: Sequence[Any]) -> bytes:
    """Records of one type as one JSON array of their field values in declaration order, in
    UTF-8 (what a cache key digests: the same content, the same bytes), encoded in one call."""
    if not records:
        return b"[]"
    values = field_getter(type(records[0]))
    return fastjson.dumps([values(record) for record in records])


def write_jsonl(
    path: Path, records: Iterable[Any], on_line: Callable[[Any, bytes], None] | None = None
) -> Path:
    """Write records one per line, atomically (a reader never sees half a file).
    ``on_line`` is given each record with its line (``CorpusDigests.add``)."""

    def write(handle: _Digesting) -> None:
        for chunk, lines in _encoded(records):
            handle.write(b"\n".join(lines))
            handle.write(b"\n")
            if on_line is not None:
                for record, line in zip(chunk, lines, strict=True):
                    on_line(record, line)

    return _write_table(path, write)


def write_parts(path: Path, parts: Iterable[bytes | list[Any]]) -> Path:
    """Write a table from parts in order, each its lines' bytes (``Lines.encoded``) or
    records, encoded a chunk at a time as ``write_jsonl`` encodes them, atomically."""

    def write(handle: _Digesting) -> None:
        for part in parts:
            if isinstance(part, bytes | bytearray | memoryview):
                handle.write(part)
                continue
            for _, lines in _encoded(part):
                handle.write(b"\n".join(lines))
                handle.write(b"\n")

    return _write_table(path, write)


def _write_table(path: Path, write: Callable[[_Digesting], None]) -> Path:
    """Write a table atomically, its bytes digested as they are written (``files.wrote``):
    the check stage's key and the reports' inputs take the digest of the tables ingest
    wrote without reading them again (the 400 MB AllPrintings-shaped file's corpus and card
    names tables are 56 and 28 MB)."""
    digest = Hasher()
    write_atomic(path, lambda handle: write(_Digesting(handle, digest)))
    wrote(path, digest.hexdigest())
    return path


class _Digesting:
    """A binary file whose bytes are digested as they are written."""

    __slots__ = ("_digest", "_handle")

    def __init__(self, handle: IO[bytes], digest: Hasher) -> None:
        self._handle, self._digest = handle, digest

    def write(self, data: bytes) -> None:
        self._digest.update(data)
        self._handle.write(data)


_CHUNK = 4096
"""Records encoded and written together."""


def _encoded(records: Iterable[Any]) -> Iterator[tuple[list[Any], list[bytes]]]:
    """The records a chunk at a time, each chunk with its lines (``_lines_of``)."""
    items = iter(records)
    while chunk := list(itertools.islice(items, _CHUNK)):
        yield chunk, _lines_of(chunk)


@dataclass(slots=True)
class Lines:
    """Records as their table writes them (``write_jsonl``): their lines, each ended by a
    newline, and each line's digest (``CorpusDigests``), one after the other. A stage that
    keeps a unit's records this way writes its table from the bytes (``write_lines``)
    instead of encoding every record again."""

    data: bytes = b""
    digests: bytes = b""

    @classmethod
    def of(cls, records: list[Any]) -> Lines:
        lines = _all_lines(records)
        if not lines:
            return cls()
        return cls(b"\n".join(lines) + b"\n", b"".join(map(_line_digest, lines)))

    @staticmethod
    def encoded(records: list[Any]) -> bytes:
        """The records' lines alone (no digests), each ended by a newline."""
        lines = _all_lines(records)
        return b"\n".join(lines) + b"\n" if lines else b""

    def line_digests(self) -> list[bytes]:
        size = _DIGEST_SIZE
        return [self.digests[at : at + size] for at in range(0, len(self.digests), size)]


def _all_lines(records: list[Any]) -> list[bytes]:
    return [line for _, chunk in _encoded(records) for line in chunk]


def write_lines(path: Path, blocks: Iterable[bytes]) -> Path:
    """Write a table from its lines' bytes (``Lines.data``), atomically."""

    def write(handle: _Digesting) -> None:
        for block in blocks:
            handle.write(block)

    return _write_table(path, write)


_LINES = msgspec.json.Encoder()
_PLAIN_ANNOTATIONS = frozenset({"str", "int", "bool", "None"})


def _lines_of(records: list[Any]) -> list[bytes]:
    """Each record's line, the bytes ``_line`` gives, a chunk encoded in one call (msgspec):
    the corpus table of a 100k run written in 0.51 s against 0.68 s, its line digests
    included (the encoding alone: 0.17 s against 0.48 s). msgspec writes a float under 1e-4
    or from 1e16 up otherwise than Python (``0.000099``, ``1e16``), every other one alike
    (tested on 600,000 of every magnitude and bit pattern); a chunk with such a float, or
    with anything else but text, numbers, lists and dicts with text keys where a record
    may hold more (``_open_fields``), goes through ``_line`` record by record, and so do
    records that are not dicts or dataclasses with slots (msgspec writes a dataclass's
    fields, ``_line`` its ``__dict__``)."""
    kinds = set(map(type, records))
    if not all(kind is dict or _slotted_record(kind) for kind in kinds) or any(
        _any_unusual(list(values))
        for kind in kinds
        for values in _open_values(kind, [r for r in records if type(r) is kind])
    ):
        return list(map(_line, records))
    try:
        data = _LINES.encode_lines(records)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        return list(map(_line, records))
    return data.split(b"\n")[:-1]


def _open_values(kind: type, records: list[Any]) -> Iterator[Iterable[Any]]:
    """The values of the records' fields that may hold more than text and whole numbers:
    every value of a dict."""
    if kind is dict:
        yield (value for record in records for value in record.values())
        return
    for name in _open_fields(kind):
        yield map(attrgetter(name), records)


@cache
def _slotted_record(kind: type) -> bool:
    return hasattr(kind, "__dataclass_fields__") and _slotted(kind)


@cache
def _open_fields(record_type: type) -> tuple[str, ...]:
    """The fields whose annotation allows more than text, whole numbers and None (a float,
    a list, a dict, anything)."""
    return tuple(
        f.name
        for f in fields(record_type)
        if not isinstance(f.type, str)
        or not {part.strip() for part in f.type.split("|")} <= _PLAIN_ANNOTATIONS
    )


def _any_unusual(values: list[Any]) -> bool:
    """Whether msgspec may write any of the values otherwise than ``json``: a float under
    1e-4 or from 1e16 up (0.0 aside), NaN, an infinity, a dict key that is not text, or a
    kind of value other than text, numbers, booleans, None, lists, tuples and dicts (or
    subclasses of text and whole numbers, which both write as such).

    The values are looked at a level at a time, all of a level's kinds told in one pass in
    C: a chunk's lines that rulings carry, mostly text and line numbers, take no call each
    (a call per value took 40-60% of the corpus and findings tables' encoding at 100k)."""
    while values:
        kinds = set(map(type, values))
        if kinds <= _PLAIN_KINDS:
            return False
        if float in kinds and any(
            value != 0 and not 1e-4 <= abs(value) < 1e16 for value in values if type(value) is float
        ):
            return True
        if any(not issubclass(kind, str | int) for kind in kinds - _KNOWN_KINDS):
            return True
        nested: list[Any] = []
        if kinds <= _SEQUENCE_KINDS:
            nested.extend(itertools.chain.from_iterable(values))
        elif list in kinds or tuple in kinds:
            nested.extend(
                itertools.chain.from_iterable(
                    [value for value in values if type(value) is list or type(value) is tuple]
                )
            )
        if dict in kinds:
            dicts = [value for value in values if type(value) is dict]
            if not set(map(type, itertools.chain.from_iterable(dicts))) <= _TEXT:
                return True
            nested.extend(itertools.chain.from_iterable(map(dict.values, dicts)))
        values = nested
    return False


_TEXT = frozenset({str})
_PLAIN_KINDS = frozenset({str, int, bool, type(None)})
_KNOWN_KINDS = _PLAIN_KINDS | {float, list, tuple, dict}
_SEQUENCE_KINDS = frozenset({list, tuple})


class CorpusDigests:
    """Each ruling's line in corpus.jsonl, digested: what the cache keys of align and check
    are made of.

    The ingest stage digests each line as it writes it and hands the digests on with the
    rulings, so a run encodes its corpus once, not once more per stage that keys its work.
    A stage that reads the corpus from its table digests each line as it reads it
    (``read_corpus``): the lines ingest wrote, so the same keys however the stage was
    started. A table changed by hand has other lines, so other keys: its work is computed
    again, never taken for another record's. Rulings that come with no lines are digested
    from their records (``of``)."""

    def __init__(self) -> None:
        self._by_id: dict[str, bytes] = {}
        """The line digest of each id given to one ruling only."""
        self._shared_ids: set[str] = set()
        """Ids given to more than one ruling: not in ``_by_id``, theirs are digested again
        when asked for."""

    def add(self, ruling: Ruling, line: bytes) -> None:
        self.add_digest(ruling, _line_digest(line))

    def add_digest(self, ruling: Ruling, line_digest: bytes) -> None:
        """A ruling with its line's digest (kept with its lines: ``Lines``)."""
        ruling_id = ruling.id
        if ruling_id in self._by_id:
            del self._by_id[ruling_id]
            self._shared_ids.add(ruling_id)
        elif ruling_id not in self._shared_ids:
            self._by_id[ruling_id] = line_digest

    @classmethod
    def of(cls, rulings: Iterable[Ruling]) -> CorpusDigests:
        digests = cls()
        for ruling in rulings:
            digests.add(ruling, _line(ruling))
        return digests

    def digest(self, rulings: Iterable[Ruling]) -> str:
        """One digest of these rulings' lines, in order. Their digests are looked up in one
        C loop, and only those the run has none for are made one by one: the groups' and
        documents' keys of a million-unit run look up some four million."""
        rulings = rulings if type(rulings) is list else list(rulings)
        found = list(map(self._by_id.get, map(_RULING_ID, rulings)))
        if None in found:
            found = [
                line_digest if line_digest is not None else self.line_digest(ruling)
                for ruling, line_digest in zip(rulings, found, strict=True)
            ]
        return hashlib.blake2b(b"".join(found), digest_size=20).hexdigest()

    def line_digest(self, ruling: Ruling) -> bytes:
        """The digest of the ruling's line (digested again from the record when the run
        has none for it, or gave its id to more than one ruling)."""
        line_digest = self._by_id.get(ruling.id)
        if line_digest is None:
            line_digest = _line_digest(_line(ruling))
        return line_digest

    def line_digests(self) -> Callable[[str], bytes | None]:
        """The digest of the line of the ruling of an id, None when it is to be digested
        from its record (``line_digest``): for a caller that asks for many."""
        return self._by_id.get


_RULING_ID = attrgetter("id")


def read_corpus(
    out: Path, seen: dict[Any, Any] | None = None
) -> tuple[list[Ruling], CorpusDigests]:
    """The rulings of ``out``'s corpus.jsonl, and the digests of their lines (``seen`` as
    for ``read_records``)."""
    digests = CorpusDigests()
    return read_records(out / CORPUS, Ruling, on_line=digests.add, seen=seen), digests


def _line_digest(line: bytes) -> bytes:
    return hashlib.blake2b(line, digest_size=_DIGEST_SIZE).digest()


def line_digests_into(digests: dict[int, bytes]) -> Callable[[Any, bytes], None]:
    """An ``on_line`` for ``write_jsonl`` and ``read_records`` that puts each record's line
    digest into ``digests`` by the record's ``id`` (``RunTables.finding_lines``)."""

    def add(record: Any, line: bytes) -> None:
        digests[id(record)] = _line_digest(line)

    return add


def record_line_digest(record: Any) -> bytes | None:
    """The digest of the line a table writes for ``record`` (``line_digests_into``'s, for a
    record that was not written or read with one); None when it cannot be written."""
    try:
        return _line_digest(_line(record))
    except (TypeError, ValueError):
        return None


_DIGEST_SIZE = 16


_BLOCK = 1 << 24
"""Bytes decoded at a time: decoding a block at once is three times as fast as reading
through a text-mode file, and a block, unlike the whole file, keeps a large table's memory
to that of its records."""


def _lines(path: Path) -> Iterator[str]:
    """The file's lines as text mode reads them (universal newlines: ``\\r\\n`` and ``\\r``
    end a line too), without their ends."""
    if not path.is_file():
        raise TableError(f"{path} is missing: run the stage that writes it first")
    with path.open("rb") as handle:
        rest = b""
        while block := handle.read(_BLOCK):
            block = rest + block
            cut = block.rfind(b"\n") + 1
            rest = block[cut:]
            if cut:
                yield from _split(block[:cut])[:-1]
        yield from _split(rest)


def _split(block: bytes) -> list[str]:
    text = block.decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _loads(path: Path, number: int, line: str) -> Any:
    """One line's value, exactly as ``json.loads`` reads it (or TableError)."""
    try:
        return fastjson.loads(line)
    except json.JSONDecodeError as error:
        raise TableError(f"{path}:{number}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise TableError(f"{path}:{number}: not valid JSON (nested too deeply)") from None


def iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for _, _, value in _rows(path):
        yield value


def _rows(path: Path) -> Iterator[tuple[int, str, Any]]:
    """(line number, line, value) of each line that is not blank."""
    for number, line in enumerate(_lines(path), 1):
        if line.strip():
            yield number, line, _loads(path, number, line)


SHARED_FROM_BYTES = 128 << 20
"""A table this large is read with its repeated values made one object each (``seen``), a
smaller one as it is, in half the time: the corpus table of the 100k run (69 MB) is read
in 2.8 s holding 61 MiB that way, in 1.4 s holding 155 MiB as it is. The memory matters
for the tables of a million units (ten times as large), the time for a stage command
that reads a small run's tables."""


def table_bytes(path: Path) -> int:
    """The bytes of a table's file, 0 when it cannot be looked at (``_lines`` says why when
    it is read)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def read_records(
    path: Path,
    record_type: type[T],
    on_line: Callable[[T, bytes], None] | None = None,
    *,
    seen: dict[Any, Any] | None = None,
) -> list[T]:
    """The records of a table, in order. ``on_line`` is given each record with its line as
    written (``CorpusDigests.add``: the digests of a table read back are those taken while
    it was written). ``seen`` keeps the values read once (``REPEATED_COLUMNS``,
    ``SHARED_PARTS``) across the tables it is given to: the ruling ids of the corpus are
    then the same strings in the alignment and the findings. A table of fewer than
    SHARED_FROM_BYTES bytes is read as it is, unless ``seen`` holds values already."""
    names = column_names(record_type)
    in_order = names if _positional(record_type) else None
    known = set(names)
    one_copy: dict[Any, Any] = {} if seen is None else seen
    sharing = bool(one_copy) or table_bytes(path) >= SHARED_FROM_BYTES
    repeated = REPEATED_COLUMNS.get(record_type, frozenset()) if sharing else frozenset()
    shared = SHARED_PARTS.get(record_type, frozenset()) if sharing else frozenset()
    records = []
    append = records.append
    with paused_gc():
        for number, line, row in _rows(path):
            try:
                if type(row) is dict and tuple(row) == in_order:
                    # The file as write_jsonl wrote it: every field, in order.
                    values = list(row.values())
                    if sharing:
                        single_values(record_type, values, one_copy)
                    append(record_type(*values))
                else:
                    given = {k: v for k, v in row.items() if k in known}
                    for name in repeated & given.keys():
                        if type(value := given[name]) is str:
                            given[name] = one_copy.setdefault(value, value)
                    for name in shared & given.keys():
                        given[name] = _one_copy(given[name], one_copy)
                    append(record_type(**given))
            except TypeError as error:
                raise TableError(
                    f"{path}:{number}: not a {record_type.__name__} ({error})"
                ) from None
            if on_line is not None:
                on_line(records[-1], line.encode("utf-8"))
    return records


def single_values(record_type: type, values: list[Any], copies: dict[Any, Any]) -> list[Any]:
    """A record's field values in order (a row of its table, or of a cache entry: changed in
    place), each repeated column's string and each shared part replaced by the equal one
    ``copies`` has seen, as ``read_records`` reads a table: the rows of a million units
    read back from the cache take the memory they took when computed, not a copy of every
    id and every version in each row. TypeError when ``values`` is not a list (a damaged
    cache entry)."""
    if type(values) is not list:
        raise TypeError(f"a {record_type.__name__}'s values are a list of its fields")
    repeated, shared = _single_positions(record_type)
    count = len(values)
    for i in repeated:
        if i < count and type(value := values[i]) is str:
            values[i] = copies.setdefault(value, value)
    for i in shared:
        if i < count:
            values[i] = _one_copy(values[i], copies)
    return values


@cache
def _single_positions(record_type: type) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The positions of ``record_type``'s repeated columns and of its shared parts."""
    names = column_names(record_type)
    repeated = REPEATED_COLUMNS.get(record_type, frozenset())
    shared = SHARED_PARTS.get(record_type, frozenset())
    return (
        tuple(i for i, name in enumerate(names) if name in repeated),
        tuple(i for i, name in enumerate(names) if name in shared),
    )


def _one_copy(value: Any, copies: dict[Any, Any]) -> Any:
    """``value`` with every string, list and dict in it replaced by the first equal one
    ``copies`` has seen (``SHARED_PARTS``). Inner values are made single first, so a
    container is known by its kind and the identities of its items. Other values (numbers,
    booleans, None) are kept as they are.

    A container is looked up first by its MessagePack bytes, or their digest when they are
    long (``PACKED_AS_KEY``; kinds, key order and the bits of every number in them: equal
    bytes, equal containers), so that one seen before is found without a walk through it:
    most findings' evidence on an edited million-unit run is one seen before, and the walks
    took 17 of its 362 s profiled."""
    kind = type(value)
    if kind is str:
        return copies.setdefault(value, value)
    if kind is not list and kind is not dict:
        return value
    if not value:
        return copies.setdefault((kind,), value)  # as _walked keys an empty one
    try:
        packed = _PACK(value)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        return _walked(kind, value, copies)
    if len(packed) <= PACKED_AS_KEY:
        content = (_PACKED, packed)
    else:
        content = (_CONTENT, hashlib.blake2b(packed, digest_size=16).digest())
    found = copies.get(content)
    if found is None:
        found = copies[content] = _walked(kind, value, copies)
    return found


_CONTENT = object()
"""The mark of a content digest among ``copies``' keys."""
_PACKED = object()
"""The mark of a short container's own MessagePack bytes among ``copies``' keys."""
_PACK = msgspec.msgpack.Encoder().encode
PACKED_AS_KEY = 64
"""A container whose MessagePack bytes are at most this long is looked up by those bytes,
not by their digest (hashing a few bytes costs less than a BLAKE2b call): the carried lines
of the million-unit corpus's rulings were made single in 1.19 s instead of 1.60 s, the same
objects made one (``benchmarks/results/work_layer.md``). The keys are the stage's only."""


def _walked(kind: type, value: Any, copies: dict[Any, Any]) -> Any:
    """``_one_copy`` of a list or dict, its items made single first."""
    if kind is list:
        return _single(list, [_one_copy(item, copies) for item in value], copies)
    entries = {
        copies.setdefault(name, name): _one_copy(item, copies) for name, item in value.items()
    }
    return _single(dict, entries, copies)


def single_over(kind: type, value: Any, copies: dict[Any, Any]) -> Any:
    """``_one_copy`` of a list or dict whose lists and dicts are single in ``copies``
    already (``parts_once``: decoded from references to them): its texts made single and
    it looked up as ``_walked`` looks it up, without the walk through its items."""
    setdefault = copies.setdefault
    if kind is list:
        items = [setdefault(item, item) if type(item) is str else item for item in value]
        return _single(list, items, copies)
    entries = {
        setdefault(name, name): setdefault(item, item) if type(item) is str else item
        for name, item in value.items()
    }
    return _single(dict, entries, copies)


def _single(kind: type, made: Any, copies: dict[Any, Any]) -> Any:
    """The one object of a list or dict whose items are single already: known by its kind
    and its items' identities (a dict's keys, then its values)."""
    if kind is list:
        return copies.setdefault((list, *map(_identity, made)), made)
    key = (dict, *map(_identity, made), *map(_identity, made.values()))
    return copies.setdefault(key, made)


def _identity(value: Any) -> Any:
    """What tells a value made single by ``_one_copy`` from others: its identity for the
    kinds it makes single, else its kind and value (1, 1.0 and True are equal in Python
    but not the same JSON; nor are 0.0 and -0.0, told apart by their text)."""
    kind = type(value)
    if kind is str or kind is list or kind is dict:
        return id(value)
    return (kind, repr(value)) if kind is float else (kind, value)


@cache
def _positional(record_type: type) -> bool:
    """Whether a record can be made from its field values in order (every field is an
    argument of ``__init__``, none keyword-only)."""
    return all(f.init and not f.kw_only for f in fields(record_type))


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection inside (for the whole process): for building many
    objects that make no cycles (records from JSON, report rows). Each collection of the
    oldest generation walks every object alive, the tables already read included, so on a
    large corpus the collector took a large share of the time; reference counting still
    frees everything as before, and cycles are collected once the collector is back on."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        pause_done()
        gc.enable()


@dataclass
class RunTables:
    """Everything a run produced, as records (``pipelines.load`` gives DataFrames)."""

    rulings: list[Ruling]
    alignment: list[Alignment] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    termbase: Any = None
    """The termbase the checks used (shipped plus --termbase files), for the TBX export."""
    source_lang: str = "en"
    codes: tuple[Any, ...] = ()
    """The catalogue rows (``catalogue.Code``) of the team's checklist rules, for the reports
    that describe each code."""
    inputs: list[dict[str, Any]] = field(default_factory=list)
    """The bilingual inputs (``INPUTS``): ``file``, ``path``, ``format``, ``digest``."""
    xliff_state: str = "keep"
    """``--xliff-state``: what the annotated inputs do with the state of units in error."""
    explanations: dict[str, str] = field(default_factory=dict)
    """Each catalogued code's explanation, as ``rulings rules`` prints it (the report stage
    gives them: ``check.registry.explanations``), for the reports that describe each code."""
    previous: Any = None
    """The report files of the folder the run replaces and where their rows are
    (``report.kept_rows.PreviousReports``): a writer copies the rows that did not change.
    None: every row is written."""
    digests: CorpusDigests | None = None
    """The digests of the rulings' lines in corpus.jsonl (ingest's, or taken as the table
    was read): what a report row is made of, instead of the rulings' texts encoded again.
    None: digested from the records when a writer asks (``report.rows.line_digest_of``)."""
    finding_lines: dict[int, bytes] = field(default_factory=dict)
    """The digest of each finding's and suppressed finding's line in its table, by the
    finding's ``id`` (taken as the check stage wrote them or as the table was read): what a
    finding's report rows are made of. A finding without one is digested from its record."""
    document_keys: dict[str, str] = field(default_factory=dict)
    """What the checks of each translated document read, in one digest, in the run that
    checked them (``check.CheckContext.document_keys``): its units, its alignment rows and
    every ruling of the documents they point into. Empty when the tables were read from
    their files."""

    @property
    def by_id(self) -> dict[str, Ruling]:
        return {r.id: r for r in self.rulings}

    @classmethod
    def load(
        cls, out: Path, *, alignment: bool = True, findings: bool = True, digests: bool = False
    ) -> RunTables:
        """The tables of ``out``; with ``digests``, the digests of the corpus's and the
        findings' lines too (``digests``, ``finding_lines``: the report stage's)."""
        suppressed = out / SUPPRESSED
        seen: dict[Any, Any] = {}
        lines: dict[int, bytes] = {}
        on_line = line_digests_into(lines) if digests else None
        rulings, corpus_digests = (
            read_corpus(out, seen)
            if digests
            else (read_records(out / CORPUS, Ruling, seen=seen), None)
        )
        return cls(
            rulings=rulings,
            alignment=read_records(out / ALIGNMENT, Alignment, seen=seen) if alignment else [],
            findings=read_records(out / FINDINGS, Finding, on_line, seen=seen) if findings else [],
            suppressed=(
                read_records(suppressed, Finding, on_line, seen=seen)
                if findings and suppressed.is_file()
                else []
            ),
            inputs=list(iter_jsonl(out / INPUTS)) if (out / INPUTS).is_file() else [],
            digests=corpus_digests,
            finding_lines=lines,
        )


def share(value: Any, copies: dict[Any, Any], parts: bool = True) -> None:
    """Records decoded from the cache by a typed decoder (a record, lists and dicts of them,
    or a record that holds them: a file's reading; changed in place): each repeated
    column's string and each shared part made the equal one ``copies`` has seen, as
    ``read_records`` reads a table, so that the rows of a million units read back take the
    memory they took when computed.
    A frozen record's fields are set as its own ``__init__`` sets them.

    The records of each type are gathered first, from every list, dict and holder in
    ``value``, and shared a column at a time all together (``_shared_by_column``): the
    cache gives many small lists (a document's findings by code, a file's rulings), and a
    pass per column of each took longer than the columns' values
    (``benchmarks/results/work_layer.md``). Without ``parts``, the shared parts are left as
    they are (single already: ``parts_once``)."""
    by_type: dict[type, list[Any]] = {}
    _gather(value, by_type)
    for records in by_type.values():
        if not _shared_by_column(records, copies, parts):
            for record in records:
                _share_record(record, copies, parts)


def _gather(value: Any, by_type: dict[type, list[Any]]) -> None:
    """The records in ``value`` that have columns to share, by type (a holder's records,
    not the holder)."""
    kind = type(value)
    if kind is list:
        if value and _of_one_sharing_type(value):
            by_type.setdefault(type(value[0]), []).extend(value)
            return
        for item in value:
            _gather(item, by_type)
        return
    if kind is dict:
        for item in value.values():
            _gather(item, by_type)
        return
    positions = _share_names(kind)
    if positions is None:
        return
    held = positions[2]
    if held:
        for name in held:
            _gather(getattr(value, name), by_type)
        return
    by_type.setdefault(kind, []).append(value)


def _of_one_sharing_type(records: list[Any]) -> bool:
    """Whether every item of a non-empty list is a record of one type that has columns to
    share and holds no records (its items are then gathered as they are)."""
    kind = type(records[0])
    positions = _share_names(kind)
    return positions is not None and not positions[2] and set(map(type, records)) == {kind}


def _share_record(record: Any, copies: dict[Any, Any], with_parts: bool = True) -> None:
    """``share`` of one record that holds no other (its columns one by one)."""
    repeated, parts, _ = _share_names(type(record))
    for name in repeated:
        if type(item := getattr(record, name)) is str:
            object.__setattr__(record, name, copies.setdefault(item, item))
    for name in parts if with_parts else ():
        object.__setattr__(record, name, _one_copy(getattr(record, name), copies))


def _shared_by_column(records: list[Any], copies: dict[Any, Any], with_parts: bool = True) -> bool:
    """``share`` of records of one type (``share`` gathers them by type), a column at a
    time: the values got, looked up and set back in C loops (``map``), not one attribute at
    a time. 15,000 file readings of the million-unit corpus read back: 16.2 microseconds a
    ruling record by record, 10.7 a column at a time (``benchmarks/results/work_layer.md``).
    False, with nothing or part of it done, when the type has no slots or a column whose
    annotation allows more than text holds more (``share`` then does it record by record:
    doing it again changes nothing)."""
    if not records:
        return True
    setters = _column_setters(type(records[0]))
    if setters is None:
        return False
    repeated, parts = setters
    setdefault = copies.setdefault
    for name, set_value, typed_text in repeated:
        values = list(map(attrgetter(name), records))
        if not typed_text and not _TEXT_OR_NOTHING.issuperset(map(type, values)):
            return False
        if not any(values):
            continue  # None and "" alone (a rules section of cards, a card of rules): single
        for _ in map(set_value, records, map(setdefault, values, values)):
            pass
    for name, set_value, _ in parts if with_parts else ():
        values = list(map(attrgetter(name), records))
        if _LIST.issuperset(map(type, values)) and not any(values):
            # every one an empty list (most rulings' spans and carried lines): one object
            for _ in map(set_value, records, itertools.repeat(_one_copy(values[0], copies))):
                pass
            continue
        for _ in map(set_value, records, [_one_copy(part, copies) for part in values]):
            pass
    return True


_TEXT_OR_NOTHING = frozenset({str, type(None)})
"""The kinds of value a repeated column is shared by column for (a number or a boolean is
not: 1 and True are equal keys)."""
_LIST = frozenset({list})


@cache
def _column_setters(
    record_type: type,
) -> tuple[tuple[tuple[str, Callable[[Any, Any], None], bool], ...], ...] | None:
    """Each repeated column's and shared part's name, the setter of its slot (which sets a
    frozen record's field as its ``__init__`` does) and whether its annotation allows text
    and None alone; None for a type without them or without slots."""
    names = _share_names(record_type)
    if names is None or names[2]:
        return None
    slots = [getattr(record_type, name, None) for name in (*names[0], *names[1])]
    if not all(isinstance(slot, MemberDescriptorType) for slot in slots):
        return None
    text = _text_fields(record_type)
    return tuple(
        tuple((name, getattr(record_type, name).__set__, name in text) for name in group)
        for group in names[:2]
    )


@cache
def _text_fields(record_type: type) -> frozenset[str]:
    """The fields annotated ``str`` or ``str | None``: a record the cache's typed decoder
    made holds text or None there, so ``share`` need not look at the values' types (a scan
    of every value of every such column: the 100k corpus's rulings shared in 0.31-0.33 s
    without it, 0.32-0.37 s with it, ``benchmarks/results/work_layer.md``)."""
    hints = typing.get_type_hints(record_type)
    return frozenset(
        name
        for name in column_names(record_type)
        if hints[name] is str or set(typing.get_args(hints[name])) == {str, type(None)}
    )


@cache
def _share_names(
    record_type: type,
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    """The record type's repeated columns, shared parts and, for a record that only holds
    others (a file's reading), every field; None for a value with nothing to share."""
    if record_type in REPEATED_COLUMNS or record_type in SHARED_PARTS:
        return (
            tuple(sorted(REPEATED_COLUMNS.get(record_type, ()))),
            tuple(sorted(SHARED_PARTS.get(record_type, ()))),
            (),
        )
    if hasattr(record_type, "__dataclass_fields__"):
        return (), (), column_names(record_type)
    return None
