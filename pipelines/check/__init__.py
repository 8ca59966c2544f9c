"""Stage 3: rulings + alignment -> findings, through the check registry.

A check has a scope: ``pair`` (an English source and its translation), ``ruling`` (one
ruling of a translated document), ``document`` (all rulings of one translated document),
``group`` (units of several documents compared with each other: the translations of one
English ruling into one language) or ``corpus`` (everything at once). The runner calls each
selected check on the items of its scope, in tasks of about ``ITEMS_PER_TASK`` items cut
where a card or rules document ends, and turns the problems the checks yield into findings
of their codes.

The findings of one translated document (every pair, ruling and document check) are kept
in the cache, keyed by the document, its alignment rows, the documents those rows point
into and the corpus facts (``registry.corpus_fact``) checks read; the findings of a group,
keyed by every unit the group reads and the corpus facts. A long document (a rules
document) is kept in pieces (``in_pieces``): each stretch of its pairs and rulings, keyed by
the stretch's units, their rows, the documents those point into and the document's facts
(``registry.document_fact``), and its document checks, keyed by the whole document. A
later run recomputes only the documents, stretches and groups whose key changed. Corpus
checks always run.
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from ..catalogue import CATALOGUE, Code, make_finding
from ..engine import Engine
from ..memo import digest
from ..model import Alignment, Finding, Ruling
from ..registry import Entry
from ..tables import values_json
from ..vocabulary import Scope
from ..work import Cache, Job, execute, kind, no_cache
from .context import AlignedPair, CheckContext
from .registry import (
    CORPUS_FACTS,
    DOCUMENT_FACTS,
    KEPT_FINDINGS,
    Group,
    PairKey,
    PairKeys,
    Problem,
    checks_of,
    is_worked_out,
    known_fact,
)

__all__ = ["AlignedPair", "CheckContext", "Problem", "run_checks", "selected"]

ITEMS_PER_TASK = 5000
"""Pairs, rulings or documents per check task."""
GROUPS_PER_TASK = 500
"""Groups per check task (a group holds several units)."""

LONG_DOCUMENT = 1024
"""A translated document with more pair and ruling items than this is checked and kept in
stretches (``in_pieces``)."""
STRETCH_ITEMS = 256
"""Consecutive pair or ruling items of a long document checked and kept together."""

Piece = tuple[str, int]
"""A document and the number of one of its pieces: 0, the whole document, or for a long
one its document checks; 1, 2, ...: the stretches of a long document."""
Run = tuple[Scope, tuple[str, ...], Piece, int, int]
"""A run of consecutive items of one piece of a document in one scope: (scope, codes,
piece, start, end)."""
STRETCHED = (Scope.PAIR, Scope.RULING)
"""The scopes whose runs are cut into stretches in a long document."""
Task = tuple[Scope, tuple[str, ...], list[tuple[int, int]]]
Found = dict[str, list[Finding]]
"""Findings by code: what a task gives for each slice of items, and the record of a unit."""

CHECK_RESOURCES = tuple(
    sorted(
        {
            "agreement_endings.tsv",
            "card_names.tsv",
            "card_names_manual.tsv",
            "citation_stop_words.tsv",
            "composed_concepts.tsv",
            "dropped_passages.tsv",
            "equivalent_wording.tsv",
            "explicit_counts.tsv",
            "formality.tsv",
            "homographs.tsv",
            "implied_concepts.tsv",
            "its_mqm.tsv",
            "kept_text.tsv",
            "month_names.tsv",
            "mtgjson_languages.tsv",
            "name_agreement.tsv",
            "notation.tsv",
            "number_words.tsv",
            "other_senses.tsv",
            "paraphrased_concepts.tsv",
            "placeholder_patterns.tsv",
            "printed_only_lines.tsv",
            "rate_phrases.tsv",
            "references.tsv",
            "regional_variants.tsv",
            "replaced_wording.tsv",
            "source_note_cues.tsv",
            "style_words.tsv",
            "subtypes.tsv",
            "term_families.tsv",
            "termbase.tsv",
            "termbase_cr_glossary.tsv",
            "token_words.tsv",
        }
    )
)
"""The shipped data the checks read (the termbase, the card names, the word lists): a
change to any of them recomputes every document's and group's checks."""
CHECK_VERSION = "12"
"""Bump when what a check finds on the same units changes (``docs/work.md``)."""

CHECK_DOCUMENT = kind(
    "check",
    "documents and stretches checked",
    list[Found],
    version=CHECK_VERSION,
    resources=CHECK_RESOURCES,
    remembered=True,
)
"""The findings of every pair, ruling and document check on one translated document (one
``Found`` per run of its items, in the order of the runs: a document's items can come in
more than one run of a scope, where its pairs are not all next to each other), keyed
by the checks, the corpus facts, the document, its alignment rows and the documents they
point into."""
CHECK_GROUP = kind(
    "check-group",
    "groups compared across documents",
    Found,
    version=CHECK_VERSION,
    resources=CHECK_RESOURCES,
    parts_once=True,
    remembered=True,
)
"""The findings of a group check on one group, keyed by the check, the corpus facts and every
unit the group reads."""
CHECK_PAIR_KEYS = kind(
    "check-pair-keys",
    "documents and stretches keyed for the groups",
    list[PairKeys],
    version="2",
    resources=CHECK_RESOURCES,
    share=False,
)
"""The pair keys (``registry.PairKey``) of one translated document's pairs, keyed by the
keys' names, the document, its alignment rows and the documents they point into: what the
group checks gather their groups by, worked out again only for the documents that changed."""


class KeptFact(msgspec.Struct, array_like=True):
    """A corpus fact's value (MessagePack) and the digest of its JSON."""

    digest: str
    value: msgspec.Raw


CHECK_FACT = kind(
    "check-fact",
    "corpus facts gathered",
    KeptFact,
    version=CHECK_VERSION,
    resources=CHECK_RESOURCES,
    share=False,
)
"""A corpus fact worked out from rulings alone (``corpus_fact(reads=...)``), keyed by the fact
and the lines of the rulings it reads."""

PAIR_KEY_DOCUMENTS_PER_TASK = 500


def selected(
    code: str, select: Iterable[str], ignore: Iterable[str], row: Code | None = None
) -> bool:
    """Whether a finding code passes --select/--ignore (codes, code prefixes or categories,
    any case; ``row``: the code's own row when the catalogue has none, a team's rule's).
    Codes that are off by default run only when --select names them."""
    row = row or CATALOGUE.get(code)
    category = str(row.category) if row else ""

    def matches(patterns: Iterable[str]) -> bool:
        return any(code.startswith(p.upper()) or category == p.lower() for p in patterns)

    select, ignore = list(select), list(ignore)
    if matches(ignore):
        return False
    if select:
        return matches(select)
    return row is None or row.default


def run_checks(
    ctx: CheckContext,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    engine: Engine | None = None,
    work: Cache | None = None,
) -> list[Finding]:
    """Every selected check, findings in registry order. ``ctx`` gives the tables; each
    worker of the engine builds its own context from them once, but for an engine that
    works in this process, which takes ``ctx`` itself: the corpus facts it computed for the
    cache keys are not computed again. ``work`` keeps each document's and each group's
    findings between runs (corpus checks always run)."""
    work = work or no_cache()
    checks, own = checks_of(ctx), ctx.team_codes
    codes = [code for code in checks if selected(code, select, ignore, own.get(code))]
    runs: list[Run] = []
    fresh_runs: list[Run] = []  # the checks that run every time (``every_run``)
    corpus_codes: list[str] = []
    group_codes: list[str] = []
    for scope in Scope:
        scoped = tuple(code for code in codes if checks[code].meta["scope"] == scope)
        if scope == Scope.CORPUS:
            corpus_codes.extend(scoped)
        elif scope == Scope.GROUP:
            group_codes.extend(scoped)
        elif scoped:
            keys = documents_of(scope, scope_items(ctx, scope))
            for every_run in (False, True):
                chosen = tuple(c for c in scoped if _every_run(checks[c]) == every_run)
                if chosen:
                    (fresh_runs if every_run else runs).extend(
                        (scope, chosen, keys[start], start, end) for start, end in doc_runs(keys)
                    )
    runs, fresh_runs = in_pieces(runs), in_pieces(fresh_runs)
    kept_codes = [code for code in codes if not _every_run(checks[code])]
    facts = functools.cache(lambda: corpus_facts_digest(ctx, work))  # if something is keyed
    shared = {
        "rulings": ctx.rulings,
        "alignment": ctx.alignment,
        "termbase": ctx.termbase,
        "cards": ctx.cards,
        "source_lang": ctx.source_lang,
        "thresholds": ctx.thresholds,
        "checklist": ctx.checklist,
        "allow": ctx.allow,
    }
    wanted = [key for code in group_codes for key in checks[code].meta.get("pair_keys", ())]
    pieces = list(dict.fromkeys(piece for _, _, piece, _, _ in runs))
    reads = Reads(ctx) if work.keeps else None
    if wanted:
        hold_pair_keys(ctx, wanted, reads, work, engine, shared)
        shared["pair_keys"] = ctx.pair_keys
    jobs = [
        Job(None, [None], plan=lambda _, code=code: [((Scope.CORPUS, (code,), [(0, 1)]), [0])])
        for code in corpus_codes
    ]
    for code in group_codes:
        groups = groups_of(ctx, code)
        jobs.append(
            Job(
                CHECK_GROUP,
                group_keys(ctx, code, groups, facts, work) or [None] * len(groups),
                plan=lambda missing, code=code: [
                    ((Scope.GROUP, (code,), [(i, i + 1) for i in part]), part)
                    for part in _chunks(missing, GROUPS_PER_TASK)
                ],
            )
        )
    keys = piece_keys(runs, kept_codes, facts, reads, work)
    if reads is not None:
        ctx.document_keys.update(reads.document_digests)
    del reads
    fresh_pieces = list(dict.fromkeys(piece for _, _, piece, _, _ in fresh_runs))
    jobs.append(
        Job(
            CHECK_DOCUMENT,
            [keys.get(piece) for piece in pieces],
            plan=_document_plan(ctx, runs, pieces),
            merge=_merged,
        )
    )
    jobs.append(
        Job(
            None,
            [None] * len(fresh_pieces),
            plan=_document_plan(ctx, fresh_runs, fresh_pieces),
            merge=_merged,
        )
    )
    results = execute(
        jobs, _run_task, cache=work, engine=engine, shared=shared, setup=CheckContext, context=ctx
    )
    by_code: dict[str, list[Finding]] = {code: [] for code in codes}
    for found in results[: len(corpus_codes) + len(group_codes)]:
        for part in found:
            for code, findings in part.items():
                by_code[code].extend(findings)
    for these_runs, these_pieces, found in (
        (runs, pieces, results[-2]),
        (fresh_runs, fresh_pieces, results[-1]),
    ):
        per_piece = dict(zip(these_pieces, found, strict=True))
        taken: dict[Piece, int] = defaultdict(int)
        for _, scoped, piece, _, _ in these_runs:
            part = per_piece[piece][taken[piece]]
            taken[piece] += 1
            for code in scoped:
                by_code[code].extend(part.get(code, ()))
    return [finding for code in codes for finding in by_code[code]]


def in_pieces(runs: list[tuple[Scope, tuple[str, ...], str, int, int]]) -> list[Run]:
    """The runs, each with the piece of its document it is checked and kept with: a document
    of at most LONG_DOCUMENT pair and ruling items is one piece, (document, 0); in a longer
    one (a rules document) every STRETCH_ITEMS consecutive items of a pair or ruling run are
    a piece of their own, (document, 1), (document, 2), ..., and its document-scope runs the
    piece (document, 0). A line edited in place is then checked again with its stretch and
    the document checks only. (A line inserted or removed moves the line numbers of every
    unit after it, which their findings carry: those stretches are checked again anyway.)"""
    items: Counter[str] = Counter()
    for scope, _, doc, start, end in runs:
        if scope in STRETCHED:
            items[doc] += end - start
    stretches: Counter[str] = Counter()
    cut: list[Run] = []
    for scope, codes, doc, start, end in runs:
        if scope not in STRETCHED or items[doc] <= LONG_DOCUMENT:
            cut.append((scope, codes, (doc, 0), start, end))
            continue
        for first, last in stretches_of(start, end):
            stretches[doc] += 1
            cut.append((scope, codes, (doc, stretches[doc]), first, last))
    return cut


def stretches_of(start: int, end: int) -> list[tuple[int, int]]:
    """Items ``start``..``end`` - 1 in stretches of STRETCH_ITEMS."""
    return [(first, min(end, first + STRETCH_ITEMS)) for first in range(start, end, STRETCH_ITEMS)]


def _every_run(entry: Entry) -> bool:
    """Whether a check runs every time, its findings never kept (``registry.check``)."""
    return bool(entry.meta.get("every_run"))


def _chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


_SCOPES = list(Scope)


def _run_task(task: Task, ctx: CheckContext) -> list[Any]:
    """``check_task``; the slices of a document scope tagged with their place among a
    document's runs (scope, then first item), for ``_merged``. Findings that are kept in the
    cache are computed with changing corpus facts out of reach (``registry.corpus_fact``)."""
    scope, codes, bounds = task
    kept = scope != Scope.CORPUS and not any(_every_run(checks_of(ctx)[c]) for c in codes)
    ctx.cache[KEPT_FINDINGS] = kept
    try:
        found = check_task(task, ctx)
    finally:
        ctx.cache[KEPT_FINDINGS] = False
    if scope in (Scope.CORPUS, Scope.GROUP):
        return found
    rank = _SCOPES.index(Scope(scope))
    return [((rank, start), part) for (start, _), part in zip(bounds, found, strict=True)]


def _merged(parts: list[tuple[tuple[int, int], Found]]) -> list[Found]:
    """A document's findings, one ``Found`` per run of its items, in the order of the runs
    (runs are made scope by scope, each scope's in item order), whichever tasks computed
    them."""
    return [found for _, found in sorted(parts, key=lambda part: part[0])]


def _document_plan(ctx: CheckContext, runs: list[Run], pieces: list[Piece]):
    """The tasks that check the missing pieces of documents: their runs gathered by
    ``task_bounds``, each task with the pieces of its runs."""
    position = {piece: i for i, piece in enumerate(pieces)}
    read_with_doc: dict[str, str] = {}
    for pair in ctx.pairs:
        read_with_doc.setdefault(pair.target.doc, pair.source.doc)
    read_with = {piece: read_with_doc[piece[0]] for piece in pieces if piece[0] in read_with_doc}

    def plan(missing: list[int]) -> list[tuple[Task, list[int]]]:
        wanted = {pieces[i] for i in missing}
        todo = [run for run in runs if run[2] in wanted]
        return [
            (task, [position[todo[index][2]] for index in indices])
            for task, indices in task_bounds(todo, read_with=read_with)
        ]

    return plan


def groups_of(ctx: CheckContext, code: str) -> list[Group]:
    """The groups a ``group`` check compares, gathered once per context."""
    key = ("groups", code)
    if key not in ctx.cache:
        ctx.cache[key] = checks_of(ctx)[code].meta["groups"](ctx)
    return ctx.cache[key]


def corpus_facts_digest(ctx: CheckContext, work: Cache | None = None) -> str:
    """The corpus facts (``registry.corpus_fact``) of this run, in one digest of their
    values' digests: those that change with any edit are left out (the checks that read them
    run every time). A fact declared with the rulings it ``reads`` is kept in ``work``
    (kind ``check-fact``), and read back with its value's digest while they are the same."""
    work = work or no_cache()
    entries = [entry for entry in CORPUS_FACTS if not entry.meta.get("changing")]
    keyed = [entry for entry in entries if entry.meta.get("reads")] if work.keeps else []
    read = {  # each list of rulings digested once, whatever number of facts read it
        name: ctx.corpus_digests.digest(getattr(ctx, name))
        for name in {entry.meta["reads"] for entry in keyed}
    }
    keys = [work.key(CHECK_FACT, [entry.name, read[entry.meta["reads"]]]) for entry in keyed]
    [kept] = execute(
        [Job(CHECK_FACT, keys, items=keyed)],
        _worked_out_facts,
        cache=work,
        setup=CheckContext,
        context=ctx,
    )
    value_digests = {}
    for entry, fact in zip(keyed, kept, strict=True):
        if not is_worked_out(ctx, entry):
            known_fact(ctx, entry, msgspec.msgpack.decode(fact.value, type=entry.meta["kept_as"]))
        value_digests[entry.name] = fact.digest
    return digest(
        value_digests.get(entry.name) or _value_digest(entry.target(ctx)) for entry in entries
    )


def _worked_out_facts(entries: list[Entry], ctx: CheckContext) -> list[KeptFact]:
    kept = []
    for entry in entries:
        value = entry.target(ctx)
        kept.append(KeptFact(_value_digest(value), msgspec.Raw(msgspec.msgpack.encode(value))))
    return kept


def _value_digest(value: Any) -> str:
    return digest([json.dumps(value, sort_keys=True, default=sorted, ensure_ascii=False)])


def hold_pair_keys(
    ctx: CheckContext,
    wanted: list[PairKey],
    reads: Reads | None,
    work: Cache,
    engine: Engine | None,
    shared: dict[str, Any],
) -> None:
    """Every pair's ``wanted`` keys, in ``ctx.pair_keys``: kept per translated document, or
    per stretch of a long one (keyed by what it reads: ``Reads``), so that a rerun works
    them out for the changed documents and stretches only."""
    names = tuple(sorted({key.name for key in wanted}))
    parts = [
        (doc, first, last)
        for doc, pairs in _pairs_by_document(ctx).items()
        for first, last in (
            stretches_of(0, len(pairs)) if len(pairs) > LONG_DOCUMENT else [(0, len(pairs))]
        )
    ]
    salt = ",".join(names)
    keys = [
        work.key(CHECK_PAIR_KEYS, [salt, *reads.of_pairs(doc, first, last)])
        if reads is not None
        else None
        for doc, first, last in parts
    ]
    [found] = execute(
        [
            Job(
                CHECK_PAIR_KEYS,
                keys,
                plan=lambda missing: [
                    ((names, [parts[i] for i in part]), part)
                    for part in _chunks(missing, PAIR_KEY_DOCUMENTS_PER_TASK)
                ],
            )
        ],
        _pair_keys_task,
        cache=work,
        engine=engine,
        shared=shared,
        setup=CheckContext,
        context=ctx,
    )
    for rows in found:
        for row in rows:
            for name, value in row.keys.items():
                ctx.pair_keys.setdefault(name, {})[row.source_id, row.target_id] = value


def _pair_keys_task(
    task: tuple[tuple[str, ...], list[tuple[str, int, int]]], ctx: CheckContext
) -> list:
    """The pair keys (by name: a task carries no function) of the pairs of each document, or
    stretch of one (document, first pair, end), of the task."""
    names, parts = task
    declared = {
        key.name: key
        for entry in checks_of(ctx).values()
        for key in entry.meta.get("pair_keys", ())
    }
    wanted = [declared[name] for name in names]
    by_doc = _pairs_by_document(ctx)
    return [
        [
            PairKeys(
                pair.source.id, pair.target.id, {key.name: key.compute(pair, ctx) for key in wanted}
            )
            for pair in by_doc[doc][first:last]
        ]
        for doc, first, last in parts
    ]


def _pairs_by_document(ctx: CheckContext) -> dict[str, list[AlignedPair]]:
    """The aligned pairs of each translated document, documents in the order their first
    pair comes (once per context)."""
    key = ("pairs by document",)
    if key not in ctx.cache:
        by_doc: dict[str, list[AlignedPair]] = defaultdict(list)
        for pair in ctx.pairs:
            by_doc[pair.target.doc].append(pair)
        ctx.cache[key] = dict(by_doc)
    return ctx.cache[key]


def piece_keys(
    runs: list[Run],
    codes: list[str],
    facts: Callable[[], str],
    reads: Reads | None,
    work: Cache,
) -> dict[Piece, str]:
    """The cache key of each piece's findings: the checks run, the corpus facts and what
    the piece's checks read (``Reads``). Empty when nothing is kept."""
    if reads is None or not runs:
        return {}
    salt = [",".join(codes), facts()]
    stretched = {piece[0] for _, _, piece, _, _ in runs if piece[1]}
    keys: dict[Piece, str] = {}
    for scope, _, piece, start, end in runs:
        if piece in keys:
            continue
        doc, number = piece
        if number:
            parts = ["stretch", *reads.of_stretch(scope, start, end)]
        elif doc in stretched:
            parts = ["document checks", reads.document_digest(doc)]
        else:
            parts = [reads.document_digest(doc)]
        keys[piece] = work.key(CHECK_DOCUMENT, [*salt, *parts])
    return keys


class Reads:
    """What the checks of a document, or of a stretch of one, read of the corpus, as parts
    of a cache key: the units and their alignment rows, and every document those rows point
    into (the English a translation is compared with, whose rules' titles a citation is
    read against); for a stretch, also its document's facts (``registry.document_fact``)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        digests = ctx.corpus_digests
        self.doc_digest = {doc: digests.digest(units) for doc, units in ctx.documents.items()}
        self.rows_of = ctx.rows_by_document
        self.facts: dict[str, str] = {}
        self.by_unit: dict[str, dict[str, list[tuple[int, Alignment]]]] = {}
        self.document_digests: dict[str, str] = {}
        """``document_digest`` of each document it was asked for."""

    def of_document(self, doc: str) -> list[str | bytes]:
        rows = self.rows_of.get(doc, [])
        return [self.doc_digest[doc], values_json(rows), *self._pointed(rows)]

    def document_digest(self, doc: str) -> str:
        """``of_document`` in one digest: what a whole document's checks read, and what its
        report rows stand on (``CheckContext.document_keys``: findings.xlf's and
        aligned.tmx's rows show nothing of the document's units and the English they are
        aligned with that it does not hold), whatever checks ran with whatever corpus
        facts. Whatever ``of_document`` stops reading, those rows must then digest."""
        found = self.document_digests.get(doc)
        if found is None:
            found = self.document_digests[doc] = digest(self.of_document(doc))
        return found

    def of_stretch(self, scope: Scope, start: int, end: int) -> list[str | bytes]:
        items = scope_items(self.ctx, scope)[start:end]
        units = [getattr(item, "target", item) for item in items]
        return [str(scope), *self._of_units(units)]

    def of_pairs(self, doc: str, first: int, last: int) -> list[str | bytes]:
        """A translated document's pairs, or a stretch of them (``hold_pair_keys``)."""
        pairs = _pairs_by_document(self.ctx)[doc]
        if first == 0 and last == len(pairs):
            return self.of_document(doc)
        return ["stretch", *self._of_units([pair.target for pair in pairs[first:last]])]

    def _of_units(self, units: list[Ruling]) -> list[str | bytes]:
        ctx, rows_of_unit = self.ctx, self._rows_of_units(units[0].doc)
        rows = sorted(
            (position, row) for unit in units for position, row in rows_of_unit.get(unit.id, ())
        )
        rows = [row for _, row in rows]
        return [
            ctx.corpus_digests.digest(units),
            values_json(rows),
            self._document_facts(units[0].doc),
            *self._pointed(rows),
        ]

    def _rows_of_units(self, doc: str) -> dict[str, list[tuple[int, Alignment]]]:
        """The rows of a document's units, by unit, each with its place among the rows."""
        if doc not in self.by_unit:
            found: dict[str, list[tuple[int, Alignment]]] = defaultdict(list)
            for position, row in enumerate(self.rows_of.get(doc, ())):
                if row.target_id:
                    found[row.target_id].append((position, row))
            self.by_unit[doc] = found
        return self.by_unit[doc]

    def _document_facts(self, doc: str) -> str:
        if doc not in self.facts:
            units = self.ctx.documents[doc]
            self.facts[doc] = json.dumps(
                [entry.target(units, self.ctx) for entry in DOCUMENT_FACTS], ensure_ascii=False
            )
        return self.facts[doc]

    def _pointed(self, rows: list[Alignment]) -> list[str]:
        """The digests of the documents the rows point into, in name order."""
        by_id, pointed = self.ctx.by_id, set()
        for row in rows:
            for unit_id in (row.source_id, row.superseded_by, row.better_source):
                if unit_id in by_id:
                    pointed.add(by_id[unit_id].doc)
        return [self.doc_digest[doc] for doc in sorted(pointed)]


def group_keys(
    ctx: CheckContext, code: str, groups: list[Group], facts: Callable[[], str], work: Cache
) -> list[str]:
    """The cache key of each group's findings: the check, the corpus facts, the group and
    every unit it reads. Empty when nothing is kept."""
    if not work.keeps or not groups:
        return []
    digests = ctx.corpus_digests
    return [
        work.key(CHECK_GROUP, [code, facts(), *group.name, digests.digest(group.reads)])
        for group in groups
    ]


def scope_items(ctx: CheckContext, scope: Scope) -> list:
    """What a check of a scope is called with, in a fixed order."""
    if scope == Scope.PAIR:
        return ctx.pairs
    if scope == Scope.RULING:
        return ctx.translations
    if scope == Scope.DOCUMENT:
        return ctx.translated_documents
    raise ValueError(f"{scope} checks take the whole context")


def documents_of(scope: Scope, items: list) -> list[str]:
    """The card or rules-section document each item of a scope belongs to (a comprehension
    per scope: a call per item was 0.2 s of the half a million pairs of a million units)."""
    if scope == Scope.PAIR:
        return [pair.target.doc for pair in items]
    if scope == Scope.DOCUMENT:
        return [units[0].doc for units in items]
    return [unit.doc for unit in items]


def doc_runs(keys: list[str]) -> list[tuple[int, int]]:
    """The slices of consecutive items of one document."""
    bounds, start = [], 0
    for end in range(1, len(keys) + 1):
        if end == len(keys) or keys[end] != keys[start]:
            bounds.append((start, end))
            start = end
    return bounds


def task_bounds(
    runs: list[Run], size: int = ITEMS_PER_TASK, read_with: dict[str, str] | None = None
) -> list[tuple[Task, list[int]]]:
    """The runs gathered into tasks of one scope and about ``size`` items (a document's
    items stay in one task), each with the indices of the runs it computes.

    Documents are taken in batches of about ``size`` items, and a batch's tasks of every
    scope come before the next batch's. So the checks of every scope read a document's texts
    while what the checks remember of them (``bounded``) is still there, instead of the
    whole corpus later. ``read_with`` maps a document to the one whose texts its checks
    read too (a translation to the English document it translates): documents that read the
    same one are taken one after the other, where the first of them comes, so the English
    of a card is worked out once for its Spanish and its Chinese, not once per language.
    Only the order of the work changes: each run's findings are its own.
    """
    items_of: dict[str, int] = defaultdict(int)
    for _, _, doc, start, end in runs:
        items_of[doc] += end - start
    order = _read_together(list(items_of), read_with or {})
    rank = {doc: position for position, doc in enumerate(order)}
    batch_of: dict[str, int] = {}
    batch = items = 0
    for doc in order:
        if items >= size:
            batch, items = batch + 1, 0
        batch_of[doc] = batch
        items += items_of[doc]
    scope_rank: dict[Scope, int] = {}
    for scope, *_ in runs:
        scope_rank.setdefault(scope, len(scope_rank))
    batches: list[list[int]] = [[] for _ in range(batch + 1)] if runs else []
    for index in sorted(
        range(len(runs)), key=lambda i: (scope_rank[runs[i][0]], rank[runs[i][2]], i)
    ):
        batches[batch_of[runs[index][2]]].append(index)
    tasks: list[tuple[Task, list[int]]] = []
    for indices in batches:
        items, task_scope = 0, None  # a batch starts a task of its own
        for index in indices:
            scope, codes, _, start, end = runs[index]
            if scope != task_scope or items >= size:
                tasks.append(((scope, codes, []), []))
                items, task_scope = 0, scope
            tasks[-1][0][2].append((start, end))
            tasks[-1][1].append(index)
            items += end - start
    return tasks


def _read_together(docs: list[str], read_with: dict[str, str]) -> list[str]:
    """The documents, those that read the same document next to each other (in the order
    the first of each comes)."""
    together: dict[tuple[str, str], list[str]] = {}
    for doc in docs:
        key = ("read with", read_with[doc]) if doc in read_with else ("own", doc)
        together.setdefault(key, []).append(doc)
    return [doc for members in together.values() for doc in members]


def check_task(task: Task, ctx: CheckContext) -> list[Found]:
    """Run the checks of one scope on slices of its items (one task of ``run_checks``): the
    findings of each slice, by code. (``work.execute`` runs it without cyclic garbage
    collection, in a worker too: the checks keep what they read of each text, and each
    collection of the oldest generation walked all of it, a fifth of the stage's time on
    100,000 units.)"""
    scope, codes, bounds = task
    if scope == Scope.CORPUS:
        [code] = codes
        check = checks_of(ctx)[code].target
        return [{code: [to_finding(code, problem, ctx) for problem in check(ctx)]}]
    if scope == Scope.GROUP:
        [code] = codes
        groups, check = groups_of(ctx, code), checks_of(ctx)[code].target
        return [
            {code: [to_finding(code, problem, ctx) for problem in check(groups[index], ctx)]}
            for index, _ in bounds
        ]
    items = scope_items(ctx, Scope(scope))
    found = []
    for start, end in bounds:
        part = {}
        for code in codes:
            check = checks_of(ctx)[code].target
            part[code] = [
                to_finding(code, problem, ctx)
                for item in items[start:end]
                for problem in check(item, ctx)
            ]
        found.append(part)
    return found


def to_finding(code: str, problem: Problem, ctx: CheckContext) -> Finding:
    """A finding of ``code`` at the problem's unit (or at its document's first unit, or in
    no file for a finding about the whole run)."""
    if problem.whole_run:
        return make_finding(
            code,
            problem.message,
            lang=problem.lang,
            evidence=problem.evidence,
            severity=problem.severity,
            anchor=problem.message,
        )
    if problem.document is not None:
        first = min(problem.document, key=lambda r: (r.line or 0, r.position))
        return make_finding(
            code,
            problem.message,
            file=first.file,
            line=first.line,
            lang=problem.lang or first.doc_lang,
            card=first.card,
            evidence=problem.evidence,
            marks=problem.marks,
            severity=problem.severity,
            anchor=first.doc,
            row=ctx.team_codes.get(code),
        )
    ruling = problem.ruling
    lang = problem.lang
    if lang is None:
        lang = ruling.lang if ruling.lang != ctx.source_lang else ruling.doc_lang
    return make_finding(
        code,
        problem.message,
        file=ruling.file,
        line=ruling.line,
        lang=lang,
        ruling_id=ruling.id,
        source_id=problem.source.id if problem.source else None,
        card=ruling.card,
        section=ruling.section,
        evidence=problem.evidence,
        marks=problem.marks,
        severity=problem.severity,
        anchor=ruling.text,
        row=ctx.team_codes.get(code),
    )
