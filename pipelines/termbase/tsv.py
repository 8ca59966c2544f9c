"""The termbase TSV format: one row per concept, language and status (see termbase.tsv)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from .model import (
    ENFORCE_VALUES,
    HEADER,
    KEBAB_ID,
    LANG_TAG,
    STATUSES,
    FileTerms,
    Term,
    TermbaseError,
    check_new_forms,
    normalize_lang,
    split_forms,
)


def read_tsv(path: Path, text: str) -> FileTerms:
    result = FileTerms()
    enforce_origin: dict[str, str] = {}
    seen_forms: dict[tuple[str, str, str], str] = {}
    header_seen = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{path}:{number}"
        cells = line.split("\t")
        if not header_seen:
            if tuple(cell.strip() for cell in cells) != HEADER:
                raise TermbaseError(where, f"expected the header line {' '.join(HEADER)!r}")
            header_seen = True
            continue
        if len(cells) == len(HEADER) - 1:  # an editor dropped the tab before an empty note
            cells.append("")
        if len(cells) != len(HEADER):
            raise TermbaseError(
                where, f"expected {len(HEADER)} tab-separated columns, found {len(cells)}"
            )
        concept, lang, term, status, enforce_text, note = (cell.strip() for cell in cells)
        if not KEBAB_ID.fullmatch(concept):
            raise TermbaseError(where, f"concept id {concept!r} is not kebab-case")
        lang = normalize_lang(lang)
        if not LANG_TAG.fullmatch(lang):
            raise TermbaseError(where, f"language {lang!r} is not a BCP-47 tag")
        if status not in STATUSES:
            raise TermbaseError(
                where, f"unknown status {status!r} (expected one of {', '.join(STATUSES)})"
            )
        if enforce_text not in ENFORCE_VALUES:
            raise TermbaseError(where, f"enforce must be 'yes' or 'no', not {enforce_text!r}")
        enforce = ENFORCE_VALUES[enforce_text]
        if concept in result.enforce and result.enforce[concept] != enforce:
            raise TermbaseError(
                where,
                f"concept {concept!r} has enforce={enforce_text} here but "
                f"enforce={'yes' if result.enforce[concept] else 'no'} at "
                f"{enforce_origin[concept]}",
            )
        result.enforce[concept] = enforce
        enforce_origin.setdefault(concept, where)
        forms = split_forms(term, where)
        check_new_forms(concept, lang, forms, where, seen_forms)
        result.terms.append(Term(concept, lang, forms, status, enforce, note, where))
    if not header_seen:
        raise TermbaseError(f"{path}:1", f"empty termbase: no header line {' '.join(HEADER)!r}")
    return result


def write_tsv(path: Path, terms: Iterable[Term], comments: Sequence[str] = ()) -> Path:
    """Write rows in the termbase TSV format, with ``#`` comment lines first."""
    lines = [f"# {comment}".rstrip() for comment in comments]
    lines.append("\t".join(HEADER))
    for term in terms:
        cells = (
            term.concept,
            term.lang,
            "|".join(term.forms),
            term.status,
            "yes" if term.enforce else "no",
            term.note,
        )
        if any("\t" in cell or "\n" in cell for cell in cells):
            raise ValueError(f"{term.origin}: a tab or newline cannot be written to TSV")
        lines.append("\t".join(cells))
    path = Path(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
