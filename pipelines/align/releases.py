"""Releases of a rules document: which units of an older English release the current one
kept, reworded, removed or added, and what that means for a translation of the older one.

Both releases are English, so most units are found again by their exact text (wherever the
renumbering moved them); the rest by rule number and wording, then by wording near where
their neighbours went. What is left is removed (older only) or new (current only).

A translation keeps its pairs with the release it translates (its quality is judged against
the English it had); a pair whose English was reworded is marked ``superseded_by`` the
current unit, a pair whose English was removed is marked removed, and the current release's
new units become missing translations. Units missing from the translation whose English was
removed are no longer missing.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field

from ..model import Alignment, Ruling
from ..text import plain_quotes
from ..vocabulary import Method, Release
from .context import AlignContext, is_rules_unit, is_source_document
from .ordered_documents import unit_keys

SAME_NUMBER_WORDS = 0.4
SAME_NUMBER_SIMILARITY = 0.8
"""A unit of the older release and the current unit with the same rule number are one rule
reworded when they share this share of their words in order, or are this close in meaning
(rule 702.xx rewritten around the same idea). Below both, the number was reused for
another rule."""
MOVED_WORDS = 0.6
"""A unit that also changed its number must share this share of its words with the current
unit (found between the current units its neighbours went to)."""
CONTAINED_MIN_WORDS = 8
CONTAINED_WEIGHT = 0.9
SAME_NUMBER_BONUS = 0.05
WINDOW = 60
"""A unit is compared with this many current units after the one its previous paired
neighbour went to and before the one its next went to (the two may cross when a section
moved)."""
SAME_RULES = 0.3
"""Two English rules documents are releases of one text when this share of the smaller's
numbered units have a rule number the other has too."""
SPACES = re.compile(r"\s+")
WORD = re.compile(r"\w+|[^\w\s]")


def text_key(text: str) -> str:
    """The text as compared across releases: quotes, widths and spacing made plain."""
    return SPACES.sub(" ", plain_quotes(unicodedata.normalize("NFKC", text))).strip().casefold()


def word_share(old: str, new: str) -> float:
    """How much of two texts' words (and punctuation) are the same, in order (0 to 1); a
    text found almost whole inside the other (a rule merged into a longer one, or cut
    down) counts nearly as much as the same text."""
    a, b = WORD.findall(old), WORD.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, False)
    shorter = min(len(a), len(b))
    if shorter < CONTAINED_MIN_WORDS:
        return matcher.ratio()
    same = sum(block.size for block in matcher.get_matching_blocks())
    return max(matcher.ratio(), CONTAINED_WEIGHT * same / shorter)


@dataclass
class ReleaseMatch:
    """How the units of an older release map onto the current one."""

    older: str
    current: str
    older_version: str | None
    current_version: str | None
    current_of: dict[str, str] = field(default_factory=dict)
    """Older unit id -> the current unit it became (same or reworded text)."""
    reworded: set[str] = field(default_factory=set)
    """Older unit ids whose text changed."""
    removed: set[str] = field(default_factory=set)
    new: list[str] = field(default_factory=list)
    """Current unit ids that no older unit became, in document order."""


def match_releases(ctx: AlignContext, older: list[Ruling], current: list[Ruling]) -> ReleaseMatch:
    """Pair the units of two releases of one English rules document (both in order)."""
    pairs: dict[int, int] = {}
    old_keys = [text_key(r.text) for r in older]
    new_keys = [text_key(r.text) for r in current]
    numbered = unit_keys(older), unit_keys(current)
    _same_text_same_number(numbered, old_keys, new_keys, pairs)
    _same_text(older, current, old_keys, new_keys, pairs)
    _reworded(ctx, older, current, numbered, old_keys, new_keys, pairs)
    match = ReleaseMatch(older[0].doc, current[0].doc, older[0].doc_version, current[0].doc_version)
    for i, j in sorted(pairs.items()):
        match.current_of[older[i].id] = current[j].id
        if old_keys[i] != new_keys[j]:
            match.reworded.add(older[i].id)
    match.removed = {r.id for i, r in enumerate(older) if i not in pairs}
    taken = set(pairs.values())
    match.new = [r.id for j, r in enumerate(current) if j not in taken]
    return match


def _same_text_same_number(numbered, old_keys, new_keys, pairs) -> None:
    old_numbered, new_numbered = numbered
    for key in sorted(old_numbered.keys() & new_numbered.keys()):
        i, j = old_numbered[key], new_numbered[key]
        if old_keys[i] == new_keys[j]:
            pairs[i] = j


def _same_text(older, current, old_keys, new_keys, pairs) -> None:
    """Units with the same kind and text, paired in order (a renumbered rule)."""
    taken = set(pairs.values())
    waiting: dict[tuple, list[int]] = defaultdict(list)
    for j, item in enumerate(current):
        if j not in taken:
            waiting[(item.kind, new_keys[j])].append(j)
    for i, item in enumerate(older):
        if i in pairs:
            continue
        candidates = waiting.get((item.kind, old_keys[i]))
        if candidates:
            pairs[i] = candidates.pop(0)


def _reworded(ctx, older, current, numbered, old_keys, new_keys, pairs) -> None:
    """Units left that were reworded (and perhaps renumbered). Each older unit is compared
    with the current units of its kind left between the current units its paired
    neighbours went to; the pairs are taken best first (word share, a little more for the
    same rule number), so that of two rules written from one template (the hand and life
    modifiers of 210.1 and 211.1) each finds its own."""
    old_numbers = {i: key for key, i in numbered[0].items()}
    numbers = {j: key for key, j in numbered[1].items()}
    anchors = sorted(pairs.items())
    old_positions = [i for i, _ in anchors]
    taken = set(pairs.values())
    candidates = []
    for i, item in enumerate(older):
        if i in pairs:
            continue
        before = bisect_left(old_positions, i) - 1
        after = bisect_right(old_positions, i)
        low = anchors[before][1] if before >= 0 else -1
        high = anchors[after][1] if after < len(anchors) else len(current)
        near = sorted({*range(low + 1, low + 1 + WINDOW), *range(high - WINDOW, high)})
        for j in near:
            if not 0 <= j < len(current) or j in taken or current[j].kind != item.kind:
                continue
            same_number = i in old_numbers and old_numbers[i] == numbers.get(j)
            candidates.append((word_share(old_keys[i], new_keys[j]), same_number, i, j))
    same = [(i, j) for _, same_number, i, j in candidates if same_number]
    similarity = ctx.pairwise([older[i] for i, _ in same], [current[j] for _, j in same])
    close = {pair for k, pair in enumerate(same) if similarity[k] >= SAME_NUMBER_SIMILARITY}
    scored = sorted(
        (
            (share + SAME_NUMBER_BONUS * same_number, i, j)
            for share, same_number, i, j in candidates
            if share >= MOVED_WORDS
            or (same_number and (share >= SAME_NUMBER_WORDS or (i, j) in close))
        ),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    for _, i, j in scored:
        if i not in pairs and j not in taken:
            pairs[i] = j
            taken.add(j)


@dataclass
class Releases:
    """The English rules documents grouped as releases of one text, newest last."""

    families: list[list[str]]
    documents: dict[str, list[Ruling]]
    _matches: dict[tuple[str, str], ReleaseMatch] = field(default_factory=dict)

    @classmethod
    def build(cls, ctx: AlignContext) -> Releases:
        rules = {
            doc: members
            for doc, members in sorted(ctx.documents.items())
            if is_source_document(members[0])
            and members[0].doc_version
            and any(is_rules_unit(m) for m in members)
        }
        families: list[list[str]] = []
        for doc in sorted(rules, key=lambda d: (rules[d][0].doc_version, d)):
            keys = set(unit_keys(rules[doc]))
            for family in families:
                other = set(unit_keys(rules[family[-1]]))
                if keys and other and len(keys & other) >= SAME_RULES * min(len(keys), len(other)):
                    family.append(doc)
                    break
            else:
                families.append([doc])
        return cls([f for f in families if len(f) > 1], rules)

    def current(self, doc: str) -> str | None:
        """The newest release of the text ``doc`` is a release of, when that is another."""
        for family in self.families:
            if doc in family and family[-1] != doc:
                return family[-1]
        return None

    def match(self, ctx: AlignContext, older: str, current: str) -> ReleaseMatch:
        if (older, current) not in self._matches:
            self._matches[(older, current)] = match_releases(
                ctx, self.documents[older], self.documents[current]
            )
        return self._matches[(older, current)]


def update_to_current(ctx: AlignContext, rows: list[Alignment], releases: Releases) -> None:
    """Rows of translations of an older release, told what the current release did to
    their English (in place; rows that became pointless are dropped, new ones added)."""
    by_group: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        if row.group in releases.documents:
            by_group[row.group].append(index)
    dropped: set[int] = set()
    added: list[Alignment] = []
    for older, indices in sorted(by_group.items()):
        current = releases.current(older)
        if current is None:
            continue
        match = releases.match(ctx, older, current)
        by_lang: dict[str | None, list[int]] = defaultdict(list)
        for index in indices:
            by_lang[rows[index].lang].append(index)
        for lang, members in sorted(by_lang.items(), key=lambda kv: kv[0] or ""):
            dropped |= _mark(rows, members, match)
            added.extend(_new_units(ctx, rows, members, match, lang, older))
    rows[:] = [row for index, row in enumerate(rows) if index not in dropped] + added


def _mark(rows: list[Alignment], members: list[int], match: ReleaseMatch) -> set[int]:
    dropped = set()
    for index in members:
        row = rows[index]
        if row.source_id is None:
            continue
        if row.source_id in match.removed:
            if row.target_id is None:
                dropped.add(index)
            else:
                row.release = str(Release.REMOVED)
        elif row.source_id in match.reworded and row.target_id is not None:
            row.release = str(Release.REWORDED)
            row.superseded_by = match.current_of[row.source_id]
    return dropped


def _new_units(
    ctx: AlignContext,
    rows: list[Alignment],
    members: list[int],
    match: ReleaseMatch,
    lang: str | None,
    older: str,
) -> list[Alignment]:
    """Missing rows for the current release's new units, inside the stretch of the older
    release the translation covers (a translation of chapter 7 misses no new glossary)."""
    position = {r.id: k for k, r in enumerate(ctx.documents[match.current])}
    covered = [
        position[match.current_of[rows[i].source_id]]
        for i in members
        if rows[i].target_id and rows[i].source_id in match.current_of
    ]
    if not covered:
        return []
    low, high = min(covered), max(covered)
    return [
        Alignment(
            item,
            None,
            lang,
            0.0,
            str(Method.NO_TRANSLATION),
            None,
            older,
            release=str(Release.NEW),
        )
        for item in match.new
        if low <= position[item] <= high
    ]
