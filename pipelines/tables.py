"""The stage files in the output folder: JSON Lines in, JSON Lines out, byte-identical."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .files import write_atomic
from .model import Alignment, Finding, Ruling, column_names

CORPUS = "corpus.jsonl"
PARSE_FINDINGS = "parse-findings.jsonl"
CARD_NAMES = "cards.jsonl"
ALIGNMENT = "alignment.jsonl"
FINDINGS = "findings.jsonl"
SUPPRESSED = "suppressed.jsonl"

T = TypeVar("T")


class TableError(Exception):
    """A stage file that is missing or malformed: the command exits 2."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps(record: Any) -> str:
    """One record as compact JSON, fields in declaration order (records hold only JSON
    values, so a shallow dict is enough: ``dataclasses.asdict`` would deep-copy)."""
    if hasattr(record, "__dataclass_fields__"):
        record = {name: getattr(record, name) for name in column_names(type(record))}
    return _ENCODER.encode(record)


def write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    """Write records one per line, atomically (a reader never sees half a file)."""

    def write(handle) -> None:
        for record in records:
            handle.write(dumps(record).encode("utf-8"))
            handle.write(b"\n")

    return write_atomic(path, write)


def iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise TableError(f"{path} is missing: run the stage that writes it first")
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as error:
                    raise TableError(f"{path}:{number}: not valid JSON ({error.msg})") from None


def read_records(path: Path, record_type: type[T]) -> list[T]:
    names = set(column_names(record_type))
    records = []
    for number, row in enumerate(iter_jsonl(path), 1):
        try:
            records.append(record_type(**{k: v for k, v in row.items() if k in names}))
        except TypeError as error:
            raise TableError(f"{path}:{number}: not a {record_type.__name__} ({error})") from None
    return records


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

    @property
    def by_id(self) -> dict[str, Ruling]:
        return {r.id: r for r in self.rulings}

    @classmethod
    def load(cls, out: Path, *, alignment: bool = True, findings: bool = True) -> RunTables:
        suppressed = out / SUPPRESSED
        return cls(
            rulings=read_records(out / CORPUS, Ruling),
            alignment=read_records(out / ALIGNMENT, Alignment) if alignment else [],
            findings=read_records(out / FINDINGS, Finding) if findings else [],
            suppressed=(
                read_records(suppressed, Finding) if findings and suppressed.is_file() else []
            ),
        )
