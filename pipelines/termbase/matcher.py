"""Finding every form of many terms in a text with one compiled expression per layer."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .model import Term, TermHit, form_key


def _trie_pattern(keys: Iterable[str]) -> str:
    """One regular expression for many literal keys that prefers the longest one."""
    trie: dict[str, dict] = {}
    for key in keys:
        node = trie
        for char in key:
            node = node.setdefault(char, {})
        node[""] = {}
    return _node_pattern(trie)


def _node_pattern(node: dict[str, dict]) -> str:
    branches = [
        _char_pattern(char) + _node_pattern(child) for char, child in sorted(node.items()) if char
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


def _char_pattern(char: str) -> str:
    if char == " ":
        return r"\s+"
    if char == "'":
        return "['’]"
    return re.escape(char)


@dataclass(frozen=True, slots=True)
class Matcher:
    """Every form of one layer of concepts in one language, compiled into one expression."""

    pattern: re.Pattern[str]
    entries: dict[str, tuple[tuple[str, str, str], ...]]  # form key -> (concept, status, lang)

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
        body = _trie_pattern(sorted(entries))
        pattern = rf"(?<!\w)(?:{body})(?!\w)" if spaced else body
        return cls(
            re.compile(pattern), {key: tuple(sorted(value)) for key, value in entries.items()}
        )

    def scan(self, text: str, folded: str, hits: list[TermHit]) -> None:
        """Append the hits of this matcher in ``text`` (``folded`` is its lower-case twin)."""
        entries = self.entries
        for match in self.pattern.finditer(folded):
            found = match.group()
            owners = entries.get(found)
            if owners is None:  # other spacing or apostrophe than the listed form
                owners = entries.get(form_key(found), ())
            start, end = match.span()
            form = text[start:end]
            for concept, status, lang in owners:
                hits.append(TermHit(concept, lang, form, status, start, end))
