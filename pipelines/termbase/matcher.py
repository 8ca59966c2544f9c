"""Finding every form of many terms in a text: one Aho-Corasick automaton per layer.

The automaton (pyahocorasick) reports every occurrence of every form key in one pass in C;
the rules the termbase promises (whole words in spaced languages, leftmost then longest,
one hit per owning concept) are applied to those occurrences here. It replaced one
compiled regular-expression trie per layer: the same hits, faster on real rules and card
text in every language, and linear in the text whatever the size of the termbase
(the ``matching`` record of ``benchmarks/results/scale.json`` measured both;
``tests/test_matching.py`` checks the hits against a plain reference).

Texts are searched in *key space*: folded, with ’ written ' and every run of white space
written as one space, as form keys are (``form_key``). ``key_text`` makes that twin of a
text and the map back to the text's own offsets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick

from .model import Term, TermHit, form_key

OTHER_SPACE = re.compile(r"[^\S ]")
"""White space other than the plain space (tab, line break, no-break space...)."""
SPACE_RUN = re.compile(r" {2,}")
_new_hit = tuple.__new__
"""Makes a ``TermHit`` from its fields without the named tuple's Python constructor (a
text has dozens of hits)."""


def key_text(folded: str) -> tuple[str, list[int] | None]:
    """``folded`` as form keys are written, and for each of its characters the offset of
    the character of ``folded`` it stands for (None when the offsets are the same)."""
    keyed = folded.replace("’", "'") if "’" in folded else folded
    if OTHER_SPACE.search(keyed):
        keyed = OTHER_SPACE.sub(" ", keyed)
    if "  " not in keyed:
        return keyed, None
    parts: list[str] = []
    offsets: list[int] = []
    kept = 0
    for run in SPACE_RUN.finditer(keyed):
        start, end = run.span()
        parts.append(keyed[kept : start + 1])
        offsets.extend(range(kept, start + 1))
        kept = end
    parts.append(keyed[kept:])
    offsets.extend(range(kept, len(keyed)))
    return "".join(parts), offsets


@dataclass(frozen=True, slots=True)
class Matcher:
    """Every form of one layer of concepts in one language, in one automaton whose values
    are (form key length - 1, owners): owners are (concept, status, lang), sorted."""

    automaton: ahocorasick.Automaton
    spaced: bool

    @classmethod
    def build(cls, terms: Iterable[Term], spaced: bool) -> Matcher | None:
        entries: dict[str, list[tuple[str, str, str]]] = {}
        for term in terms:
            for form in term.forms:
                owners = entries.setdefault(form_key(form), [])
                owner = (term.concept, term.status, term.lang)
                if owner not in owners:
                    owners.append(owner)
        if not entries:
            return None
        automaton = ahocorasick.Automaton()
        for key, owners in entries.items():
            automaton.add_word(key, (len(key) - 1, tuple(sorted(owners))))
        automaton.make_automaton()
        return cls(automaton, spaced)

    def scan(self, text: str, keyed: str, offsets: list[int] | None, hits: list[TermHit]) -> None:
        """Append this layer's hits in ``text``; ``keyed`` and ``offsets`` are its key-space
        twin and map (``key_text``)."""
        found = self._occurrences(keyed)
        if not found:
            return
        found.sort()
        reach = 0
        for start, negative_last, owners in found:
            if start < reach:  # inside the hit already taken: leftmost, then longest, wins
                continue
            reach = 1 - negative_last
            if offsets is None:
                begin, end = start, reach
            else:
                begin, end = offsets[start], offsets[reach - 1] + 1
            form = text[begin:end]
            for concept, status, lang in owners:
                hits.append(_new_hit(TermHit, (concept, lang, form, status, begin, end)))

    def _occurrences(self, keyed: str) -> list[tuple[int, int, tuple]]:
        """(start, -last index, owners) of every occurrence; in spaced languages only those
        that are whole words (no word character, as ``\\w`` means it, on either side)."""
        if not self.spaced:
            return [
                (last - span, -last, owners) for last, (span, owners) in self.automaton.iter(keyed)
            ]
        found = []
        final = len(keyed) - 1
        for last, (span, owners) in self.automaton.iter(keyed):
            start = last - span
            if start:
                before = keyed[start - 1]
                if before.isalnum() or before == "_":
                    continue
            if last < final:
                after = keyed[last + 1]
                if after.isalnum() or after == "_":
                    continue
            found.append((start, -last, owners))
        return found
