"""Align a card's translated rulings with English rulings: 1-1, unordered.

Candidates are the card's own English rulings and, because many rulings are the same text on
many cards (all the suspend rulings), the nearest English rulings of other cards (method
``template``). Each pair is scored by similarity, margin (how much it stands out from the
other neighbours), the same date (a strong prior) and own card over template; an optimal
assignment makes the pairs 1-1, so near-duplicate rulings cannot swap.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise

import numpy as np

from ..bounded import TEXTS_REMEMBERED
from ..cards import name_key
from ..model import Alignment, Ruling
from ..text import CARD_PLACEHOLDER, plain_quotes, template_text
from ..text.card_text import REMINDER_TEXT, is_card_text
from ..text.scripts import weighted_letters
from ..text.tokens import tokens
from ..thresholds import ALIGN, threshold
from ..vocabulary import Method
from .assignment import linear_sum_assignment
from .calibration import calibrated
from .context import AlignContext, pair_products, products, screening_error
from .documents import place
from .margin import margin_scores
from .merged_lines import merged_lines
from .versions import Versions, shared_words

MIN_SIMILARITY = threshold(
    "align.min-similarity",
    0.30,
    """Card rulings: below this cross-lingual similarity two rulings are never the same
    ruling (short lines of a card's own aside).""",
    stage=ALIGN,
    minimum=-1,
    maximum=1,
)
OWN_MIN_SIMILARITY = 0.20
SHORT_TEXT_CHARS = 40
"""Within a card's own rulings or text lines, two units that are each other's nearest and
one of them short (a keyword line) are the same unit from OWN_MIN_SIMILARITY up: short
texts score low for any embedder ("Vuela." and "Flying": 0.34)."""
ACCEPT_SCORE = threshold(
    "align.accept-score",
    0.5,
    """Card rulings: a pair is kept when its calibrated score (the probability it is right)
    is at least this.""",
    stage=ALIGN,
    minimum=0,
    maximum=1,
)
SAME_DATE_BONUS = 0.08
OWN_CARD_BONUS = 0.10
"""The card's own English ruling outweighs the same text on another card with the
translation's date: the card's own masters are the authority its dates are checked against."""
SAME_SYMBOLS_BONUS = 0.10
SAME_SYMBOLS_TELL = 0.5
"""Two of a card's own units that share most of their symbols and are each other's best
are the same unit, however their texts embed (a cost line without its reminder text)."""
SAME_PLACE_BONUS = 0.03
"""A small prior for a card's own units at the same place in both documents (order)."""
MARGIN_WEIGHT = 0.5
TEMPLATE_NEIGHBOURS = 3
TEMPLATE_MIN_CARDS = 3
"""A line of a card's text is paired with another card's line only when at least this many
cards share it ("{T}: Add {C}."): a line of one or two other cards that merely looks like it
("{T}: Add {B}." for "Demencia {1}{B}{B}.") is another card's (``_may_be_template``)."""
UNTRANSLATED_MIN_SIMILARITY = 0.80
UNTRANSLATED_CANDIDATES = 5
"""Nearest other-card rulings considered as the one an untranslated ruling copies."""
UNTRANSLATED_REWORDED = (0.60, 0.60)
"""An older wording of the same English ruling ("enter" for "enter the battlefield") is
less similar in meaning (0.76) but shares most words: (similarity, shared words) minima."""
BLOCK_CELLS = 1 << 24
"""Similarities per block of the neighbour search (64 MB of floats): query rows per block
are this over the pool's texts, so that a catalogue's larger pool means smaller blocks,
not more memory."""
PREPARED_SPARE = 8
"""Extra neighbours prepared per target, in case some are in the target's own document."""
SELECT_GROUP = 64
"""Pool texts per group when selecting the nearest ones (see ``_smallest``)."""
GATHER_TEXTS = 1 << 15
"""Pool texts per block when the pool's vectors are read from the run's vectors a block at a
time (64 MB of 512-dimension vectors)."""
SCREENED_MAX = 1024
"""A row the single-precision screen leaves with more pool texts than this (vectors that tie
by the thousand: none in a real catalogue) is searched whole, exactly, instead."""
PAIRS_PER_BLOCK = 4096
"""Pairs whose exact similarity is computed at a time (their vectors in double precision:
32 MB)."""
GATHERS_BEFORE_COPY = 8
"""Query chunks searched a block at a time before the pool keeps a copy of its vectors: a run
that aligns a few documents searches a few chunks and holds no copy (250 MB at a million
units); one that aligns many pays for the copy once."""


@dataclass
class SourcePool:
    """Every English card ruling, de-duplicated by (text, date): the template candidates.

    Neighbours are searched among the distinct texts (a ruling repeated with several dates
    is one text), then expanded to the rulings that carry each text. The texts' vectors are
    rows of the run's vectors, read a block at a time until enough queries make a copy
    worth its memory (``GATHERS_BEFORE_COPY``); either way every similarity has the same
    bits (``products``), so the neighbours do not depend on it.
    """

    rulings: list[Ruling]
    vectors: np.ndarray
    """The run's vectors (``AlignContext.vectors``), not a copy."""
    text_rows: np.ndarray
    """The row in ``vectors`` of each distinct template text."""
    members: list[list[int]]
    """The pool rulings (indices into ``rulings``) that carry each distinct text."""
    _neighbours: dict[str, list[int]] = field(default_factory=dict)
    """Prepared nearest pool rulings of target rulings, by target id (best first)."""
    cards_by_text: dict[str, int] = field(default_factory=dict)
    """How many cards carry each template text (counted before the de-duplication)."""
    english_by_card: dict[str, list[Ruling]] = field(default_factory=dict)
    """The English rulings of each card (whose neighbours the alignment of the card's
    translations reads: see ``prepare``)."""
    _cards_prepared: set[str] = field(default_factory=set)
    """The cards whose English rulings were prepared."""
    _by_vector: dict[int, tuple[int, list[int]]] = field(default_factory=dict)
    """Prepared neighbours by the hash of a query vector: (a row of ``ctx.vectors`` with
    that vector, its neighbours)."""
    _copy: np.ndarray | None = None
    """The texts' vectors gathered once, after ``GATHERS_BEFORE_COPY`` chunks."""
    _gathers: int = 0

    @cached_property
    def _documents(self) -> set[str]:
        return {r.doc for r in self.rulings}

    @property
    def text_vectors(self) -> np.ndarray:
        """One vector per distinct template text (a copy, unless the pool keeps one)."""
        return self._copy if self._copy is not None else self.vectors[self.text_rows]

    @classmethod
    def build(
        cls, ctx: AlignContext, english: list[Ruling], templates: dict[str, str] | None = None
    ) -> SourcePool:
        """The pool of ``english``; ``templates``: their ``template_text`` by id, when the
        caller has them (the versions of the same rulings read them too)."""
        chosen: dict[tuple[str, str | None], Ruling] = {}
        templates = [
            templates[item.id] if templates is not None else template_text(item) for item in english
        ]
        for item, text in zip(english, templates, strict=True):
            chosen.setdefault((text, item.date), item)
        rulings = list(chosen.values())
        by_text: dict[str, list[int]] = {}
        for index, ((text, _), _ruling) in enumerate(chosen.items()):
            by_text.setdefault(text, []).append(index)
        members = list(by_text.values())
        rows = [ctx.vector_row[rulings[group[0]].id] for group in members]
        cards: dict[str, set[str | None]] = defaultdict(set)
        by_card: dict[str, list[Ruling]] = defaultdict(list)
        for item, text in zip(english, templates, strict=True):
            cards[text].add(item.card)
            if item.card:
                by_card[item.card].append(item)
        return cls(
            rulings,
            ctx.vectors,
            np.asarray(rows, dtype=np.int64),
            members,
            cards_by_text={t: len(c) for t, c in cards.items()},
            english_by_card=dict(by_card),
        )

    def prepare(self, ctx: AlignContext, targets: list[Ruling]) -> None:
        """Find the nearest pool rulings of many targets at once, and of the dated English
        rulings of their cards (``align_card_document`` looks for newer versions of those
        among their neighbours): one large matrix product in chunks instead of a small one
        per document, which would read the whole pool for a few rows.

        A vector (a text) is searched once, whatever rulings carry it and whichever calls
        ask for it. Every row is computed by the same matrix kernel whatever else is
        computed with it, so a ruling's neighbours do not depend on the batch."""
        if not self.members:
            return
        todo: dict[str, None] = {}
        for target in targets:
            if target.id not in self._neighbours:
                todo[target.id] = None
            if target.card and target.card not in self._cards_prepared:
                self._cards_prepared.add(target.card)
                for item in self.english_by_card.get(target.card, []):
                    if item.date and item.id not in self._neighbours:
                        todo[item.id] = None
        if not todo:
            return
        rows: list[int] = []
        keys: list[bytes] = []
        slot_of: dict[bytes, int] = {}
        waiting: list[tuple[str, int]] = []
        for target_id in todo:
            row = ctx.vector_row[target_id]
            key = ctx.vectors[row].tobytes()
            known = self._by_vector.get(hash(key))
            if known is not None and ctx.vectors[known[0]].tobytes() == key:
                self._neighbours[target_id] = known[1]
                continue
            slot = slot_of.setdefault(key, len(rows))
            if slot == len(rows):
                rows.append(row)
                keys.append(key)
            waiting.append((target_id, slot))
        wanted = min(TEMPLATE_NEIGHBOURS + PREPARED_SPARE, len(self.members))
        found: list[list[int]] = []
        chunk = max(1, BLOCK_CELLS // len(self.members))
        for start in range(0, len(rows), chunk):
            found.extend(self._nearest_texts(ctx.vectors[rows[start : start + chunk]], wanted))
        for row, key, neighbours in zip(rows, keys, found, strict=True):
            self._by_vector.setdefault(hash(key), (row, neighbours))
        for target_id, slot in waiting:
            self._neighbours[target_id] = found[slot]

    def _kept_copy(self) -> np.ndarray:
        """The texts' vectors as one array, gathered the first time and kept."""
        if self._copy is None:
            self._copy = self.vectors[self.text_rows]
        return self._copy

    def _scores(self, queries: np.ndarray, *, exact: bool = True) -> np.ndarray:
        """The similarities of the queries (rows) to every pool text (columns): exact
        (``products``) or screened (a single-precision product, within
        ``screening_error`` of the exact ones)."""
        product = products if exact else _single_precision_products
        if self._copy is not None or self._gathers >= GATHERS_BEFORE_COPY:
            return product(queries, self._kept_copy())
        self._gathers += 1
        scores = np.empty((len(queries), len(self.text_rows)), dtype=np.float32)
        for start in range(0, len(self.text_rows), GATHER_TEXTS):
            block = self.vectors[self.text_rows[start : start + GATHER_TEXTS]]
            scores[:, start : start + len(block)] = product(queries, block)
        return scores

    def _text_vectors_at(self, texts: np.ndarray) -> np.ndarray:
        """The vectors of the given pool texts (indices, repeats allowed)."""
        if self._copy is not None:
            return self._copy[texts]
        return self.vectors[self.text_rows[texts]]

    def _nearest_texts(self, queries: np.ndarray, wanted: int) -> list[list[int]]:
        """The pool rulings of the ``wanted`` nearest texts of each query, best first (by
        similarity rounded, then text): those of the exact similarities (``products``).

        A single-precision product screens the pool first: a text whose screened similarity
        is below a row's ``wanted``-th best by more than twice ``screening_error`` cannot be
        among the row's nearest, so the exact similarities are computed only for the few
        texts left (the double-precision sums of the whole pool took 81% of a cold
        million-unit alignment). A row whose ``wanted``-th and next exact similarities are
        equal, or that the screen leaves with more than ``SCREENED_MAX`` texts, is computed
        whole, as it was before, so that a tie is decided the same way."""
        screened = self._scores(queries, exact=False)
        np.negative(screened, out=screened)
        limit = np.take_along_axis(screened, _smallest(screened, wanted), axis=1).max(axis=1)
        limit += 2 * screening_error(queries.shape[1])
        close = screened <= limit[:, None]
        del screened
        counts = close.sum(axis=1)
        crowded = counts > max(SCREENED_MAX, wanted)
        close[crowded] = False
        counts[crowded] = 0
        row, column = np.nonzero(close)
        del close
        value = -self._exact_pairs(queries, row, column)
        order = np.lexsort((column, value, row))
        column, value = column[order], value[order]
        starts = np.cumsum(counts) - counts
        top = np.zeros((len(queries), wanted), dtype=np.int64)
        chosen = np.zeros((len(queries), wanted), dtype=np.float32)
        found = np.flatnonzero(counts)
        picks = starts[found, None] + np.arange(wanted)
        top[found], chosen[found] = column[picks], value[picks]
        more = np.flatnonzero(counts > wanted)
        tied = more[value[starts[more] + wanted] == chosen[more, -1]]
        whole = np.union1d(np.flatnonzero(crowded), tied)
        if len(whole):
            exact = self._scores(queries[whole])
            np.negative(exact, out=exact)
            top[whole] = _smallest(exact, wanted)
            chosen[whole] = np.take_along_axis(exact, top[whole], axis=1)
        chosen = np.round(chosen, 5)
        ranked = np.take_along_axis(top, np.lexsort((top, chosen), axis=1), axis=1)
        members = self.members
        return [[index for text in texts for index in members[text]] for texts in ranked.tolist()]

    def _exact_pairs(self, queries: np.ndarray, row: np.ndarray, column: np.ndarray) -> np.ndarray:
        """The exact similarity of each (query row, pool text) pair, ``PAIRS_PER_BLOCK``
        pairs gathered at a time."""
        value = np.empty(len(row), dtype=np.float32)
        for start in range(0, len(row), PAIRS_PER_BLOCK):
            part = slice(start, start + PAIRS_PER_BLOCK)
            value[part] = pair_products(queries[row[part]], self._text_vectors_at(column[part]))
        return value

    def cards_with_text_of(self, ruling: Ruling) -> int:
        """How many cards carry this ruling's text (a shared ruling, or one card's own)."""
        return self.cards_by_text.get(template_text(ruling), 0)

    def with_reminder(self, ruling: Ruling) -> list[Ruling]:
        """The pool's lines that are this line with reminder text: "Flash (You may cast
        this spell any time you could cast an instant.)" for a bare "Flash"."""
        if not hasattr(self, "_by_head"):
            by_head: dict[str, list[int]] = defaultdict(list)
            for index, item in enumerate(self.rulings):
                if REMINDER_TEXT.search(item.text):
                    by_head[head_template(item)].append(index)
            self._by_head = dict(by_head)
        return [self.rulings[i] for i in self._by_head.get(head_template(ruling), [])]

    def _expand(self, texts) -> list[int]:
        return [index for text in texts for index in self.members[text]]

    def nearest(
        self, ctx: AlignContext, targets: list[Ruling], k: int, exclude_docs: set[str]
    ) -> list[list[int]]:
        """Indices of the k most similar pool rulings of each target (not from the given
        documents), from the prepared neighbours when there are enough of them."""
        self.prepare(ctx, targets)
        found = []
        excluded = not exclude_docs.isdisjoint(self._documents)
        for target in targets:
            prepared = self._neighbours.get(target.id, [])
            usable = prepared
            if excluded:
                usable = [c for c in prepared if self.rulings[c].doc not in exclude_docs]
            if len(usable) < k and len(prepared) < len(self.rulings):
                usable = self._search(ctx, target, exclude_docs)
            found.append(usable[:k])
        return found

    def _search(self, ctx: AlignContext, target: Ruling, exclude_docs: set[str]) -> list[int]:
        """Every pool ruling, nearest first (when the prepared neighbours ran out): a
        search of the whole pool, which keeps its copy from then on."""
        scores = np.round(self._kept_copy() @ ctx.vectors[ctx.vector_row[target.id]], 5)
        order = sorted(range(len(self.members)), key=lambda t: (-scores[t], t))
        return [c for c in self._expand(order) if self.rulings[c].doc not in exclude_docs]


def _single_precision_products(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``left @ right.T`` in float32: the fast product that screens the pool, whose cells
    may differ from ``products``' in the last bits."""
    return left @ right.T


def _smallest(scores: np.ndarray, wanted: int) -> np.ndarray:
    """The columns of each row's ``wanted`` smallest values, in no order: the ones
    ``np.argpartition`` finds, without partitioning every row of the pool.

    The columns are cut into groups (column g, g + groups, g + 2 groups, ...); the
    ``wanted``-th smallest of the groups' minima bounds a row's ``wanted``-th smallest value
    from above, so only the few groups whose minimum is within the bound hold candidates.
    When the ``wanted``-th and the next candidate have the same value, the row is left to
    ``np.argpartition``, which decides such a tie its own way."""
    rows, size = scores.shape
    groups = size // SELECT_GROUP
    if groups < wanted or not rows:
        return np.argpartition(scores, wanted - 1, axis=1)[:, :wanted]
    body = scores[:, : groups * SELECT_GROUP].reshape(rows, SELECT_GROUP, groups)
    lows = body.min(axis=1)
    tail = scores[:, groups * SELECT_GROUP :]
    bounds = np.concatenate([lows, tail], axis=1)
    limit = np.partition(bounds, wanted - 1, axis=1)[:, wanted - 1]
    group_rows, group = np.nonzero(lows <= limit[:, None])
    values = body[group_rows, :, group]
    keep = values <= limit[group_rows, None]
    columns = group[:, None] + groups * np.arange(SELECT_GROUP)
    tail_rows, tail_columns = np.nonzero(tail <= limit[:, None])
    row = np.concatenate([np.broadcast_to(group_rows[:, None], values.shape)[keep], tail_rows])
    column = np.concatenate([columns[keep], tail_columns + groups * SELECT_GROUP])
    value = np.concatenate([values[keep], tail[tail_rows, tail_columns]])
    order = np.lexsort((value, row))
    column, value = column[order], value[order]
    counts = np.bincount(row, minlength=rows)
    starts = np.cumsum(counts) - counts
    top = column[starts[:, None] + np.arange(wanted)]
    more = np.flatnonzero(counts > wanted)
    after = starts[more] + wanted
    for index in more[value[after - 1] == value[after]]:
        top[index] = np.argpartition(scores[index], wanted - 1)[:wanted]
    return top


def align_card_document(
    ctx: AlignContext,
    members: list[Ruling],
    own_sources: list[Ruling],
    pool: SourcePool,
    versions: Versions,
    embedder: str,
    group: str | None = None,
) -> list[Alignment]:
    """Pairs for the translated rulings of one document, plus what is missing or extra
    (``group``: what they were aligned within, by default the document's card)."""
    lang = members[0].doc_lang
    group = group or members[0].card or members[0].doc
    targets = [r for r in members if ctx.is_target(r)]
    strays = [r for r in members if ctx.is_stray(r)]
    own_sources = _same_face(members, own_sources)
    rows = [_untranslated(ctx, stray, own_sources, pool, lang, group) for stray in strays]
    current = _with_newer_versions(ctx, own_sources, pool, versions, {members[0].doc})
    rows.extend(_pairs(ctx, targets, current, pool, lang, group, embedder))
    rows = _own_lines_first(
        rows, merged_lines(ctx, targets, own_sources, rows, lang, group, embedder), own_sources
    )
    paired = {row.target_id for row in rows if row.source_id}
    rows.extend(
        Alignment(None, target.id, lang, 0.0, "no-source", None, group)
        for target in targets
        if target.id not in paired
    )
    expected = _faces_translated(members, own_sources, rows)
    rows.extend(
        Alignment(source.id, None, lang, 0.0, "no-translation", None, group)
        for source in _missing(ctx, rows, strays, expected, versions)
    )
    return rows


def _own_lines_first(
    rows: list[Alignment], merged: list[Alignment], own_sources: list[Ruling]
) -> list[Alignment]:
    """The pairs with the merged rows added; a paragraph the merged rows find saying part of
    one of its card's own lines loses the pair with another card's line it had."""
    own = {source.id for source in own_sources}
    retaken = {row.target_id for row in merged}
    kept = [
        row
        for row in rows
        if row.target_id not in retaken or row.source_id is None or row.source_id in own
    ]
    return kept + merged


FACES = " // "


def _faces(card: str | None) -> set[str]:
    return {name_key(face) for face in card.split(FACES)} if card and FACES in card else set()


def _same_face(members: list[Ruling], own: list[Ruling]) -> list[Ruling]:
    """A split or double-faced card's English may come one document per face (Dead, Gone;
    Mayor of Avabruck, Howlpack Alpha): a translated document titled with one face's name
    is that face's, and is aligned with that face's English (and with English documents of
    the whole card), not with the other face's. A translated title (Alcalde de Avabruck)
    names no English face; such a document is the face's whose English document is in its
    place of the team's parallel folders (``es/ISD/howlpack-alpha.txt``)."""
    faces = _faces(members[0].card)
    if not faces:
        return own
    title = name_key(members[0].doc_title or "")
    if title not in faces:
        title = _face_in_place(members[0].doc, own, faces)
        if title is None:
            return own
    kept = []
    for source in own:
        face = name_key(source.doc_title or "")
        if face == title or face not in faces:
            kept.append(source)
    return kept


def _face_in_place(doc: str, own: list[Ruling], faces: set[str]) -> str | None:
    """The face whose English document alone is in ``doc``'s place, if one is."""
    at = place(doc)
    found = {
        name_key(source.doc_title or "")
        for source in own
        if place(source.doc) == at and name_key(source.doc_title or "") in faces
    }
    return found.pop() if len(found) == 1 else None


def _faces_translated(
    members: list[Ruling], own: list[Ruling], rows: list[Alignment]
) -> list[Ruling]:
    """The English a document should have: all of its card's, but for a split card whose
    English comes one document per face, only the faces the document translates (the
    documents its units were paired with), when its title does not say which face it is."""
    docs = {s.doc for s in own}
    if not _faces(members[0].card) or len(docs) < 2:
        return own
    doc_of = {s.id: s.doc for s in own}
    touched = {doc_of[row.source_id] for row in rows if row.source_id in doc_of}
    return [s for s in own if s.doc in touched] if touched else own


VERSION_NEIGHBOURS = 5


def _with_newer_versions(
    ctx: AlignContext,
    own: list[Ruling],
    pool: SourcePool,
    versions: Versions,
    exclude_docs: set[str],
) -> list[Ruling]:
    """The card's own English rulings plus the newer, reworded versions of them that the
    input has on other cards (a ruling re-dated and reworded on a reprint): a translation
    of the new wording belongs to the card as much as the old one."""
    if not own:
        return own
    chosen = {r.id: r for r in own}
    dated = [r for r in own if r.date]  # an undated ruling has no newer version
    for ruling, neighbours in zip(
        dated, pool.nearest(ctx, dated, VERSION_NEIGHBOURS, exclude_docs), strict=True
    ):
        newer_id = versions.newer_among(ruling, [pool.rulings[i] for i in neighbours])
        if newer_id is not None and newer_id not in chosen:
            chosen[newer_id] = ctx.rulings[ctx.row[newer_id]]
    return sorted(chosen.values(), key=lambda r: ctx.row[r.id])


def _pairs(
    ctx: AlignContext,
    targets: list[Ruling],
    own_sources: list[Ruling],
    pool: SourcePool,
    lang: str | None,
    group: str,
    embedder: str,
) -> list[Alignment]:
    """Targets paired with the card's own English first, then with templates.

    The card's own rulings or text lines are the authority: they are assigned first, 1-1,
    and a pair is kept when it is likely right, or when the two are each other's nearest
    within the card even if short texts score low ("Vuela." and "Flying": 0.34). Only the
    targets left over are matched with the same ruling on other cards (templates), so a
    line of the card's own text is never taken by a look-alike of another card.
    """
    if not targets:
        return []
    own_rows = _assign(ctx, targets, own_sources, set(), lang, group, embedder, own_first=True)
    own_rows += _in_order(ctx, targets, own_sources, own_rows, lang, group, embedder)
    own_rows = [_with_reminder(ctx, row, pool, embedder) for row in own_rows]
    paired = {row.target_id for row in own_rows}
    used = {row.source_id for row in own_rows}
    rest = [t for t in targets if t.id not in paired]
    if not rest:
        return own_rows
    candidates = [
        c for c in _candidates(ctx, rest, own_sources, pool, {targets[0].doc}) if c.id not in used
    ]
    own = {r.id for r in own_sources}
    rows = own_rows + _assign(ctx, rest, candidates, own, lang, group, embedder)
    return rows + _by_elimination(ctx, targets, own_sources, rows, lang, group, embedder)


def _with_reminder(ctx: AlignContext, row: Alignment, pool: SourcePool, embedder: str) -> Alignment:
    """A translated keyword line with reminder text ("Destello (Puedes jugar este hechizo…)")
    paired with its card's bare English line ("Flash") is compared with the same line with
    its reminder text, from another card ("Flash (You may cast this spell…)"): the reminder
    is checked too, and the bare line counts as translated."""
    source, target = ctx.rulings[ctx.row[row.source_id]], ctx.rulings[ctx.row[row.target_id]]
    if REMINDER_TEXT.search(source.text) or not REMINDER_TEXT.search(target.text):
        return row
    found = [r for r in pool.with_reminder(source) if r.doc != target.doc]
    if not found:
        return row
    similarity = ctx.matrix(found, [target])[:, 0]
    best = int(np.argmax(similarity))
    if float(similarity[best]) <= (row.similarity or 0.0):
        return row
    value = float(similarity[best])
    return Alignment(
        source_id=found[best].id,
        target_id=target.id,
        lang=row.lang,
        score=calibrated(value, 0.0, Method.TEMPLATE, embedder),
        method=str(Method.TEMPLATE),
        similarity=round(value, 4),
        group=row.group,
    )


def _in_order(
    ctx: AlignContext,
    targets: list[Ruling],
    own_sources: list[Ruling],
    rows: list[Alignment],
    lang: str | None,
    group: str,
    embedder: str,
) -> list[Alignment]:
    """A card's text lines left over between the pairs already made, as many translated
    lines as English ones in the same stretch of both documents: each other's, in order.

    A printed card and its Oracle text list the same abilities in the same order, but a
    keyword line embeds poorly against its translation when one side has reminder text and
    the other does not ("Flash" and "Destello (Puedes jugar este hechizo…)": 0.11; "Swampwalk
    (…)" and "Cruza pantanos.": 0.07), and the reminder text makes it look like another
    card's line of the same keyword. Only card text (undated lines) of one English
    document is paired this way; the pairs already made must keep the order of both."""
    if not targets or not own_sources or len({s.doc for s in own_sources}) != 1:
        return []
    if not all(is_card_text(r) for r in [*targets, *own_sources]):
        return []
    by_id = {r.id: r for r in [*targets, *own_sources]}
    made = sorted(
        (by_id[row.source_id].position, by_id[row.target_id].position)
        for row in rows
        if row.source_id in by_id and row.target_id in by_id
    )
    if any(b[1] <= a[1] for a, b in pairwise(made)):
        return []
    paired = {row.target_id for row in rows} | {row.source_id for row in rows}
    bounds = [(-1, -1), *made, (float("inf"), float("inf"))]
    found = []
    for (s_low, t_low), (s_high, t_high) in pairwise(bounds):
        sources = sorted(
            (s for s in own_sources if s.id not in paired and s_low < s.position < s_high),
            key=lambda r: r.position,
        )
        gap = sorted(
            (t for t in targets if t.id not in paired and t_low < t.position < t_high),
            key=lambda r: r.position,
        )
        if sources and len(sources) == len(gap):
            found.extend(zip(sources, gap, strict=True))
    if not found:
        return []
    similarity = ctx.pairwise([s for s, _ in found], [t for _, t in found])
    return [
        Alignment(
            source_id=source.id,
            target_id=target.id,
            lang=lang,
            score=calibrated(float(similarity[k]), 0.0, Method.ORDER, embedder),
            method=str(Method.ORDER),
            similarity=round(float(similarity[k]), 4),
            group=group,
        )
        for k, (source, target) in enumerate(found)
    ]


def _by_elimination(
    ctx: AlignContext,
    targets: list[Ruling],
    own_sources: list[Ruling],
    rows: list[Alignment],
    lang: str | None,
    group: str,
    embedder: str,
) -> list[Alignment]:
    """When one target and one of the card's own units are all that is left, they are each
    other's (a text line that lost its symbols embeds poorly), unless they are unrelated."""
    paired = {row.target_id for row in rows}
    used = {row.source_id for row in rows}
    left = [t for t in targets if t.id not in paired]
    free = [s for s in own_sources if s.id not in used and s.doc != targets[0].doc]
    if len(left) != 1 or len(free) != 1:
        return []
    similarity = float(ctx.matrix(free, left)[0, 0])
    if similarity < OWN_MIN_SIMILARITY:
        return []
    method = Method.DATE if free[0].date and free[0].date == left[0].date else Method.EMBEDDING
    return [
        Alignment(
            source_id=free[0].id,
            target_id=left[0].id,
            lang=lang,
            score=calibrated(similarity, 0.0, method, embedder),
            method=str(method),
            similarity=round(similarity, 4),
            group=group,
        )
    ]


def _assign(
    ctx: AlignContext,
    targets: list[Ruling],
    candidates: list[Ruling],
    own: set[str],
    lang: str | None,
    group: str,
    embedder: str,
    *,
    own_first: bool = False,
) -> list[Alignment]:
    """The optimal 1-1 assignment of targets to candidates, kept where it is likely right
    (``own_first``: the candidates are the card's own, and mutual nearest pairs count)."""
    if not targets or not candidates:
        return []
    if own_first:
        own = {r.id for r in candidates}
    similarity = ctx.matrix(candidates, targets)
    margin = margin_scores(similarity)
    bonus = np.zeros_like(similarity)
    bonus[[i for i, source in enumerate(candidates) if source.id in own]] += OWN_CARD_BONUS
    bonus[_same_date(candidates, targets)] += SAME_DATE_BONUS
    if own_first:
        bonus += SAME_PLACE_BONUS * _same_place(candidates, targets)
        symbols = _same_symbols(candidates, targets)
        bonus += SAME_SYMBOLS_BONUS * symbols
    combined = similarity + MARGIN_WEIGHT * margin + bonus
    rows = []
    for i, j in zip(*linear_sum_assignment(-combined), strict=True):
        source, target = candidates[i], targets[j]
        if source.id in own:
            method = "date+embedding" if source.date and source.date == target.date else "embedding"
        else:
            method = "template"
        score = calibrated(float(similarity[i, j]), float(margin[i, j]), method, embedder)
        if covers_more(target, source):
            continue
        if (
            similarity[i, j] < ctx.threshold(MIN_SIMILARITY) or score < ctx.threshold(ACCEPT_SCORE)
        ) and not (
            own_first
            and (
                min(len(_head(source.text)), len(_head(target.text))) <= SHORT_TEXT_CHARS
                or symbols[i, j] >= SAME_SYMBOLS_TELL
            )
            and similarity[i, j] >= OWN_MIN_SIMILARITY
            and combined[:, j].argmax() == i
            and combined[i, :].argmax() == j
        ):
            continue
        rows.append(
            Alignment(
                source_id=source.id,
                target_id=target.id,
                lang=lang,
                score=score,
                method=method,
                similarity=round(float(similarity[i, j]), 4),
                group=group,
            )
        )
    return rows


def _same_date(sources: list[Ruling], targets: list[Ruling]) -> np.ndarray:
    """Whether each source (rows) has a date and the target's (columns) is the same."""
    code: dict[str | None, int] = {}
    left = np.array([code.setdefault(s.date, len(code)) if s.date else -1 for s in sources])
    right = np.array([code.get(t.date, -2) for t in targets])
    return left[:, None] == right[None, :]


REMINDER = re.compile(r"\s*[(（].*$")


LONGER_THAN_SOURCE = 2.0
"""A ruling at least this many times as long as an English ruling (in letters, a Han
character counting as ``HAN_WEIGHT``) says much more than it: it is not its translation,
however similar a part of it is (a 2024 ruling on the suspend change, of four sentences, is
not the translation of the one-sentence 2013 ruling it ends like). Translations run about
as long as their source, give or take a fifth."""


def covers_more(target: Ruling, source: Ruling) -> bool:
    """Whether a translated ruling says much more than an English one (``LONGER_THAN_SOURCE``);
    card text lines aside, whose reminder text a printed card gives or leaves out."""
    if is_card_text(target) or is_card_text(source):
        return False
    longest = LONGER_THAN_SOURCE * max(1, weighted_letters(source.text))
    return weighted_letters(target.text) > longest


def _head(text: str) -> str:
    """A text line without its reminder text: "Destello" of "Destello (Puedes jugar…)"."""
    return REMINDER.sub("", text)


def head_template(ruling: Ruling) -> str:
    """A line's template text without its reminder text ("flash" for "Flash (You may…)")."""
    return _head_template(ruling.text, ruling.card)


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _head_template(text: str, card: str | None) -> str:
    text = REMINDER_TEXT.sub("", text).strip()
    if card:
        text = text.replace(card, CARD_PLACEHOLDER)
    return plain_quotes(text).casefold()


def _same_symbols(sources: list[Ruling], targets: list[Ruling]) -> np.ndarray:
    """How far a source and a target carry the same symbols ({1}{U}{U}, +1/+1: copied,
    never translated): the share of the tokens either has that both have, 0.0 when neither
    has any. Symbols settle a line whose text embeds poorly (a suspend cost without its
    reminder text) and tell two cards' near-identical lines apart."""
    found = np.zeros((len(sources), len(targets)))
    left = [_symbols(s.text) for s in sources]
    if not any(total for _, total in left):
        return found
    right = [_symbols(t.text) for t in targets]
    for i, (mine, mine_total) in enumerate(left):
        if not mine_total:
            continue
        for j, (theirs, theirs_total) in enumerate(right):
            common = mine.keys() & theirs.keys()
            if common:
                both = sum(min(mine[token], theirs[token]) for token in common)
                found[i, j] = both / (mine_total + theirs_total - both)
    return found


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _symbols(text: str) -> tuple[dict[str, int], int]:
    """A text's tokens (``kind:token`` -> count) and how many there are."""
    bag = {
        f"{kind}:{token}": count
        for kind, found in tokens(text).items()
        for token, count in found.items()
        if count > 0
    }
    return bag, sum(bag.values())


def _same_place(sources: list[Ruling], targets: list[Ruling]) -> np.ndarray:
    """1.0 where a source and a target stand at the same relative place in their documents,
    falling to 0.0 at opposite ends: a card's text lines and their translation keep their
    order, which settles a tie between two identical lines (a line pasted twice)."""

    def places(items: list[Ruling]) -> np.ndarray:
        order = {r.id: k for k, r in enumerate(sorted(items, key=lambda r: r.position))}
        return np.array([order[r.id] / max(1, len(items) - 1) for r in items])

    return 1.0 - np.abs(places(sources)[:, None] - places(targets)[None, :])


def _missing(
    ctx: AlignContext,
    rows: list[Alignment],
    strays: list[Ruling],
    own_sources: list[Ruling],
    versions: Versions,
) -> list[Ruling]:
    """The card's English rulings the document has in no form: not translated, not left in
    English, not replaced by a newer version of the same ruling."""
    present = [ctx.rulings[ctx.row[row.source_id]] for row in rows if row.source_id] + strays
    covered = {versions.template(r) for r in present} | {head_template(r) for r in present}
    return [
        source
        for source in own_sources
        if versions.template(source) not in covered and not versions.newer_among(source, present)
    ]


def _candidates(
    ctx: AlignContext,
    targets: list[Ruling],
    own_sources: list[Ruling],
    pool: SourcePool,
    exclude_docs: set[str],
) -> list[Ruling]:
    chosen = {r.id: r for r in own_sources}
    for target, neighbours in zip(
        targets, pool.nearest(ctx, targets, TEMPLATE_NEIGHBOURS, exclude_docs), strict=True
    ):
        for index in neighbours:
            candidate = pool.rulings[index]
            if _may_be_template(target, candidate, pool):
                chosen.setdefault(candidate.id, candidate)
    return sorted(chosen.values(), key=lambda r: ctx.row[r.id])


def _may_be_template(target: Ruling, candidate: Ruling, pool: SourcePool) -> bool:
    """Whether another card's text may be the one a unit translates: for a line of a card's
    text, a line of card text that at least ``TEMPLATE_MIN_CARDS`` cards share ("Flying",
    "{T}: Add {C}."), never a ruling and never one or two other cards' look-alike line; for
    a ruling, any ruling (the same ruling printed on two cards)."""
    if not is_card_text(target):
        return not is_card_text(candidate)
    return is_card_text(candidate) and pool.cards_with_text_of(candidate) >= TEMPLATE_MIN_CARDS


def _untranslated(
    ctx: AlignContext,
    stray: Ruling,
    own_sources: list[Ruling],
    pool: SourcePool,
    lang: str | None,
    group: str,
) -> Alignment:
    """A source-language ruling standing in a translation: paired with the English ruling
    it copies (the same text, or an older wording of it), if the input has one, but marked
    ``untranslated`` and never scored as a good translation."""
    nearest = pool.nearest(ctx, [stray], UNTRANSLATED_CANDIDATES, {stray.doc})[0]
    neighbours = [pool.rulings[index] for index in nearest]
    candidates = {r.id: r for r in [*own_sources, *neighbours] if r.doc != stray.doc}
    ordered = sorted(candidates.values(), key=lambda r: ctx.row[r.id])
    similarity = ctx.matrix(ordered, [stray])[:, 0] if ordered else np.zeros(0)
    copied = None
    for index in np.argsort(-similarity, kind="stable")[:5]:
        value = float(similarity[index])
        min_similarity, min_words = UNTRANSLATED_REWORDED
        if value >= UNTRANSLATED_MIN_SIMILARITY or (
            value >= min_similarity
            and shared_words(template_text(ordered[index]), template_text(stray)) >= min_words
        ):
            copied = (ordered[index], value)
            break
    return Alignment(
        source_id=copied[0].id if copied else None,
        target_id=stray.id,
        lang=lang,
        score=0.0,
        method="untranslated",
        similarity=round(copied[1], 4) if copied else None,
        group=group,
    )
