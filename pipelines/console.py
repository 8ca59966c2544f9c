"""What the commands print: short summaries on stdout, errors as one line on stderr."""

from __future__ import annotations

import sys
from collections import Counter

from rich.console import Console
from rich.table import Table

from .ingest import IngestResult

stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def error(message: str) -> None:
    """One line on stderr, no traceback."""
    print(f"rulings: error: {' '.join(str(message).split())}", file=sys.stderr)


def ingest_summary(result: IngestResult) -> None:
    documents = len({r.doc for r in result.rulings})
    stdout.print(
        f"Read {result.files} files: {documents} documents, {len(result.rulings)} rulings "
        f"({', '.join(f'{n} {name}' for name, n in sorted(result.formats.items()))})."
    )
    table = Table(title=None, show_edge=False, pad_edge=False)
    table.add_column("language")
    table.add_column("documents", justify="right")
    table.add_column("rulings", justify="right")
    table.add_column("mixed", justify="right")
    doc_langs = Counter(lang for lang in {(r.doc, r.doc_lang) for r in result.rulings})
    docs_per_lang = Counter(lang for _, lang in doc_langs)
    rulings = Counter(r.lang for r in result.rulings)
    mixed = Counter(r.lang for r in result.rulings if r.spans)
    for lang in sorted(set(rulings) | set(docs_per_lang), key=lambda x: (x is None, x or "")):
        table.add_row(
            lang or "unknown",
            str(docs_per_lang.get(lang, 0)),
            str(rulings.get(lang, 0)),
            str(mixed.get(lang, 0)),
        )
    stdout.print(table)
    parse = Counter(f.code for f in result.findings)
    if parse:
        listed = ", ".join(f"{n} {code}" for code, n in sorted(parse.items()))
        stdout.print(f"Parse and date findings: {sum(parse.values())} ({listed}).")
    else:
        stdout.print("Parse and date findings: none.")
