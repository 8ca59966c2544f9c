"""Rule citations, and which side of a pair cites the wrong rule.

Rules text cites rules with their titles ("See rule 726, “Day and Night.”") or without ("If
a Magic subgame (see rule 724) is restarted", "See rule 111.10"). When a translation cites
another number than its source, the rules themselves settle who is right, looked up in the
rules document the source belongs to: the number whose heading is the quoted title, or else
the number whose rule is about what the citing sentence is about (its title, its section's
title and the start of its text share the sentence's words; the other number's share none
of them). A source that cites the rule the translation does not has the wrong number, and
the translation is right (reported on the source, SRC001, not on the translation).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache

from ..model import Ruling
from ..resources import read_tsv

TITLE_MAX_CHARS = 80
TITLED_RULE = re.compile(r"\d{3}\.\d+")
"""A rule numbered without a letter (702.19) whose text is a title (Trample)."""
SENTENCE_END = re.compile(r"[.。!！?？]$")


@dataclass(frozen=True, slots=True)
class Citation:
    number: str
    title: str
    start: int
    end: int


@cache
def _patterns(lang: str, kind: str) -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(row["pattern"], re.IGNORECASE)
        for row in read_tsv("references.tsv")
        if row["lang"] == lang and row["kind"] == kind
    )


def citations(text: str, lang: str) -> list[Citation]:
    """The rules a text cites with their titles."""
    return [
        Citation(m["number"], m["title"], m.start("number"), m.end("number"))
        for pattern in _patterns(lang.split("-")[0], "titled")
        for m in pattern.finditer(text)
    ]


def plain_citations(text: str, lang: str) -> list[Citation]:
    """Every rule a text cites (with a title or not), in order: a rule number after "rule"
    (规则), and any dotted rule reference (702.62a). The titled ones keep their title."""
    found = {c.start: c for c in citations(text, lang)}
    for pattern in _patterns(lang.split("-")[0], "plain"):
        for m in pattern.finditer(text):
            start = m.start("number")
            found.setdefault(start, Citation(m["number"], "", start, m.end("number")))
    return [found[start] for start in sorted(found)]


def title_key(title: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", title).casefold().split())


def rule_titles(rulings: list[Ruling], *, as_written: bool = False) -> dict[str, dict[str, str]]:
    """Per rules document, section number -> its title (a section heading, or a rule whose
    text is a short title such as ``702.19. Trample``), as ``title_key`` reads it or (with
    ``as_written``) as written."""
    titles: dict[str, dict[str, str]] = defaultdict(dict)
    for ruling in rulings:
        if not ruling.section or len(ruling.text) > TITLE_MAX_CHARS:
            continue
        titled_rule = (
            ruling.kind == "rule"
            and TITLED_RULE.fullmatch(ruling.section)
            and not SENTENCE_END.search(ruling.text)
        )
        if ruling.kind == "heading" or titled_rule:
            title = ruling.text.strip() if as_written else title_key(ruling.text)
            titles[ruling.doc].setdefault(ruling.section, title)
    return dict(titles)


def same_title(heading: str | None, quoted: str) -> bool:
    """Whether a quoted title names a heading (citations may quote the start of a title:
    "Free-for-All" for Free-for-All Variant)."""
    return bool(heading) and (heading == quoted or heading.startswith(quoted + " "))


def miscited(
    source: Ruling,
    target: Ruling,
    titles: dict[str, str],
    source_lang: str,
    lang: str,
    topics: Mapping[str, frozenset[str]] | None = None,
) -> list[tuple[Citation, Citation]]:
    """(source citation, translation citation) pairs where the source's number is wrong:
    the title it quotes is the title of the rule the translation cites, or (``topics``: each
    rule's words, ``rule_topics``) the rule the translation cites is about what the citing
    sentence is about and the source's is not."""
    theirs = plain_citations(target.text, lang)
    if not theirs:
        return []
    ours = plain_citations(source.text, source_lang)
    their_numbers = {c.number for c in theirs}
    our_numbers = {c.number for c in ours}
    unmatched = [c for c in theirs if c.number not in our_numbers]
    found = []
    for citation in ours:
        if citation.number in their_numbers or not unmatched:
            continue
        if citation.title:
            quoted = title_key(citation.title)
            if titles.get(citation.number) is None or same_title(titles[citation.number], quoted):
                continue
            right = next((c for c in unmatched if same_title(titles.get(c.number), quoted)), None)
        else:
            right = _about_the_sentence(source.text, citation, unmatched, topics or {})
        if right is not None:
            unmatched.remove(right)
            found.append((citation, right))
    return found


def fitting_additions(
    source: Ruling,
    target: Ruling,
    source_lang: str,
    lang: str,
    topics: Mapping[str, frozenset[str]],
) -> list[Citation]:
    """The rules a translation cites that its source does not, where the addition is a
    correct cross reference: the cited rule exists in the source's rules and is about what
    the source's text is about (their words meet: "参见规则310，“战役”" beside a rule on
    battles), and the translation keeps every citation of the same kind the source has (a
    changed number is not an addition). A rule citing itself is no cross reference."""
    theirs = plain_citations(target.text, lang)
    if not theirs:
        return []
    ours = {c.number for c in plain_citations(source.text, source_lang)}
    kept = {c.number for c in theirs}
    lost_kinds = {"." in number for number in ours - kept}
    words = topic_words(source.text)
    return [
        c
        for c in theirs
        if c.number not in ours
        and c.number != source.section
        and ("." in c.number) not in lost_kinds
        and c.number in topics
        and words & topics[c.number]
    ]


def _about_the_sentence(
    text: str, ours: Citation, theirs: list[Citation], topics: Mapping[str, frozenset[str]]
) -> Citation | None:
    """The one translation citation, of the same kind as the source's (a section or a dotted
    rule), whose rule is about what the citation is about while the source's rule is not:
    the words right before the citation ("If a Magic subgame (see rule 724)": 724 is
    Restarting the Game, the translation's 726 Subgames), else the whole sentence's ("The
    effect that restarts the game … (see rule 723)": 723 is The Initiative). A cited rule
    the source's rules do not have at all is about nothing."""
    same_kind = [c for c in theirs if ("." in c.number) == ("." in ours.number)]
    if len(same_kind) != 1 or same_kind[0].number not in topics:
        return None
    right, wrong = topics[same_kind[0].number], topics.get(ours.number, frozenset())
    for words in (topic_words(_just_before(text, ours.start)), topic_words(text)):
        if words & right and not words & wrong:
            return same_kind[0]
        if words & wrong:
            return None
    return None


JUST_BEFORE_WORDS = 6
CITING = re.compile(r"(?:\(\s*)?(?:see\s+)?(?:rules?\s+)?$", re.IGNORECASE)


def _just_before(text: str, start: int) -> str:
    """The few words before a citation, "(see rule" and the clause's start aside."""
    before = CITING.sub("", text[:start])
    clause = re.split(r"[.;:]\s", before)[-1]
    return " ".join(clause.split()[-JUST_BEFORE_WORDS:])


WORDS = re.compile(r"[A-Za-z]{4,}")
TOPIC_TEXT_WORDS = 30


@cache
def _stop_words() -> frozenset[str]:
    return frozenset(row["word"] for row in read_tsv("citation_stop_words.tsv"))


def topic_words(text: str) -> frozenset[str]:
    """The content words of an English text, crudely stemmed (``_stem``), leaving out rule
    numbers and the words every rule uses (citation_stop_words.tsv)."""
    stops = _stop_words()
    found = set()
    for word in WORDS.findall(text):
        word = word.casefold()
        if word not in stops:
            found.add(_stem(word))
    return frozenset(found)


def _stem(word: str) -> str:
    """A crude English stem: "subgames" and "subgame", "restarted", "restarts" and
    "restarting" each the same."""
    for ending, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(ending) and len(word) - len(ending) >= 4 and not word.endswith("ss"):
            return word[: -len(ending)] + keep
    return word


def rule_topics(rulings: list[Ruling], source_lang: str) -> dict[str, RuleTopics]:
    """Per source-language rules document, rule number -> the words of what the rule is about:
    its own title or first words (``TOPIC_TEXT_WORDS``), and its section's title."""
    texts: dict[str, dict[str, str]] = defaultdict(dict)
    for ruling in rulings:
        if ruling.section and ruling.lang == source_lang and ruling.kind in ("rule", "heading"):
            head = " ".join(ruling.text.split()[:TOPIC_TEXT_WORDS])
            texts[ruling.doc].setdefault(ruling.section, head)
    return {doc: RuleTopics(by_number) for doc, by_number in texts.items()}


class RuleTopics(Mapping[str, frozenset[str]]):
    """One rules document's rule number -> topic words, each worked out when first asked
    for: a run asks for the few numbers translations cite, of thousands of rules."""

    def __init__(self, heads: dict[str, str]) -> None:
        self._heads = heads
        self._words: dict[str, frozenset[str]] = {}

    def __getitem__(self, number: str) -> frozenset[str]:
        found = self._words.get(number)
        if found is None:
            head = self._heads[number]
            section = self._heads.get(number.split(".")[0], "")
            found = self._words[number] = topic_words(f"{head} {section}")
        return found

    def __contains__(self, number: object) -> bool:
        return number in self._heads

    def __iter__(self) -> Iterator[str]:
        return iter(self._heads)

    def __len__(self) -> int:
        return len(self._heads)
