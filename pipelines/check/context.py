"""What every check can see: the rulings, the aligned pairs, the termbase and card index."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from ..allowlists import AllowList
from ..bounded import BoundedMemo
from ..cards import CardIndex
from ..catalogue import Code
from ..checklists import Checklist
from ..model import Alignment, Ruling
from ..resources import read_tsv
from ..tables import CorpusDigests
from ..termbase import USABLE, Termbase, TermHit
from ..text.card_text import REMINDER_TEXT, is_card_text
from ..thresholds import Threshold
from ..vocabulary import TRANSLATION_METHODS, DocKind, Method
from .lexicon import translator_notes
from .names import Names, name_spans
from .references import (
    Citation,
    RuleTopics,
    fitting_additions,
    miscited,
    rule_titles,
    rule_topics,
)


@dataclass(slots=True)
class AlignedPair:
    """An English source ruling and the translation aligned with it (to read, not to change:
    not frozen only because a frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``, 0.27 s of the half a million pairs of a million units)."""

    source: Ruling
    target: Ruling
    alignment: Alignment
    merged: tuple[Ruling, ...] = ()
    """Other English lines the translated line says as well (a printed card that runs two
    lines of its text into one: ``CheckContext.merged_sources``), in document order."""
    _source_text: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def source_text(self) -> str:
        """The source text a translation's content is compared with: a card's text line whose
        translation has no reminder text is compared without the source's reminder text
        (printed cards often leave it out, Oracle text often has it), one that gives fewer
        reminder sentences with the ones it matches (``_reminders_cut``), together with the
        lines merged into the translation. Worked out on first use (a rerun checks the
        pairs of the changed documents only) and kept: checks read it many times per pair."""
        text = self._source_text
        if text is None:
            lines = sorted([self.source, *self.merged], key=lambda r: r.position)
            reminded = sum(1 for line in lines if REMINDER_TEXT.search(line.text))
            every_reminder = len(REMINDER_TEXT.findall(self.target.text)) >= reminded
            text = " ".join(
                compared_source(line, self.target)
                if line is self.source or every_reminder
                else _head(line)
                for line in lines
            )
            self._source_text = text
        return text

    @property
    def lang(self) -> str:
        return self.target.lang or ""


def _head(line: Ruling) -> str:
    """A merged card line without its reminder text: a paragraph that says several lines
    and gives fewer reminders than they have leaves some out, which cannot be told apart
    (one that gives as many keeps them all)."""
    return REMINDER_TEXT.sub("", line.text).strip() or line.text


def compared_source(source: Ruling, target: Ruling) -> str:
    if not is_card_text(source):
        return source.text
    given = [s for m in REMINDER_TEXT.finditer(target.text) for s in _sentences(m.group())]
    if not given:
        return REMINDER_TEXT.sub("", source.text).strip() or source.text
    return _reminders_cut(source.text, given)


def _reminders_cut(text: str, given: list[str]) -> str:
    """A card line whose reminder text keeps only as many sentences as a printing gives
    (``given``): the ones whose symbols and numbers the printed sentences have. A printing
    that gives fewer reminder sentences than the Oracle text leaves some out: Treats to
    Share's "(Then exile this card. You may cast the creature later from exile.)" without
    the Food token's reminder Oracle appends, RAV's convoke reminder without the sentence
    ("Your creatures can help cast this spell.") Oracle put before it."""
    ours = [s for m in REMINDER_TEXT.finditer(text) for s in _sentences(m.group())]
    if len(ours) <= len(given):
        return text
    printed = Counter(NOTATION.findall(" ".join(given)))

    def fit(index: int) -> tuple[int, int]:
        found = Counter(NOTATION.findall(ours[index]))
        return (sum((found & printed).values()) - sum((found - printed).values()), -index)

    kept = set(sorted(range(len(ours)), key=fit, reverse=True)[: len(given)])
    sentence = iter(range(len(ours)))

    def cut(match: re.Match[str]) -> str:
        parts = [p for p in _sentences(match.group()) if next(sentence) in kept]
        if not parts:
            return ""
        opening = match.group()[: len(match.group()) - len(match.group().lstrip())]
        return f"{opening}({' '.join(parts)})"

    return REMINDER_TEXT.sub(cut, text).strip() or text


NOTATION = re.compile(r"\{[^{}\s]{1,8}\}|\d+")
"""What a reminder sentence is matched by across languages: its symbols and numbers."""
QUOTED = re.compile(r"[\"“「『][^\"”」』]*[\"”」』]")
SENTENCE_BREAK = re.compile(r"(?<=[.!?。！？])\s*")


def _sentences(reminder: str) -> list[str]:
    """The sentences of a reminder text, without its parentheses; a quoted ability counts
    as part of its sentence ("It's an artifact with \"{2}, {T}, Sacrifice this artifact: You
    gain 3 life.\"")."""
    inner = reminder.strip()[1:-1]
    masked = QUOTED.sub(lambda m: "_" * len(m.group()), inner)
    found, start = [], 0
    for match in SENTENCE_BREAK.finditer(masked):
        if match.start() > start and masked[start : match.start()].strip():
            found.append(inner[start : match.start()].strip())
        start = match.end()
    if inner[start:].strip():
        found.append(inner[start:].strip())
    return found


@dataclass
class CheckContext:
    rulings: list[Ruling]
    alignment: list[Alignment]
    termbase: Termbase
    cards: CardIndex
    source_lang: str = "en"
    digests: CorpusDigests | None = None
    """The digests of the rulings' lines in corpus.jsonl, when the run hands them over."""
    by_id: dict[str, Ruling] = field(init=False)
    cache: dict[str, Any] = field(default_factory=dict)
    """Per-run values that checks compute once (length ratios, similarity statistics)."""
    memo: BoundedMemo = field(default_factory=BoundedMemo)
    """Values per text or pair that checks read several times (to read, not to change);
    bounded, so a value read again after long is computed again."""
    thresholds: Mapping[str, float] = field(default_factory=dict)
    """The run's named thresholds that differ from their defaults (``thresholds.py``)."""
    checklist: Checklist = field(default_factory=Checklist)
    """The team's own rules (``checklists.py``), run with the built-in checks."""
    allow: AllowList = field(default_factory=AllowList)
    """Words that may stay in English, per language, and words never to flag."""
    pair_keys: dict[str, dict[tuple[str, str], str]] = field(default_factory=dict)
    """The pair keys (``registry.PairKey``) the run worked out, by name, then by the pair's
    source and target ids."""
    document_keys: dict[str, str] = field(default_factory=dict)
    """What the checks of each translated document read, in one digest, when the run keeps
    their findings (``Reads.document_digest``: its units, its alignment rows and every
    ruling of the documents they point into): what a report row made of one document stands
    on instead of digesting those again (``report/writers/xliff.py``)."""

    def __post_init__(self) -> None:
        self.by_id = {r.id: r for r in self.rulings}
        self._hits = BoundedMemo()
        self._concepts = BoundedMemo()
        self._named = BoundedMemo()

    def threshold(self, named: Threshold) -> float:
        """The run's value of a named threshold."""
        return named.of(self.thresholds)

    def allowed(self, text: str, lang: str) -> list[tuple[int, int]]:
        """The stretches of a text the allow lists let stay in English (once per text)."""
        if not self.allow:
            return []
        key = ("allowed", text, lang)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self.allow.spans(text, lang)
        return found

    def term_hits(self, text: str, lang: str) -> list[TermHit]:
        """The termbase's hits in a text, but those inside a longer name (a card name, a
        subtype, a name kept in English in brackets) or a translator's note; cached: the same
        text recurs on many cards."""
        key = (text, lang)
        hits = self._hits.get(key)
        if hits is None:
            hits = self.termbase.find(text, lang)
            if hits:
                spans = self.name_spans(text, lang) + translator_notes(text, lang)
                if spans:
                    names = Names(spans)
                    hits = [h for h in hits if not names.hold(h.start, h.end)]
            self._hits[key] = hits
        return hits

    def name_spans(self, text: str, lang: str) -> list[tuple[int, int]]:
        key = ("names", text, lang)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = name_spans(text, lang, self.cards, self.source_lang)
        return found

    def concept_counts(self, text: str, lang: str) -> Counter[str]:
        """How often each concept is named (in any form but a forbidden one)."""
        key = (text, lang)
        found = self._concepts.get(key)
        if found is None:
            found = self._concepts[key] = Counter(
                hit.concept for hit in self.term_hits(text, lang) if hit.status != "forbidden"
            )
        return found

    def named_concepts(self, text: str, lang: str) -> frozenset[str]:
        """The concepts a text names with a usable term, leaving out a word used in another
        sense ("turn it face down" names no turn; resources/other_senses.tsv)."""
        key = (text, lang)
        found = self._named.get(key)
        if found is None:
            senses = other_senses(lang)
            named = set()
            elsewhere: dict[str, list[tuple[int, int]]] = {}  # the other senses' stretches
            for hit in self.term_hits(text, lang):
                if hit.status not in USABLE or hit.concept in named:
                    continue
                pattern = senses.get(hit.concept)
                if pattern:
                    if hit.concept not in elsewhere:
                        elsewhere[hit.concept] = [m.span() for m in pattern.finditer(text)]
                    if any(s <= hit.start and hit.end <= e for s, e in elsewhere[hit.concept]):
                        continue
                named.add(hit.concept)
            found = self._named[key] = frozenset(named)
        return found

    @cached_property
    def team_codes(self) -> dict[str, Code]:
        """The catalogue rows of the team's checklist rules, by code."""
        return self.checklist.codes()

    @cached_property
    def pairs(self) -> list[AlignedPair]:
        merged = self.merged_sources
        return [
            AlignedPair(
                self.by_id[row.source_id],
                self.by_id[row.target_id],
                row,
                tuple(merged.get(row.target_id, ())),
            )
            for row in self.alignment
            if row.method in TRANSLATION_METHODS and row.source_id and row.target_id
        ]

    @cached_property
    def merged_sources(self) -> dict[str, list[Ruling]]:
        """Translated card lines that say English lines of their card's text besides the
        line they are paired with (target id -> those English lines, in document order):
        the alignment's ``merged`` rows (``align/merged_lines.py``)."""
        merged: dict[str, list[Ruling]] = defaultdict(list)
        for row in self.alignment:
            if row.method == Method.MERGED and row.source_id and row.target_id:
                merged[row.target_id].append(self.by_id[row.source_id])
        return {target: sorted(lines, key=lambda r: r.position) for target, lines in merged.items()}

    @cached_property
    def corpus_digests(self) -> CorpusDigests:
        """What the cache keys of the checks are made of (``tables.CorpusDigests``)."""
        return self.digests or CorpusDigests.of(self.rulings)

    @cached_property
    def documents(self) -> dict[str, list[Ruling]]:
        by_doc: dict[str, list[Ruling]] = defaultdict(list)
        for item in self.rulings:
            by_doc[item.doc].append(item)
        return dict(by_doc)

    @cached_property
    def document_heads(self) -> list[Ruling]:
        """The first unit of each document, documents in input order."""
        return [members[0] for members in self.documents.values()]

    @cached_property
    def rows_by_document(self) -> dict[str, list[Alignment]]:
        """The alignment rows of each document, in the alignment's order: a row with a
        translation under the translation's document, one without under its group (the
        English document)."""
        found: dict[str, list[Alignment]] = defaultdict(list)
        by_id = self.by_id
        for row in self.alignment:
            target = by_id.get(row.target_id) if row.target_id else None
            found[target.doc if target else row.group].append(row)
        return dict(found)

    @cached_property
    def in_source_language(self) -> list[Ruling]:
        """The rulings written in the source language, in any document."""
        return [r for r in self.rulings if r.lang == self.source_lang]

    @cached_property
    def translations(self) -> list[Ruling]:
        """Rulings of translated documents (whatever language their own text is in)."""
        return [r for r in self.rulings if r.doc_kind == DocKind.TRANSLATION]

    @cached_property
    def rule_titles(self) -> dict[str, dict[str, str]]:
        return rule_titles(self.rulings)

    @cached_property
    def rule_headings(self) -> dict[str, dict[str, str]]:
        """``rule_titles`` as written, for messages."""
        return rule_titles(self.rulings, as_written=True)

    @cached_property
    def rule_topics(self) -> dict[str, RuleTopics]:
        return rule_topics(self.rulings, self.source_lang)

    def miscitations(self, pair: AlignedPair) -> list[tuple[Citation, Citation]]:
        """Rules the source cites with the wrong number (the translation's is right)."""
        key = ("miscited", pair.source.id, pair.target.id)
        found = self.memo.get(key)
        if found is None:
            titles = self.rule_titles.get(pair.source.doc, {})
            topics = self.rule_topics.get(pair.source.doc, {})
            found = self.memo[key] = (
                miscited(pair.source, pair.target, titles, self.source_lang, pair.lang, topics)
                if titles or topics
                else []
            )
        return found

    def miscited_in_source(self, pair: AlignedPair) -> dict[str, Counter[str]]:
        """The numbers of those citations, by placeholder kind (a dotted reference such as
        702.62a) and as plain numbers (a section such as 726): neither side is told to
        change them by PH001 or NUM001."""
        miscited = self.miscitations(pair)
        if not miscited:
            return NOTHING_MISCITED
        found: dict[str, Counter[str]] = {"rule-reference": Counter(), "number": Counter()}
        for ours, theirs in miscited:
            kind = "rule-reference" if "." in ours.number else "number"
            found[kind].update([ours.number, theirs.number])
        return found

    def uncontested_citations(self, pair: AlignedPair) -> dict[str, Counter[str]]:
        """Rule numbers neither PH001 nor NUM001 asks a side to change, by placeholder kind (a
        dotted reference) and as plain numbers (a section): those the source cites wrongly
        (``miscited_in_source``) and the correct cross references the translation adds
        (``references.fitting_additions``)."""
        key = ("uncontested", pair.source.id, pair.target.id)
        found = self.memo.get(key)
        if found is None:
            topics = self.rule_topics.get(pair.source.doc, {})
            added = (
                fitting_additions(pair.source, pair.target, self.source_lang, pair.lang, topics)
                if topics
                else []
            )
            miscited = self.miscited_in_source(pair)
            if not added:
                found = miscited
            else:
                found = {kind: Counter(numbers) for kind, numbers in miscited.items()}
                for citation in added:
                    kind = "rule-reference" if "." in citation.number else "number"
                    found[kind][citation.number] += 1
            self.memo[key] = found
        return found

    @cached_property
    def translated_documents(self) -> list[list[Ruling]]:
        """The units of each translated document, documents in input order."""
        return [
            members
            for members in self.documents.values()
            if members[0].doc_kind == DocKind.TRANSLATION
        ]

    @cached_property
    def pairs_by_target(self) -> dict[str, AlignedPair]:
        return {pair.target.id: pair for pair in self.pairs}

    @cached_property
    def untranslated(self) -> dict[str, Alignment]:
        """Rows of source-language rulings standing in translations, by target id."""
        untranslated = Method.UNTRANSLATED
        return {
            row.target_id: row
            for row in self.alignment
            if row.method == untranslated and row.target_id
        }

    def is_card_name(self, text: str) -> bool:
        return bool(self.cards.lookup(text))


NOTHING_MISCITED: dict[str, Counter[str]] = {"rule-reference": Counter(), "number": Counter()}
"""``miscited_in_source`` of the pairs whose source cites no rule wrongly (to read only)."""


def spans_of(ruling: Ruling, lang: str) -> Iterator[tuple[int, int, str]]:
    for span in ruling.spans:
        if span["lang"] == lang:
            yield span["start"], span["end"], ruling.text[span["start"] : span["end"]]


@cache
def other_senses(lang: str) -> dict[str, re.Pattern[str]]:
    """Per concept, one pattern of the phrases where its word means something else."""
    patterns: dict[str, list[str]] = defaultdict(list)
    for row in read_tsv("other_senses.tsv"):
        if row["lang"] == lang:
            patterns[row["concept"]].append(row["pattern"])
    return {
        concept: re.compile("|".join(f"(?:{p})" for p in found), re.IGNORECASE)
        for concept, found in patterns.items()
    }
