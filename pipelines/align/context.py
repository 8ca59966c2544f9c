"""What the aligners share: the rulings, their embeddings, who is a source and who a target."""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter

import numpy as np

from ..model import Ruling
from ..text.card_text import REMINDER_TEXT, is_card_text, sentence_pieces
from ..text.scripts import script_profile
from ..thresholds import Threshold
from ..vocabulary import DocKind

Encoder = Callable[[list[str]], np.ndarray]

RULES_FORMATS = frozenset({"cr-text", "cr-summary"})
SIMILARITY_DECIMALS = 5
"""Similarities are rounded before any decision: a vector computed in another batch can
differ in its last bit (1e-7), which must not change an alignment."""


def is_rules_unit(ruling: Ruling) -> bool:
    """Rules text (aligned by rule number and order) as opposed to card rulings."""
    return ruling.format in RULES_FORMATS or ruling.section is not None


def is_source_document(ruling: Ruling) -> bool:
    return ruling.doc_kind == DocKind.SOURCE


def is_translation_document(ruling: Ruling) -> bool:
    return ruling.doc_kind == DocKind.TRANSLATION


PRODUCT_MIN_BYTES, PRODUCT_MAX_BYTES = 1 << 18, 1 << 24
"""``products`` works through blocks whose double-precision copies (of rows of both sides
and of their products) take as many bytes as the result, within these bounds: larger
blocks are faster, smaller ones keep a small product small and a large one within 16 MB
more (the card pool's blocks are 64 MB of results)."""


def products(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Dot products of two sets of vectors (rows of ``left`` x rows of ``right``) as float32,
    each cell the same bits whatever else is computed with it: however the matrix is cut
    into blocks, and at whatever place a vector sits in its block.

    BLAS sums a cell in an order that depends on where its row and column sit in the
    matrix: on an AVX2 machine OpenBLAS's single-precision kernel gives rows 0-5 and 6-11
    of every 12, columns 0-7 and 8-15 of every 16 and the last, partial blocks other bits
    (and a matrix-vector product others again), so a similarity computed in a block and in
    the whole matrix could round to different fifth decimals (2,376 of 16.7 million cells
    on 4,096 x 4,096 unit vectors cut in blocks of 97 rows). The products are summed in
    double precision and rounded once to single: a float32 product of two float32 values is
    exact in float64 and the orders of summation differ by far less than a float32 step,
    so the rounded values agree (0 of 15.4 million cells differed over cuts of 1 to 500
    rows, at three offsets of the columns). It costs time: a long document's whole pass
    over 20,000 x 19,756 units took 21.4 s against 13.9 s in single precision."""
    rows, columns = len(left), len(right)
    if not rows or not columns:
        return np.empty((rows, columns), dtype=np.float32)
    wide = max(1, left.shape[1]) * 8
    budget = min(PRODUCT_MAX_BYTES, max(PRODUCT_MIN_BYTES, rows * columns * 4))
    row_step = max(1, min(rows, budget // (2 * wide)))
    column_step = max(1, (budget - row_step * wide) // (wide + 8 * row_step))
    if rows <= row_step and columns <= column_step:  # one block: the loop's work, without it
        return (left.astype(np.float64) @ right.astype(np.float64).T).astype(np.float32)
    result = np.empty((rows, columns), dtype=np.float32)
    for top in range(0, rows, row_step):
        wide_left = left[top : top + row_step].astype(np.float64)
        for start in range(0, columns, column_step):
            wide_right = right[start : start + column_step].astype(np.float64)
            result[top : top + row_step, start : start + column_step] = wide_left @ wide_right.T
    return result


def pair_products(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The dot product of each row of ``left`` with the same row of ``right``, as float32:
    the bits ``products`` gives that cell (summed in double precision, rounded once)."""
    wide = np.einsum("ij,ij->i", left.astype(np.float64), right.astype(np.float64))
    return wide.astype(np.float32)


def screening_error(dimensions: int) -> float:
    """A bound on how far a single-precision product of two unit vectors (``a @ b.T`` in
    float32, summed in any order) lies from the cell ``products`` gives: n u for a sum of
    n products with unit roundoff u = 2**-24 (Higham, Accuracy and Stability of Numerical
    Algorithms, 3.1; the sum of |a_i b_i| is at most 1 for unit vectors), doubled for the
    rounding of both and for vectors a few bits off unit length. 512 dimensions: 6.1e-5;
    measured on 200,000 x 84 unit vectors, the largest difference was 1.3e-7."""
    return 2.0 * (dimensions + 2) * 2.0**-24


def similarity_block(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cosine similarities of two sets of unit vectors (rows of ``left`` x rows of
    ``right``), rounded as ``AlignContext.matrix`` rounds them and, for a block of a larger
    matrix, bit for bit the cells of that matrix (see ``products``)."""
    block = products(left, right)
    np.clip(block, -1.0, 1.0, out=block)
    return np.round(block, SIMILARITY_DECIMALS, out=block)


MAX_JOINED_LINES = 4
"""The most English card lines one translated paragraph is read as saying: a modal spell's
"Choose one —" and its three modes, printed as one sentence ("Elige uno: …; o …; o …")."""


def english_card_texts(rulings: list[Ruling], source_lang: str) -> list[list[Ruling]]:
    """The lines of each English card-text document (the source documents whose units are
    all card text), documents in id order, lines in document order."""
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for ruling in rulings:
        if ruling.lang == source_lang and is_source_document(ruling):
            by_doc[ruling.doc].append(ruling)
    documents = []
    for doc in sorted(by_doc):
        lines = sorted(by_doc[doc], key=lambda r: r.position)
        if all(is_card_text(line) for line in lines):
            documents.append(lines)
    return documents


def joined_lines(card_texts: list[list[Ruling]]) -> list[list[Ruling]]:
    """Every run of 2 to MAX_JOINED_LINES consecutive lines of each English card-text
    document (``english_card_texts``)."""
    runs = []
    for lines in card_texts:
        for size in range(2, min(MAX_JOINED_LINES, len(lines)) + 1):
            runs.extend(lines[start : start + size] for start in range(len(lines) - size + 1))
    return runs


KEYWORD_ITEM_WORDS = 6
"""A part of a comma- or semicolon-separated card line of at most this many words is one
keyword of a list ("Flying, vigilance"; "Lifelink, protection from mana value 3 or greater")."""


def keyword_items(text: str) -> list[str]:
    """The keywords a card line lists, reminder text aside; [] for a line that is not a
    list of short parts (a sentence, an activated ability)."""
    head = REMINDER_TEXT.sub("", text).strip()
    if ":" in head or head.rstrip(".").count(".") or not head:
        return []
    parts = [p.strip(" .") for p in re.split(r"[,;]\s+", head)]
    if len(parts) < 2 or any(not p or len(p.split()) > KEYWORD_ITEM_WORDS for p in parts):
        return []
    return parts


KEYWORD_ITEM_HAN = 8
"""A part of a printed Chinese list of at most this many Han characters is one keyword
(闪现，飞行; 结附于生物)."""
PRINTED_LIST = re.compile(r"[,;，；、]\s*")
SENTENCE_INSIDE = re.compile(r"[:：]|[.。](?=.)")


def printed_keywords(text: str) -> list[str]:
    """The keywords a printed card paragraph lists, in any language, reminder text aside
    ("Destello, alcance." -> "Destello", "alcance"; 闪现，飞行); [] for a paragraph that
    is not a list of short parts."""
    head = REMINDER_TEXT.sub("", text).strip().rstrip(".。").strip()
    if not head or SENTENCE_INSIDE.search(head):
        return []
    parts = [part.strip(" .。") for part in PRINTED_LIST.split(head)]
    if len(parts) < 2 or not all(part and _one_keyword(part) for part in parts):
        return []
    return parts


def is_printed_keyword(text: str) -> bool:
    """A printed card paragraph that is one keyword, reminder text aside (飞行; 警戒（…）;
    "Vuela.")."""
    head = REMINDER_TEXT.sub("", text).strip().rstrip(".。").strip()
    if not head or SENTENCE_INSIDE.search(head):
        return False
    return len(PRINTED_LIST.split(head)) == 1 and _one_keyword(head)


def _one_keyword(part: str) -> bool:
    han = script_profile(part).get("han", 0)
    return han <= KEYWORD_ITEM_HAN if han else len(part.split()) <= KEYWORD_ITEM_WORDS


def is_keyword_line(text: str) -> bool:
    """An Oracle line that is one keyword ("Flash", "Enchant creature", "Cycling {2}"):
    short, without a colon or a sentence's full stop (reminder text aside)."""
    head = REMINDER_TEXT.sub("", text).strip()
    return (
        bool(head) and not re.search(r"[:.,;]", head) and (len(head.split()) <= KEYWORD_ITEM_WORDS)
    )


def joined_text(lines: list[Ruling]) -> str:
    return " ".join(line.text for line in lines)


_ID = attrgetter("id")
_TEXT = attrgetter("text")


@dataclass
class AlignContext:
    rulings: list[Ruling]
    encode: Encoder
    source_lang: str = "en"
    thresholds: Mapping[str, float] = field(default_factory=dict)
    """The run's named thresholds that differ from their defaults (``thresholds.py``)."""
    row: dict[str, int] = field(init=False)
    """Each ruling's index in ``rulings``."""
    vector_row: dict[str, int] = field(init=False)
    """Each ruling's row in ``vectors``: one row per distinct text, shared by the rulings
    that read the same (a million units of a catalogue repeat their texts)."""
    texts: list[str] = field(init=False)
    """The distinct texts, in the order of ``vectors``."""
    joined_row: dict[tuple[str, ...], int] = field(init=False)
    """The row in ``vectors`` of a run of consecutive lines of an English card text read as
    one text (their ids -> row; ``joined_lines``): a printed card may say several lines of
    its Oracle text in one paragraph, and the joined lines are what it translates."""
    head_row: dict[str, int] = field(init=False)
    """The row in ``vectors`` of an English card line without its reminder text ("Swampwalk"
    of "Swampwalk (This creature can't be blocked…)"), which printed cards often leave out."""
    item_rows: dict[str, list[int]] = field(init=False)
    """The rows in ``vectors`` of the keywords of an English card line that lists several
    ("Lifelink, protection from mana value 3 or greater"), which a printing may give as
    lines of their own (系命 on its own line)."""
    piece_rows: dict[str, list[int]] = field(init=False)
    """The rows in ``vectors`` of the sentences of a translated card line that has several
    (``text.card_text.sentence_pieces``): which of them says which English line."""
    printed_item_rows: dict[str, list[int]] = field(init=False)
    """The rows in ``vectors`` of the keywords a translated card line lists
    (``printed_keywords``: "Destello, alcance."), which Oracle text may give a line each."""

    def __post_init__(self) -> None:
        # the rulings' ids and texts got, numbered and looked up in C loops (``map``): a
        # million units' rows and texts' rows took 0.9 s one ruling at a time
        ids = list(map(_ID, self.rulings))
        texts = list(map(_TEXT, self.rulings))
        self.row = dict(zip(ids, range(len(ids)), strict=True))
        row_of_text = dict(zip(dict.fromkeys(texts), itertools.count()))  # first seen, first
        self.vector_row = dict(zip(ids, map(row_of_text.__getitem__, texts), strict=True))
        del ids, texts
        card_texts = english_card_texts(self.rulings, self.source_lang)
        self.joined_row = {
            tuple(line.id for line in run): row_of_text.setdefault(
                joined_text(run), len(row_of_text)
            )
            for run in joined_lines(card_texts)
        }
        self.head_row, self.item_rows = {}, {}
        for lines in card_texts:
            for line in lines:
                head = REMINDER_TEXT.sub("", line.text).strip()
                if head and head != line.text:
                    self.head_row[line.id] = row_of_text.setdefault(head, len(row_of_text))
                items = keyword_items(line.text)
                if len(items) > 1:
                    self.item_rows[line.id] = [
                        row_of_text.setdefault(item, len(row_of_text)) for item in items
                    ]
        self.piece_rows, self.printed_item_rows = {}, {}
        for ruling in self.rulings:
            if self.is_target(ruling) and is_card_text(ruling):
                pieces = sentence_pieces(ruling.text)
                if len(pieces) > 1:
                    self.piece_rows[ruling.id] = [
                        row_of_text.setdefault(piece, len(row_of_text)) for piece in pieces
                    ]
                if printed := printed_keywords(ruling.text):
                    self.printed_item_rows[ruling.id] = [
                        row_of_text.setdefault(item, len(row_of_text)) for item in printed
                    ]
        self.texts = list(row_of_text)

    @cached_property
    def vectors(self) -> np.ndarray:
        """One L2-normalised embedding per distinct text (``vector_row`` gives a ruling's)."""
        if not self.texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.asarray(self.encode(self.texts), dtype=np.float32)

    def threshold(self, named: Threshold) -> float:
        """The run's value of a named threshold."""
        return named.of(self.thresholds)

    def matrix(self, sources: list[Ruling], targets: list[Ruling]) -> np.ndarray:
        """Cosine similarities, sources as rows and targets as columns."""
        if not sources or not targets:
            return np.zeros((len(sources), len(targets)), dtype=np.float32)
        product = products(self.vectors_of(sources), self.vectors_of(targets))
        np.minimum(product, 1.0, out=product)
        np.maximum(product, -1.0, out=product)
        return product.round(SIMILARITY_DECIMALS, out=product)

    def pairwise(self, sources: list[Ruling], targets: list[Ruling]) -> np.ndarray:
        """The similarity of each source with the target at the same index (the diagonal of
        ``matrix``, without the rest of it), rounded the same way."""
        if not sources:
            return np.zeros(0, dtype=np.float32)
        products = np.einsum("ij,ij->i", self.vectors_of(sources), self.vectors_of(targets))
        return np.round(np.clip(products, -1.0, 1.0), SIMILARITY_DECIMALS)

    def joined_similarity(self, lines: list[Ruling], target: Ruling) -> float | None:
        """The similarity of a translated unit with consecutive English lines read as one
        text (one line: its own similarity), rounded as ``matrix`` rounds; None when those
        lines were not joined (``joined_lines``)."""
        if len(lines) == 1:
            return float(self.matrix(lines, [target])[0, 0])
        row = self.joined_row.get(tuple(line.id for line in lines))
        if row is None:
            return None
        value = float(self.vectors[row] @ self.vectors[self.vector_row[target.id]])
        return round(min(1.0, max(-1.0, value)), SIMILARITY_DECIMALS)

    def head_similarities(self, lines: list[Ruling], target: Ruling) -> np.ndarray:
        """The similarity of a translated unit with each of ``lines``, with or without its
        reminder text, whichever is closer (rounded as ``matrix`` rounds)."""
        if not lines:
            return np.zeros(0, dtype=np.float32)
        vector = self.vectors[self.vector_row[target.id]]
        heads = [self.head_row.get(line.id, self.vector_row[line.id]) for line in lines]
        product = np.maximum(self.vectors_of(lines) @ vector, self.vectors[heads] @ vector)
        return np.round(np.clip(product, -1.0, 1.0), SIMILARITY_DECIMALS)

    def item_similarities(self, line: Ruling, target: Ruling) -> np.ndarray:
        """The similarity of a translated unit with each keyword a listing English line
        lists (``item_rows``; none for another line), rounded as ``matrix`` rounds."""
        rows = self.item_rows.get(line.id)
        if not rows:
            return np.zeros(0, dtype=np.float32)
        product = self.vectors[rows] @ self.vectors[self.vector_row[target.id]]
        return np.round(np.clip(product, -1.0, 1.0), SIMILARITY_DECIMALS)

    def printed_item_similarities(self, target: Ruling, lines: list[Ruling]) -> np.ndarray:
        """The similarity of each keyword a translated card line lists (rows) with each of
        ``lines`` (columns), reminder text aside, rounded as ``matrix`` rounds; empty for a
        line that lists none (``printed_keywords``)."""
        rows = self.printed_item_rows.get(target.id)
        if not rows or not lines:
            return np.zeros((0, len(lines)), dtype=np.float32)
        heads = [self.head_row.get(line.id, self.vector_row[line.id]) for line in lines]
        product = self.vectors[rows] @ self.vectors[heads].T
        return np.round(np.clip(product, -1.0, 1.0), SIMILARITY_DECIMALS)

    def piece_similarities(self, target: Ruling, lines: list[Ruling]) -> np.ndarray | None:
        """The similarity of each sentence of a translated card line (rows) with each of
        ``lines`` (columns), with or without its reminder text, whichever is closer, rounded
        as ``matrix`` rounds; None for a line of one sentence."""
        rows = self.piece_rows.get(target.id)
        if rows is None or not lines:
            return None
        product = self.vectors[rows] @ self.vectors_of(lines).T
        heads = [self.head_row.get(line.id, self.vector_row[line.id]) for line in lines]
        product = np.maximum(product, self.vectors[rows] @ self.vectors[heads].T)
        return np.round(np.clip(product, -1.0, 1.0), SIMILARITY_DECIMALS)

    def vectors_of(self, rulings: list[Ruling]) -> np.ndarray:
        """The rulings' embeddings, one row each, in their order."""
        return self.vectors[[self.vector_row[r.id] for r in rulings]]

    @cached_property
    def documents(self) -> dict[str, list[Ruling]]:
        by_doc: dict[str, list[Ruling]] = defaultdict(list)
        for item in self.rulings:
            by_doc[item.doc].append(item)
        for members in by_doc.values():
            members.sort(key=lambda r: r.position)
        return dict(by_doc)

    @cached_property
    def by_id(self) -> dict[str, Ruling]:
        return {r.id: r for r in self.rulings}

    @cached_property
    def sources_of(self) -> dict[str, list[Ruling]]:
        """Each document's sources, in order (none for a translation)."""
        return {
            doc: [m for m in members if self.is_source(m)]
            for doc, members in self.documents.items()
        }

    @cached_property
    def source_position(self) -> dict[str, int]:
        """Each source's place among its document's sources."""
        return {m.id: i for members in self.sources_of.values() for i, m in enumerate(members)}

    @cached_property
    def largest_square_norm(self) -> float:
        """The largest squared length of a vector (1.0 for unit vectors)."""
        return float(np.max(np.einsum("ij,ij->i", self.vectors, self.vectors), initial=0.0))

    def is_source(self, ruling: Ruling) -> bool:
        """A source: a source-language unit of a source document (English left inside a
        translation is untranslated text, never a source)."""
        return ruling.lang == self.source_lang and is_source_document(ruling)

    def is_target(self, ruling: Ruling) -> bool:
        """A translation: a unit of a translated document in a language other than the
        source language."""
        return (
            ruling.lang is not None
            and ruling.lang != self.source_lang
            and is_translation_document(ruling)
        )

    def is_stray(self, ruling: Ruling) -> bool:
        """A source-language unit inside a translated document: text left untranslated."""
        return ruling.lang == self.source_lang and is_translation_document(ruling)
