"""Which English document a translated card document translates, before any of its lines
are aligned.

A document whose card is known (its title names it) is paired with its card's English. The
others, a new set's cards that no card data names yet, are paired by place where the team's
folders mirror each other (``es/DOM/opt.txt`` translates ``DOM/opt.txt``), else by content:
every such translated document of a language against every English card document that no
translation of that language claims by card, scored by what a translation keeps of its
source (the meaning of its lines, its symbols and numbers, its number of lines), and
assigned one to one, best pairs first. A pair is kept only when it is clearly the
document's best: a translated document with no such English document stays unpaired, and
its lines are matched only with texts that many cards share (``card_rulings``), never with
a look-alike line of another card.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from ..model import Ruling
from ..tables import CorpusDigests
from ..text.tokens import token_counts
from ..work import Cache, Job, keep, look_up, no_cache
from ..work import kind as unit_kind
from .context import (
    AlignContext,
    is_rules_unit,
    is_source_document,
    is_translation_document,
    similarity_block,
)
from .margin import neighbourhood

CANDIDATES = 12
"""English documents scored in full per translated document: the nearest by the mean of
their lines' embeddings (a whole document's meaning), and those holding one of the
``NEAREST_LINES`` nearest English lines of one of its lines (a keyword line with reminder
text weighs on the mean, not on its own nearest lines)."""
NEAREST_LINES = 3
MIN_SCORE = -0.05
"""A pair is likely right from this score up (``score``)."""
MIN_MARGIN = 0.02
"""How far a pair's score must stand above the document's next best English document (or
the English document's next best translation): two cards whose texts differ only in their
names and colours are told apart by their symbols, or not at all."""
MEANING_WEIGHT = 1.0
SYMBOL_WEIGHT = 0.5
LINES_WEIGHT = 0.15
DIGITS = re.compile(r"(?<![\d{/+-])\d+(?![\d}/])")


@dataclass(frozen=True, slots=True)
class Paired:
    """A translated document's English document, found by content, with its score and the
    margin over the next best candidate."""

    english: str
    score: float
    margin: float


PAIRED_BY_CONTENT = unit_kind(
    "align-pairing",
    "languages' documents paired by content",
    dict[str, Paired],
    version="1",
    share=False,
)
"""The English documents the translated documents of a language that need one were given by
content (``_assign``), keyed by those documents and the English documents left to them:
every one of them scored against every candidate each run took 2.9 s of an edited
million-unit run's alignment (``benchmarks/results/work_layer.md``)."""


def is_card_document(members: list[Ruling]) -> bool:
    """A document of card rulings or card text (not rules, not a bilingual file's units)."""
    return not any(is_rules_unit(m) or m.counterpart for m in members)


def pair_by_content(
    ctx: AlignContext,
    has_own: set[str],
    work: Cache | None = None,
    digests: CorpusDigests | None = None,
    options: tuple[str, ...] = (),
) -> dict[str, Paired]:
    """The English document of each translated card document whose card has no English in
    the input (``has_own``: the translated documents that do), per language, one to one. A
    document of a card the card data knows is paired only with an English document of a
    card it does not know (a title it cannot read): another known card's English is that
    card's, however alike the texts (two cards with the same suspend rulings). ``work``
    keeps each language's pairs by content (``PAIRED_BY_CONTENT``; ``digests``: the rulings'
    line digests, ``options``: what else the vectors are made with)."""
    english = {
        doc: [m for m in members if ctx.is_source(m)]
        for doc, members in ctx.documents.items()
        if is_source_document(members[0]) and is_card_document(members)
    }
    english = {doc: units for doc, units in english.items() if units}
    claimed: dict[str, set[str]] = defaultdict(set)  # language -> English documents by card
    english_of_card: dict[str, list[str]] = defaultdict(list)
    for doc, units in english.items():
        if units[0].card:
            english_of_card[units[0].card].append(doc)
    by_lang: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for doc, members in ctx.documents.items():
        if not is_translation_document(members[0]) or not is_card_document(members):
            continue
        lang = members[0].doc_lang or ""
        if doc in has_own:
            claimed[lang].update(english_of_card.get(members[0].card or "", ()))
        elif any(ctx.is_target(m) for m in members):
            by_lang[lang, members[0].card is not None].append(doc)
    found: dict[str, Paired] = {}
    for (lang, known), docs in sorted(by_lang.items()):
        free = sorted(
            doc
            for doc in english
            if doc not in claimed[lang] and not (known and english[doc][0].card)
        )
        placed = by_place(sorted(docs), free)
        found.update(placed)
        taken = {p.english for p in placed.values()}
        rest = [doc for doc in sorted(docs) if doc not in placed]
        left = [doc for doc in free if doc not in taken]
        found.update(_assigned(ctx, rest, left, english, work or no_cache(), digests, options))
    return found


def _assigned(
    ctx: AlignContext,
    docs: list[str],
    free: list[str],
    english: dict[str, list[Ruling]],
    work: Cache,
    digests: CorpusDigests | None,
    options: tuple[str, ...],
) -> dict[str, Paired]:
    """``_assign``, kept in ``work`` under the documents and the English documents left to
    them, each named with the digest of its units' lines."""
    if not docs or not free:
        return {}
    key = None
    if work.keeps and digests is not None:
        named = [part for doc in docs + free for part in (doc, digests.digest(ctx.documents[doc]))]
        key = work.key(PAIRED_BY_CONTENT, [*options, str(len(docs)), *named])
    job = Job(PAIRED_BY_CONTENT, [key])
    [kept] = look_up(job, work)
    if kept is not None:
        return kept
    found = _assign(ctx, docs, free, english)
    keep(job, work, {0: found})
    return found


PLACE_SCORE = 1.0
"""The score of a pair by place (``Paired.score``): sure, however its texts differ."""


def by_place(docs: list[str], free: list[str]) -> dict[str, Paired]:
    """Translated and English documents in the same place of parallel folders (``es/DOM/opt.txt``
    and ``en/DOM/opt.txt``; a folder named for a language aside): a team that mirrors its
    folders says which document translates which, whatever the texts say. Only places that
    one document of each side holds."""
    english_at: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for doc in free:
        english_at[place(doc)].append(doc)
    translated_at: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for doc in docs:
        translated_at[place(doc)].append(doc)
    return {
        found[0]: Paired(english_at[at][0], PLACE_SCORE, PLACE_SCORE)
        for at, found in translated_at.items()
        if len(found) == 1 and len(english_at.get(at, ())) == 1
    }


LANGUAGE_FOLDER = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?$")


def place(doc: str) -> tuple[str, ...]:
    """A document's file, as its folders place it: the file name and its folder, folders
    named for a language (es, zh-Hans, en_US) left out."""
    parts = [p for p in doc.split("#")[0].replace("\\", "/").split("/") if p]
    kept = [p for p in parts[:-1] if not LANGUAGE_FOLDER.match(p)] + parts[-1:]
    return tuple(kept[-2:])


def _assign(
    ctx: AlignContext, docs: list[str], free: list[str], english: dict[str, list[Ruling]]
) -> dict[str, Paired]:
    """Best pairs first: a pair is taken when both are still free and its score stands
    ``MIN_MARGIN`` above every other pair either could still make (an English document
    already taken by a better pair is no rival).

    English documents that say the same thing but for their own card's name (a card
    reprinted in two sets; Cut and Electrify, "deals 4 damage to target creature") are one
    candidate, which takes as many translations as it has documents: nothing tells their
    translations apart, and either pairing compares the same texts. Each translation gets
    the document of the group in its own place (the same path under its folder), else the
    first one left."""
    if not docs or not free:
        return {}
    targets = {doc: [m for m in ctx.documents[doc] if ctx.is_target(m)] for doc in docs}
    by_text: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for doc in free:
        by_text[_own_name_masked(english[doc])].append(doc)
    groups = list(by_text.values())
    lines = Neighbourhoods.of(ctx, [u for d in docs for u in targets[d]], english, groups)
    centroids_t = _centroids(ctx, [targets[d] for d in docs])
    centroids_e = _centroids(ctx, [english[g[0]] for g in groups])
    nearest = similarity_block(centroids_t, centroids_e)
    wanted = min(CANDIDATES, len(groups))
    group_of = {group[0]: j for j, group in enumerate(groups)}
    scored: dict[tuple[int, int], float] = {}
    for i, doc in enumerate(docs):
        top = set(np.argsort(-nearest[i], kind="stable")[:wanted].tolist())
        for j in sorted(top | lines.candidates(targets[doc], group_of)):
            scored[i, j] = score(ctx, targets[doc], english[groups[j][0]], lines)
    rivals_of_doc: dict[int, dict[int, float]] = defaultdict(dict)
    rivals_of_group: dict[int, dict[int, float]] = defaultdict(dict)
    for (i, j), value in scored.items():
        rivals_of_doc[i][j] = value
        rivals_of_group[j][i] = value
    taken_docs: set[int] = set()
    left = {j: list(group) for j, group in enumerate(groups)}
    found: dict[str, Paired] = {}
    for (i, j), value in sorted(scored.items(), key=lambda item: (-item[1], item[0])):
        if i in taken_docs or not left[j] or value < MIN_SCORE:
            continue
        rival = max(
            [v for k, v in rivals_of_doc[i].items() if k != j and left[k]]
            + (
                [v for k, v in rivals_of_group[j].items() if k != i and k not in taken_docs]
                if len(left[j]) == 1
                else []
            ),
            default=0.0,
        )
        if value - rival < MIN_MARGIN:
            continue
        taken_docs.add(i)
        chosen = _in_place(docs[i], left[j])
        left[j].remove(chosen)
        found[docs[i]] = Paired(chosen, round(value, 4), round(value - rival, 4))
    return found


def _own_name_masked(units: list[Ruling]) -> tuple[str, ...]:
    """A document's texts with its own title (its card's name) masked, case folded."""
    title = units[0].doc_title or ""
    return tuple((u.text.replace(title, "\x00") if title else u.text).casefold() for u in units)


def _in_place(doc: str, candidates: list[str]) -> str:
    """Of interchangeable English documents, the one in the translation's place (the same
    file name in a folder of the same name: ``es/DOM/opt.txt`` and ``DOM/opt.txt``), else
    the first."""
    at = place(doc)
    return next((c for c in candidates if place(c) == at), candidates[0])


def _centroids(ctx: AlignContext, groups: list[list[Ruling]]) -> np.ndarray:
    vectors = np.stack([ctx.vectors_of(units).mean(axis=0) for units in groups])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


BLOCK_CELLS = 1 << 23


@dataclass
class Neighbourhoods:
    """Each line's neighbourhood: the mean of its ``NEIGHBOURS`` highest similarities with the
    other side's lines (every translated line of the language against every candidate
    English line). A line that resembles many (a reminder text printed on a dozen cards)
    has a high one, so only what stands out from it counts (``score``)."""

    of_line: dict[str, float]
    nearest: dict[str, list[int]]
    """Each translated line's ``NEAREST_LINES`` nearest English lines (indices into
    ``sources``, all the groups' lines in order)."""
    sources: list[Ruling]

    @classmethod
    def of(
        cls,
        ctx: AlignContext,
        translated: list[Ruling],
        english: dict[str, list[Ruling]],
        groups: list[list[str]],
    ) -> Neighbourhoods:
        sources = [u for group in groups for u in english[group[0]]]
        found: dict[str, float] = {}
        nearest: dict[str, list[int]] = {}
        for left, right in ((translated, sources), (sources, translated)):
            rows = max(1, BLOCK_CELLS // max(1, len(right)))
            right_vectors = ctx.vectors_of(right)
            wanted = min(NEAREST_LINES, len(right))
            for start in range(0, len(left), rows):
                part = left[start : start + rows]
                block = similarity_block(ctx.vectors_of(part), right_vectors)
                means = neighbourhood(block, axis=1)
                for unit, value in zip(part, means.tolist(), strict=True):
                    found[unit.id] = value
                if left is translated and wanted:
                    top = np.argsort(-block, axis=1, kind="stable")[:, :wanted]
                    for unit, columns in zip(part, top.tolist(), strict=True):
                        nearest[unit.id] = columns
        return cls(found, nearest, sources)

    def candidates(self, units: list[Ruling], group_of: dict[str, int]) -> set[int]:
        """The groups (indices) whose documents hold a nearest English line of a unit."""
        return {group_of[self.sources[k].doc] for u in units for k in self.nearest.get(u.id, ())}

    def around(self, units: list[Ruling]) -> np.ndarray:
        return np.array([self.of_line[u.id] for u in units], dtype=np.float32)


def score(
    ctx: AlignContext, targets: list[Ruling], sources: list[Ruling], lines: Neighbourhoods
) -> float:
    """How well a translated document's lines and an English document's go together: for
    each line, its best counterpart's similarity above the two lines' neighbourhoods
    (``Neighbourhoods``), averaged both ways; plus the share of symbols and numbers they
    have in common, less a penalty for different numbers of lines."""
    similarity = ctx.matrix(sources, targets)
    margins = similarity - (lines.around(sources)[:, None] + lines.around(targets)[None, :]) / 2
    meaning = (float(margins.max(axis=0).mean()) + float(margins.max(axis=1).mean())) / 2
    mine, theirs = _marks(targets), _marks(sources)
    union = sum((mine | theirs).values())
    symbols = sum((mine & theirs).values()) / union if union else 0.0
    lines_share = min(len(targets), len(sources)) / max(len(targets), len(sources))
    return MEANING_WEIGHT * meaning + SYMBOL_WEIGHT * symbols - LINES_WEIGHT * (1 - lines_share)


def _marks(units: list[Ruling]) -> Counter[str]:
    """The symbols, power/toughness changes and numbers of a document (copied, never
    translated)."""
    found: Counter[str] = Counter()
    for unit in units:
        for kind, counts in token_counts(unit.text).items():
            for token, n in counts.items():
                found[f"{kind}:{token}"] += n
        found.update(f"n:{n}" for n in DIGITS.findall(unit.text))
    return found
