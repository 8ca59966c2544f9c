"""Each stage as a function from the output folder's tables to new tables in it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import tables
from .ingest import IngestResult, InputError, ingest
from .settings import Settings


class NoRulingsError(InputError):
    """The inputs were read but hold no rulings at all."""


@dataclass
class StageResult:
    files: list[Path]


def ingest_stage(inputs: list[Path], out: Path, settings: Settings) -> IngestResult:
    """Read the inputs; write corpus.jsonl, parse-findings.jsonl and cards.jsonl."""
    for path in inputs:
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
    result = ingest(inputs, identifier=settings.lang_id, languages=settings.languages)
    tables.write_jsonl(out / tables.CORPUS, result.rulings)
    tables.write_jsonl(out / tables.PARSE_FINDINGS, result.findings)
    tables.write_jsonl(out / tables.CARD_NAMES, result.card_names)
    if not result.rulings:
        where = ", ".join(str(p) for p in inputs)
        raise NoRulingsError(
            f"no rulings found in {where} ({result.files} files read, "
            f"{len(result.findings)} parse findings in {out / tables.PARSE_FINDINGS})"
        )
    return result
