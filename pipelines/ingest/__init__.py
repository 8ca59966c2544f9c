"""Stage 1: files -> ``Ruling`` table (plus parse findings and the card-name index)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Finding, Ruling
from ..rules import define, emit
from .dates import assign_dates
from .langid import DEFAULT_LANGUAGES, build
from .languages import assign_languages
from .readers import READERS, CardName, choose
from .source import InputError, SourceFile, discover

__all__ = ["IngestResult", "InputError", "ingest", "ingest_sources"]

define(
    "PARSE007",
    "parse",
    "error",
    """A reader failed on the file (a bug or an input it does not handle). The error is in
    the evidence; the rest of the batch was read.""",
)


@dataclass
class IngestResult:
    rulings: list[Ruling] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    card_names: list[CardName] = field(default_factory=list)
    formats: Counter[str] = field(default_factory=Counter)
    files: int = 0


def ingest(
    inputs: list[Path],
    *,
    identifier: str = "lingua",
    languages: Iterable[str] = DEFAULT_LANGUAGES,
) -> IngestResult:
    """Read every file under the inputs; a bad file becomes findings, never an exception."""
    return ingest_sources(discover(inputs), identifier=identifier, languages=languages)


def ingest_sources(
    sources: Iterable[SourceFile],
    *,
    identifier: str = "lingua",
    languages: Iterable[str] = DEFAULT_LANGUAGES,
) -> IngestResult:
    result = IngestResult()
    for doc in sources:
        result.files += 1
        _read_file(doc, result)
    assign_languages(result.rulings, build(identifier, languages))
    result.findings.extend(assign_dates(result.rulings))
    result.findings.sort(key=finding_order)
    return result


def _read_file(doc: SourceFile, result: IngestResult) -> None:
    if doc.encoding is None:
        result.findings.append(
            emit(
                "PARSE001",
                f"{doc.rel} is not a text file; it was skipped.",
                file=doc.rel,
                evidence={"bytes": doc.size},
            )
        )
        return
    name = choose(doc)
    if name is None:
        doc.problems.append(
            emit("PARSE003", f"{doc.rel} has no text.", file=doc.rel, evidence={"bytes": doc.size})
        )
    else:
        result.formats[name] += 1
        try:
            for item in READERS[name].target(doc):
                if isinstance(item, Ruling):
                    result.rulings.append(item)
                elif isinstance(item, Finding):
                    result.findings.append(item)
                else:
                    result.card_names.append(item)
        except Exception as error:  # a reader bug must not stop the batch
            result.findings.append(
                emit(
                    "PARSE007",
                    f"The {name} reader failed on {doc.rel}: {error}",
                    file=doc.rel,
                    evidence={"reader": name, "error": f"{type(error).__name__}: {error}"},
                )
            )
    result.findings.extend(doc.problems)


def finding_order(finding: Finding) -> tuple:
    return (
        finding.file or "",
        finding.line if finding.line is not None else -1,
        finding.code,
        finding.ruling_id or "",
        finding.fingerprint,
    )
