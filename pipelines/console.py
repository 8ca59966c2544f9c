"""What the commands print: short summaries on stdout, errors as one line on stderr."""

from __future__ import annotations

import errno
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.table import Table
from rich.text import Text

from .cards import CardIndex
from .ingest import IngestResult
from .ingest.cards import title_coverage
from .ingest.counts import LanguageCounts
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
    """Something the user should know that does not stop the run: one line on stderr
    (none with --quiet)."""
    if _verbosity == QUIET:
        return
    print(f"rulings: note: {' '.join(str(message).split())}", file=sys.stderr)


def detail(message: str) -> None:
    """What only --verbose prints: one line on stderr."""
    if _verbosity == VERBOSE:
        print(f"rulings: {' '.join(str(message).split())}", file=sys.stderr)


def interrupted(detail: str = "") -> None:
    print(f"rulings: interrupted{'; ' + detail if detail else ''}", file=sys.stderr)


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``1 file``, ``2 files``: a number with its noun in the right number."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def ingest_summary(result: IngestResult) -> None:
    counts = result.counts or LanguageCounts.of(result.rulings)
    documents = sum(n for _, n in counts.documents)
    stdout.print(
        f"Read {count(result.files, 'file')}: {count(documents, 'document')}, "
        f"{count(len(result.rulings), 'ruling')} "
        f"({', '.join(f'{n} {name}' for name, n in sorted(result.formats.items()))})."
    )
    if result.index is not None:
        unknown, documents = result.titles or title_coverage(result.rulings, result.index)
        stdout.print(
            f"Card index: knows {len(result.index):,} cards; {unknown:,} of this run's "
            f"{count(documents, 'card document')}' titles are unknown."
        )
    table = Table(title=None, show_edge=False, pad_edge=False)
    table.add_column("language")
    table.add_column("documents", justify="right")
    table.add_column("rulings", justify="right")
    table.add_column("mixed", justify="right")
    docs_per_lang, rulings, mixed = map(dict, (counts.documents, counts.rulings, counts.mixed))
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


QUIET, NORMAL, VERBOSE = 0, 1, 2
_verbosity = NORMAL


def set_verbosity(quiet: bool = False, verbose: bool = False) -> None:
    """``--quiet``: only errors (no progress, summaries or notes); ``--verbose``: also each
    stage's time and where the run keeps its cache."""
    global _verbosity
    _verbosity = QUIET if quiet else VERBOSE if verbose else NORMAL
    stdout.quiet = quiet


def verbosity() -> int:
    return _verbosity


TASK_LABELS = {
    "embed": "embedding distinct texts",
    "align": "aligning documents",
    "check": "running checks",
}
STAGE_LABELS = {
    "ingest": "reading the inputs",
    "align": "aligning translations with their sources",
    "check": "running the checks",
    "report": "writing the reports",
}
EVERY = 10.0
"""Without a terminal, at most one progress line per this many seconds, and at least one
while a stage runs (a CI log shows the run is alive)."""
ANNOUNCE_AFTER = 1.0
"""A stage's start line waits this long (or for the stage's end): a command that stops at
once on a user's mistake says so in its one error line, with no stage line before it."""


class _Count(MofNCompleteColumn):
    """``done/total``, or nothing while the total is unknown (a stage's own line)."""

    def render(self, task: Task) -> Text:
        return Text("") if task.total is None else super().render(task)


@dataclass
class _Task:
    label: str
    started: float
    done: int = 0
    total: int = 0
    first_done: int = 0


@dataclass
class _Stage:
    name: str
    started: float
    tasks: dict[str, _Task] = field(default_factory=dict)
    last: str = ""
    announced: bool = False


class Reporter:
    """What a command tells a person while it works, on stderr.

    On a terminal, a live line per stage and per long task in it (counts, rate, time left,
    time taken: rich). Without one (a CI log, a pipe), plain lines: one when a stage starts,
    one when it ends, and a progress line at most every ``every`` seconds while it runs (the
    counts of its current task when it reports any, else the time taken so far); a
    heartbeat thread makes sure one comes at least that often. ``clock`` is a monotonic
    clock in seconds (a test gives a fake one and calls ``tick``)."""

    def __init__(
        self,
        *,
        terminal: bool | None = None,
        level: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        every: float = EVERY,
        heartbeat: bool = True,
        beat: float = 1.0,
    ) -> None:
        self.level = _verbosity if level is None else level
        self.terminal = stderr.is_terminal if terminal is None else terminal
        self.clock = clock
        self.every = every
        self.beat = beat
        self._stages: list[_Stage] = []
        self._last_line = clock()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bars: Progress | None = None
        self._bar_ids: dict[tuple[str, str], TaskID] = {}
        if self.level == QUIET:
            return
        if self.terminal:
            self._bars = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                _Count(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                TimeElapsedColumn(),
                console=stderr,
                transient=True,
            )
        elif heartbeat:
            self._thread = threading.Thread(target=self._beat, name="rulings-progress")
            self._thread.daemon = True

    def __enter__(self) -> Reporter:
        if self._bars is not None:
            self._bars.start()
        if self._thread is not None:
            self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=2)
        if self._bars is not None:
            self._bars.stop()

    # --- what the stages call ------------------------------------------------------------

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """One stage of the command: a line when it starts and one when it ends."""
        with self._lock:
            current = _Stage(name, self.clock())
            self._stages.append(current)
            label = STAGE_LABELS.get(name, name)
            if self._bars is not None:
                self._bar_ids[(name, "")] = self._bars.add_task(
                    f"{name}: {label}", total=None, rate=""
                )
        try:
            yield
        except BaseException:
            self._end(current, failed=True)  # the error says why: no line of its own
            raise
        self._end(current)

    def update(self, task: str, done: int, total: int) -> None:
        """``on_progress(task, done, total)``: ``done`` of ``total`` items of a task of the
        current stage."""
        with self._lock:
            current = self._stages[-1] if self._stages else self._implicit()
            now = self.clock()
            item = current.tasks.get(task)
            if item is None:
                item = current.tasks[task] = _Task(TASK_LABELS.get(task, task), now)
                item.first_done = done
            item.done, item.total = done, total
            current.last = task
            if self._bars is not None:
                key = (current.name, task)
                if key not in self._bar_ids:
                    self._bar_ids[key] = self._bars.add_task(
                        f"  {item.label}", total=total or None, rate=""
                    )
                self._bars.update(
                    self._bar_ids[key], completed=done, total=total or None, rate=_rate(item, now)
                )
            elif (
                self.level != QUIET
                and now - self._last_line >= self.every
                and now - current.started >= ANNOUNCE_AFTER
            ):
                self._announce(current)
                self._line(self._progress_line(current, now))

    def tick(self) -> None:
        """A progress line when ``every`` seconds passed without one (the heartbeat)."""
        with self._lock:
            if self._bars is not None or self.level == QUIET or not self._stages:
                return
            now = self.clock()
            current = self._stages[-1]
            if not current.announced:
                if now - current.started >= ANNOUNCE_AFTER:
                    self._announce(current)
            elif now - self._last_line >= self.every:
                self._line(self._progress_line(current, now))

    # --- inside ----------------------------------------------------------------------------

    def _implicit(self) -> _Stage:
        """Progress reported outside any stage: a stage of its own, never announced."""
        stage = _Stage("work", self.clock())
        self._stages.append(stage)
        return stage

    def _end(self, current: _Stage, failed: bool = False) -> None:
        with self._lock:
            taken = _duration(self.clock() - current.started)
            if self._bars is not None:
                for key in [key for key in self._bar_ids if key[0] == current.name]:
                    self._bars.remove_task(self._bar_ids.pop(key))
                if self.level == VERBOSE and not failed:
                    self._bars.console.print(
                        f"rulings: {current.name}: done in {taken}",
                        markup=False,
                        highlight=False,
                    )
            elif self.level != QUIET and not failed:
                self._announce(current)
                counted = "".join(
                    f", {item.done:,} {item.label.split()[-1]}"
                    for item in current.tasks.values()
                    if item.total and item.done == item.total
                )
                self._line(f"{current.name}: done in {taken}{counted}")
            if current in self._stages:
                self._stages.remove(current)

    def _announce(self, current: _Stage) -> None:
        """The stage's start line, once."""
        if not current.announced:
            current.announced = True
            self._line(f"{current.name}: {STAGE_LABELS.get(current.name, current.name)}")

    def _progress_line(self, current: _Stage, now: float) -> str:
        elapsed = f"{_duration(now - current.started)} elapsed"
        item = current.tasks.get(current.last)
        if item is None or not item.total:
            return f"{current.name}: {STAGE_LABELS.get(current.name, 'working')}, {elapsed}"
        share = 100 * item.done / item.total
        parts = [f"{share:.0f}%"]
        if rate := _rate(item, now):
            parts.append(rate)
        if left := _left(item, now):
            parts.append(f"about {left} left")
        return (
            f"{current.name}: {item.label} {item.done:,}/{item.total:,} "
            f"({', '.join(parts)}), {elapsed}"
        )

    def _line(self, text: str) -> None:
        self._last_line = self.clock()
        print(f"rulings: {text}", file=sys.stderr, flush=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.beat):
            try:
                self.tick()
            except Exception:  # progress must never end the run
                return


def _rate(item: _Task, now: float) -> str:
    seconds = now - item.started
    if seconds <= 0 or item.done <= item.first_done:
        return ""
    per_second = (item.done - item.first_done) / seconds
    return f"{per_second:,.0f}/s" if per_second >= 10 else f"{per_second:.1f}/s"


def _left(item: _Task, now: float) -> str:
    seconds = now - item.started
    made = item.done - item.first_done
    if seconds <= 0 or made <= 0 or not item.total or item.done >= item.total:
        return ""
    return _duration((item.total - item.done) * seconds / made)


def _duration(seconds: float) -> str:
    """``0.4 s``, ``12 s``, ``3 min 05 s``, ``1 h 02 min``."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def reporter() -> Reporter:
    """The reporter of a command, at the verbosity its options set."""
    return Reporter()


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
        disable=not stderr.is_terminal or _verbosity == QUIET,
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


def not_checked(findings: list[Finding]) -> None:
    """How many documents were left out because of their language (DOC002), said after the
    findings: a run that checked nothing must not look like one that found nothing."""
    documents = {f.evidence.get("document") or f.file for f in findings if f.code == "DOC002"}
    if documents:
        stdout.print(
            f"{count(len(documents), 'document')} not checked: not in a language of "
            "--languages (DOC002)."
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
