"""The check registry: a check is a function attached to a catalogued finding code.

A check yields ``Problem`` records; the runner turns each into a ``Finding`` of the check's
code (category and default severity from the catalogue), so a check never spells its own
code, category or severity.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..catalogue import CHECK, TABLE, explanation, lookup
from ..model import Mark, Ruling
from ..registry import Entry, Registry
from ..vocabulary import Scope

if TYPE_CHECKING:
    from .context import AlignedPair, CheckContext

CHECKS: Registry[Callable] = Registry("check", package="pipelines.check.checks")
RUN_CHECKS: Registry[Callable] = Registry("run's checks", package="pipelines.check.checks")
"""Functions that give the checks a run brings with it (the team's checklist rules), as
entries like those of ``CHECKS``: ``@run_checks_from``."""
CORPUS_FACTS: Registry[Callable] = Registry("corpus fact", package="pipelines.check.checks")
DOCUMENT_FACTS: Registry[Callable] = Registry("document fact", package="pipelines.check.checks")
KEPT_FINDINGS = ("computing findings to be kept",)
"""``CheckContext.cache`` key: true while a task computes findings the cache keeps."""


def quoted(items: Iterable[str]) -> str:
    """Items for a message, each in curly quotes: “{蓝}”, “{黑}”."""
    return ", ".join(f"\u201c{item}\u201d" for item in items)


@dataclass(slots=True)
class Problem:
    """What a check found: where, what to tell the translator, and the evidence."""

    ruling: Ruling
    """The unit the finding is about (for a document finding, any unit of the document)."""
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    source: Ruling | None = None
    marks: list[Mark] = field(default_factory=list)
    severity: str | None = None
    """Overrides the code's default severity for this finding."""
    lang: str | None = None
    """The translation's language, when it is not the unit's (a missing translation)."""
    document: list[Ruling] | None = None
    """For a finding about a whole document: its units (located at the first one)."""
    whole_run: bool = False
    """A finding about the run, located in no file (``ruling`` is any unit it counts)."""


@dataclass(frozen=True, slots=True)
class Group:
    """Units of several documents that a ``group`` check compares with each other, and
    every unit the check reads to do so (the members, the English they translate): the
    group's findings are kept in the cache under the content of ``reads``."""

    name: tuple[str, ...]
    """What the group is (INCON001: the English ruling and the language)."""
    members: list[Ruling]
    reads: list[Ruling]


@dataclass(frozen=True)
class PairKey:
    """A text worked out for every aligned pair of the corpus that a group check gathers its
    groups by (INCON002: the translation with its card names masked). The runner works the
    pair keys a check declares (``check(pair_keys=...)``) out per translated document and
    keeps them in the work cache, so that a rerun works them out for the changed documents
    only; called, it gives the value the run holds (``CheckContext.pair_keys``), else
    computes it."""

    name: str
    compute: Callable[[AlignedPair, CheckContext], str]

    def __call__(self, pair: AlignedPair, ctx: CheckContext) -> str:
        held = ctx.pair_keys.get(self.name)
        if held is not None:
            found = held.get((pair.source.id, pair.target.id))
            if found is not None:
                return found
        return self.compute(pair, ctx)


def pair_key(function: Callable[[AlignedPair, CheckContext], str]) -> PairKey:
    """Declare a pair key (decorator)."""
    return PairKey(f"{function.__module__}.{function.__qualname__}", function)


@dataclass(slots=True)
class PairKeys:
    """The pair keys of one aligned pair, by name: what the work cache keeps of a
    translated document for the group checks."""

    source_id: str
    target_id: str
    keys: dict[str, str]


CheckFunction = Callable[..., Iterator[Problem]]
GroupsFunction = Callable[["CheckContext"], list[Group]]


def check(
    code: str,
    *,
    scope: Scope | str = Scope.PAIR,
    groups: GroupsFunction | None = None,
    pair_keys: tuple[PairKey, ...] = (),
    every_run: bool = False,
) -> Callable[[CheckFunction], CheckFunction]:
    """Attach a check to its catalogue row; its docstring is the explanation ``rulings rules``
    prints.

    ``scope`` says what the check is called with: an aligned ``pair``, one ``ruling`` of a
    translated document, a ``document`` (its rulings), a ``group`` (one of the ``Group``
    records ``groups`` gathers from the context, in a fixed order) or the whole ``corpus``
    (the context). ``pair_keys`` are the keys ``groups`` reads of every pair: worked out
    before it runs, from the cache for the documents that did not change. ``every_run``:
    the check's findings are never kept in the cache, it runs on every item every time (a
    cheap check that reads a corpus fact that changes with any edit: ``corpus_fact``).
    """
    row = lookup(code)
    if row.stage != CHECK:
        raise ValueError(f"{code} is emitted by the {row.stage} stage, not by a check")
    scope = Scope(scope)
    if (scope == Scope.GROUP) != (groups is not None):
        raise ValueError(f"{code}: groups= goes with scope='group', and only with it")
    if pair_keys and groups is None:
        raise ValueError(f"{code}: pair_keys= goes with groups=")

    def decorate(function: CheckFunction) -> CheckFunction:
        return CHECKS.register(
            code, scope=scope, groups=groups, pair_keys=pair_keys, every_run=every_run
        )(function)

    return decorate


def run_checks_from(function: Callable[[CheckContext], list[Entry]]) -> Callable:
    """Register a function that gives the checks of a run's context (entries named by their
    finding code, with a ``scope``), run with the registered ones."""
    return RUN_CHECKS.register(f"{function.__module__}.{function.__name__}")(function)


def split_pass(
    ctx: CheckContext, name: str, found: Callable[[], Iterable[tuple[Problem, bool]]]
) -> list[tuple[Problem, bool]]:
    """The problems of a pass two codes share, each with which of the two it is (the code
    off by default takes the ``True`` ones: MEAN003, MISS002, EXTRA003), worked out once
    per context for both."""
    key = ("split pass", name)
    if key not in ctx.cache:
        ctx.cache[key] = list(found())
    return ctx.cache[key]


def checks_of(ctx: CheckContext) -> dict[str, Entry]:
    """Every check of this run by code: the registered ones, then those its context brings.
    Worked out once per context."""
    key = ("checks of the run",)
    if key not in ctx.cache:
        found = {entry.name: entry for entry in CHECKS}
        for source in RUN_CHECKS:
            for entry in source.target(ctx):
                if entry.name in found:
                    raise ValueError(f"check {entry.name} is registered twice")
                found[entry.name] = entry
        ctx.cache[key] = found
    return ctx.cache[key]


def corpus_fact(
    function: Callable[[CheckContext], Any] | None = None,
    *,
    changing: bool = False,
    reads: str | None = None,
    kept_as: Any = None,
) -> Any:
    """A value computed once per run over the whole corpus that checks of one document read
    (the median length ratio of a language's pairs). Declared, so that the runner puts
    every fact in the cache key of every document's findings: a document's findings are
    reused only while the facts they may have read are the same. Values must be JSON or
    sets (of JSON values).

    ``reads`` names the ``CheckContext`` list of rulings the value is worked out from,
    where it is worked out from rulings alone (``"in_source_language"``: the words of the
    English texts), and ``kept_as`` its type: the value is
    then kept in the work cache under their lines, and a rerun that changed none of them
    reads it back (the words of a million units' English took 6 s to gather on every
    rerun).

    A ``changing`` fact moves with almost any edit (the median similarity of a language's
    pairs, to the last digit): in the keys, it would have every document checked again
    after one line changed. It is left out of them, and only checks declared
    ``every_run`` (never kept) may read it: read while findings to be kept are computed,
    it raises."""
    if function is None:
        return functools.partial(corpus_fact, changing=changing, reads=reads, kept_as=kept_as)
    key = ("corpus fact", function.__module__, function.__name__)
    name = f"{function.__module__}.{function.__name__}"

    @functools.wraps(function)
    def fact(ctx: CheckContext) -> Any:
        if changing and ctx.cache.get(KEPT_FINDINGS):
            raise RuntimeError(
                f"the changing corpus fact {name} was read by a check whose findings are "
                "kept: declare that check every_run=True"
            )
        if key not in ctx.cache:
            ctx.cache[key] = function(ctx)
        return ctx.cache[key]

    fact.cache_key = key  # type: ignore[attr-defined]
    if (reads is None) != (kept_as is None):
        raise ValueError(f"corpus fact {name}: reads= goes with kept_as=")
    return CORPUS_FACTS.register(name, changing=changing, reads=reads, kept_as=kept_as)(fact)


def known_fact(ctx: CheckContext, entry: Entry, value: Any) -> None:
    """Give the context a corpus fact's value worked out before (read back from the work
    cache), so that the fact is not worked out again when a check reads it."""
    ctx.cache[entry.target.cache_key] = value


def is_worked_out(ctx: CheckContext, entry: Entry) -> bool:
    """Whether the context holds the corpus fact's value."""
    return entry.target.cache_key in ctx.cache


def document_fact(
    function: Callable[[list[Ruling], CheckContext], Any],
) -> Callable[[list[Ruling], CheckContext], Any]:
    """A value computed over all the units of one translated document that a check of one of
    its pairs or rulings reads (how often the document addresses the reader as tú). A long
    document is checked in stretches, each kept in the cache apart from the others
    (``check.in_pieces``): declared, so that the runner puts its document's facts in the
    cache key of each stretch, which is reused only while they are the same. A check of a
    pair or a ruling reads the other units of its document through a document fact and no
    other way. Values must be JSON; computed once per document and context."""
    name = f"{function.__module__}.{function.__name__}"

    @functools.wraps(function)
    def fact(document: list[Ruling], ctx: CheckContext) -> Any:
        key = ("document fact", name, document[0].doc)
        if key not in ctx.cache:
            ctx.cache[key] = function(document, ctx)
        return ctx.cache[key]

    return DOCUMENT_FACTS.register(name)(fact)


def explanations() -> dict[str, str]:
    """Every catalogued code's explanation (a check's is its docstring), by code: what
    ``rulings rules`` prints and the reports describe each code with."""
    return {
        row.code: explanation(row.code, CHECKS[row.code].target if row.code in CHECKS else None)
        for row in TABLE
    }
