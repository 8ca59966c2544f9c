"""What the commands print: short summaries on stdout, errors as one line on stderr."""

from __future__ import annotations

import errno
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TransferSpeedColumn,
)
from rich.table import Table

from .cards import CardIndex
from .ingest import IngestResult
from .ingest.cards import title_coverage
from .model import CATEGORIES, SEVERITIES, Alignment, Finding
from .resources import language_name
from .work import KINDS, Reuse


class GuardedStdout:
    """The standard output, except that a write that fails (a closed pipe: ``rulings run |
    head -1``; a full device) does not end the command: the first error is kept in
    ``error``, stdout is pointed at /dev/null (so that nothing more fails, not even the
    interpreter's last flush) and the run goes on to write its outputs."""

    def __init__(self) -> None:
        self.error: OSError | None = None

    def write(self, text: str) -> int:
        if self.error is None:
            try:
                return sys.stdout.write(text)
            except OSError as error:
                self.lost(error)
        return len(text)

    def flush(self) -> None:
        if self.error is None:
            try:
                sys.stdout.flush()
            except OSError as error:
                self.lost(error)

    def lost(self, error: OSError) -> None:
        self.error = error
        silence_stdout()

    def isatty(self) -> bool:
        return self.error is None and sys.stdout.isatty()

    def fileno(self) -> int:
        return sys.stdout.fileno()

    @property
    def encoding(self) -> str:
        return getattr(sys.stdout, "encoding", None) or "utf-8"


def silence_stdout() -> None:
    """Point the standard output's descriptor at /dev/null: what is still buffered for it,
    and anything written later, goes nowhere instead of failing again."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (a test's captured output): nothing left to fail
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


def stdout_problem() -> str | None:
    """Why the standard output could not be written, for an error line; None when it was
    written or when its reader only stopped reading (a closed pipe is no error: ``head``)."""
    error = _guarded.error
    if error is None or error.errno == errno.EPIPE:
        return None
    return f"cannot write to the standard output: {error.strerror or error}"


# No console markup: titles, card names and paths come from the corpus or the user, and a
# "[link=…]" or "[/]" in them is text to show, not an instruction to rich.
_guarded = GuardedStdout()
stdout = Console(file=_guarded, highlight=False, soft_wrap=True, markup=False)
stderr = Console(stderr=True, highlight=False, soft_wrap=True, markup=False)


def error(message: str) -> None:
    """One line on stderr, no traceback."""
    print(f"rulings: error: {' '.join(str(message).split())}", file=sys.stderr)


def echo(line: str) -> None:
    """One line on stdout as it is (no rich rendering: tabs stay tabs)."""
    _guarded.write(line + "\n")
    _guarded.flush()


def note(message: str) -> None:
    """Something the user should know that does not stop the run: one line on stderr."""
    print(f"rulings: note: {' '.join(str(message).split())}", file=sys.stderr)


def interrupted(detail: str = "") -> None:
    print(f"rulings: interrupted{'; ' + detail if detail else ''}", file=sys.stderr)


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``1 file``, ``2 files``: a number with its noun in the right number."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def ingest_summary(result: IngestResult) -> None:
    documents = len({r.doc for r in result.rulings})
    stdout.print(
        f"Read {count(result.files, 'file')}: {count(documents, 'document')}, "
        f"{count(len(result.rulings), 'ruling')} "
        f"({', '.join(f'{n} {name}' for name, n in sorted(result.formats.items()))})."
    )
    if result.index is not None:
        unknown, documents = title_coverage(result.rulings, result.index)
        stdout.print(
            f"Card index: knows {len(result.index):,} cards; {unknown:,} of this run's "
            f"{count(documents, 'card document')}' titles are unknown."
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


TASK_LABELS = {"embed": "Embedding distinct texts", "check": "Running checks"}


class StageProgress:
    """Progress bars on stderr, one per task, shown only for work that takes a moment."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._tasks: dict[str, int] = {}

    def update(self, task: str, done: int, total: int) -> None:
        if task not in self._tasks:
            label = TASK_LABELS.get(task, task)
            self._tasks[task] = self._progress.add_task(label, total=total or None)
        self._progress.update(self._tasks[task], completed=done, total=total or None)


@contextmanager
def progress() -> Iterator[StageProgress]:
    bars = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,
    )
    with bars:
        yield StageProgress(bars)


@contextmanager
def download_progress() -> Iterator[Callable[[str, int, int | None], None]]:
    """A bar per file on stderr (bytes, speed), shown when stderr is a terminal; yields the
    ``progress(label, done, total)`` callback of ``masters.fetch``."""
    bars = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,
    )
    tasks: dict[str, int] = {}

    def update(label: str, done: int, total: int | None) -> None:
        if label not in tasks:
            tasks[label] = bars.add_task(label, total=total)
        bars.update(tasks[label], completed=done, total=total)

    with bars:
        yield update


def fetched(kind: str, paths: list[Path]) -> None:
    for path in paths:
        stdout.print(str(path))
    stdout.print(
        f"Fetched {count(len(paths), 'file')}; add them to a run with --masters {kind}"
        + (":" + ",".join(p.stem for p in paths) if kind == "mtgjson" else "")
        + "."
    )


def alignment_summary(rows: list[Alignment]) -> None:
    methods = Counter(row.method for row in rows)
    stdout.print(
        f"Aligned {count(len(rows), 'unit')}: "
        + ", ".join(f"{n} {method}" for method, n in sorted(methods.items()))
        + "."
    )


def findings_summary(findings: list[Finding], suppressed: list[Finding]) -> None:
    """Findings by language, category and severity."""
    if not findings:
        stdout.print("No findings.")
    else:
        langs = sorted({f.lang or "-" for f in findings})
        table = Table(show_edge=False, pad_edge=False, title=None)
        table.add_column("category")
        for lang in langs:
            table.add_column(lang, justify="right")
        counts = Counter((f.category, f.lang or "-") for f in findings)
        for category in CATEGORIES:
            row = [str(counts.get((category, lang), "")) for lang in langs]
            if any(row):
                table.add_row(category, *row)
        stdout.print(table)
        severities = Counter(f.severity for f in findings)
        stdout.print(
            f"{count(len(findings), 'finding')}: "
            + ", ".join(f"{severities[s]} {s}" for s in SEVERITIES if severities[s])
            + "."
        )
    if suppressed:
        were = "was" if len(suppressed) == 1 else "were"
        stdout.print(
            f"{count(len(suppressed), 'finding')} accepted by the baseline {were} not reported."
        )


def reports_written(paths: list[Path]) -> None:
    if paths:
        folder = paths[0].parent
        names = ", ".join(p.name for p in paths)
        stdout.print(f"Reports in {folder}/: {names}.")


def card_index_summary(index: CardIndex) -> None:
    counts = index.counts()
    stdout.print(f"The card-name index knows {count(len(index), 'card')}.")
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("language")
    table.add_column("names", justify="right")
    for lang, names in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        table.add_row(f"{lang} ({language_name(lang)})", str(names))
    stdout.print(table)


def card_lookup(index: CardIndex, name: str) -> bool:
    found = sorted(index.lookup(name))
    if not found:
        stdout.print(f"\u201c{name}\u201d: no card of that name in any language.")
        return False
    for card, lang in found:
        names = index.names.get(card, {})
        listed = ", ".join(f"{code}: {names[code]}" for code in sorted(names))
        stdout.print(f"\u201c{name}\u201d is the {language_name(lang)} name of {card} ({listed}).")
    return True


def reused(out: Path) -> None:
    stdout.print(
        f"Nothing changed since the last run into {out}/ (same inputs, options and version): "
        "its outputs stand. Use --force to recompute."
    )


def work_reused(reuse: Reuse) -> None:
    """What a run took from the cache instead of computing (said only when it took some),
    for each kind of unit of work (``work.KINDS``), in the order the run met them."""
    parts = [
        f"{reuse.reused(kind):,} of {reuse.total(kind):,} {KINDS[kind].label}"
        for kind in reuse.counts
        if reuse.total(kind) and kind in KINDS
    ]
    if any(reuse.reused(kind) for kind in reuse.counts):
        stdout.print(f"Unchanged since an earlier run, from the cache: {', '.join(parts)}.")


def foreign_entries(reuse: Reuse) -> None:
    """Cache entries found holding another unit's result, said once per command (on stderr:
    the outputs are those of a clean run and must not depend on what the cache held)."""
    if not reuse.foreign:
        return
    kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(reuse.foreign.items()))
    total = sum(reuse.foreign.values())
    note(
        f"{count(total, 'cache entry', 'cache entries')} held the result of another unit of "
        f"work (copied or moved inside the cache folder's work/; {kinds}): "
        "recomputed and written again"
    )
