"""MTGJSON card data: one set file, or AllPrintings (every set in one ~400 MB file)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import ijson

from ...model import Finding
from ..source import SourceFile
from . import Output, reader
from ._common import normalize
from ._json import (
    CardNames,
    card_languages,
    json_head,
    json_type,
    malformed,
    master_ruling,
    open_json,
    pointer,
    unexpected,
)

FORMAT = "mtgjson"

_META_VERSION = re.compile(rb'"meta"\s*:\s*\{[^{}]*"version"\s*:')
_DATA_OBJECT = re.compile(rb'"data"\s*:\s*\{')
_MTGJSON_KEYS = (
    b'"baseSetSize"',
    b'"cards"',
    b'"foreignData"',
    b'"rulings"',
    b'"keyruneCode"',
    b'"totalSetSize"',
    b'"isFoilOnly"',
    b'"scryfallOracleId"',
)
CARD_FIELDS = frozenset({"name", "faceName", "identifiers", "foreignData", "rulings"})
FOREIGN_FIELDS = frozenset({"name", "faceName", "language"})
"""The card fields (and foreignData fields) the reader uses; the others are skipped."""
_CONTAINERS = ("start_map", "start_array")
_CONTAINER_ENDS = ("end_map", "end_array")


def detect(doc: SourceFile) -> float:
    """A JSON object with a ``data`` object, MTGJSON's set or card keys and its ``meta``."""
    head = json_head(doc)
    if not head.startswith(b"{"):
        return 0.0
    if not _DATA_OBJECT.search(head):
        return 0.0
    keys = sum(1 for key in _MTGJSON_KEYS if key in head)
    if keys and _META_VERSION.search(head):
        return 0.95
    return 0.6 if keys >= 2 else 0.0


@reader(FORMAT, detect=detect, priority=20, ceiling=0.95)
def read_mtgjson(doc: SourceFile) -> Iterator[Output]:
    """MTGJSON set files ({"meta", "data": set}) and AllPrintings ({"meta", "data": {code: set}}).

    The file is streamed with ijson, one card at a time, so memory does not grow with its
    size. Every English ruling becomes a ruling with the card's full name ("Fire // Ice") as
    card and title, id ``<file>#/data/cards/<i>/rulings/<j>`` (``/data/<SET>/cards/...`` in
    AllPrintings) and one document per card, ``<file>#/data/cards/<i>``. A card's rulings are
    the same in every printing, so within a file they are read once per card name, from the
    first printing that has any; other printings only add names.

    Names go to the card-name index, once per file: the English name, each face name, every
    foreignData name (and face name) under its language code, and the Scryfall oracle id
    (language ``oracle_id``), which lets Scryfall rulings find their card.

    Broken JSON is reported with its byte offset and JSON pointer, after the cards before
    it; a card, ruling or name entry of the wrong shape is reported and skipped. A ruling
    with no date is kept undated; a date that is not a real date is kept as written, for
    the date checks to report.
    """
    yield from read_cards(doc, {})


def read_cards(
    doc: SourceFile, ruled: dict[str, str], *, by_set: bool = False
) -> Iterator[Output | SetStart]:
    """``read_mtgjson``; ``ruled`` gets the name of each card whose rulings were read, with
    the pointer of the card they were read from (what reading an AllPrintings file set by
    set needs to keep the rulings of the first printing only: ``ingest/sets.py``). With
    ``by_set``, each set of an AllPrintings file is read as if it were alone in the file: a
    ``SetStart`` comes before its outputs, and ``ruled`` and the names given once start
    again after it (what ``ruled`` holds when a ``SetStart`` comes is the set before's)."""
    names = CardNames(doc.rel)
    with open_json(doc) as stream:
        walk = _CardWalk(doc, by_set=by_set)
        try:
            for item in walk.cards(ijson.parse(stream, use_float=True)):
                if isinstance(item, Finding):
                    yield item
                elif isinstance(item, SetStart):
                    yield item
                    ruled.clear()
                    names = CardNames(doc.rel)
                else:
                    yield from _card(doc, *item, names, ruled)
        except (ijson.JSONError, UnicodeDecodeError) as error:
            yield malformed(doc, error, stream, walk.location)


@dataclass(frozen=True)
class SetStart:
    """Where a set of an AllPrintings file begins (``read_cards(by_set=True)``)."""

    code: str


class _CardWalk:
    """Finds the card objects in the parse events and builds them, one at a time and only
    with the fields the reader uses."""

    def __init__(self, doc: SourceFile, *, by_set: bool = False) -> None:
        self.doc = doc
        self.by_set = by_set
        self.location = ""
        """JSON pointer of the value being read (the card, or a key above the cards)."""

    def cards(
        self, events: Iterable[tuple[str, str, Any]]
    ) -> Iterator[tuple[str, Any] | Finding | SetStart]:
        next_index: dict[str, int] = {}
        """Cards-array prefix -> index of its next card."""
        has_data = has_cards = False
        builder: ijson.ObjectBuilder | None = None
        card_prefix = ""
        wanted: tuple[str, ...] = ()
        containers: dict[str, frozenset[str]] = {}
        for prefix, event, value in events:
            if builder is not None:
                if prefix.startswith(wanted):
                    builder.event(event, value)
                elif prefix in containers:
                    if event != "map_key" or value in containers[prefix]:
                        builder.event(event, value)
                    if prefix == card_prefix and event in _CONTAINER_ENDS:
                        yield self.location, builder.value
                        builder = None
                continue
            if event == "map_key":
                if prefix == "":
                    self.location = pointer(value)
                elif prefix == "data" or (prefix.startswith("data.") and prefix.count(".") == 1):
                    self.location = pointer(*prefix.split("."), value)
                    if self.by_set and prefix == "data":
                        yield SetStart(value)
            elif prefix.endswith(".item") and prefix[:-5] in next_index:
                cards_prefix = prefix[:-5]
                index = next_index[cards_prefix]
                next_index[cards_prefix] = index + 1
                self.location = pointer(*cards_prefix.split("."), index)
                if event in _CONTAINERS:
                    builder, card_prefix = ijson.ObjectBuilder(), prefix
                    wanted, containers = _card_filter(prefix)
                    builder.event(event, value)
                else:
                    yield unexpected(
                        self.doc,
                        self.location,
                        f"a card is a JSON {json_type(value)}, not an object",
                        found=value,
                    )
            elif prefix.endswith("cards") and _is_cards_prefix(prefix):
                if event in _CONTAINER_ENDS:
                    continue
                has_cards = True
                if event == "start_array":
                    next_index[prefix] = 0
                else:
                    yield unexpected(
                        self.doc,
                        pointer(*prefix.split(".")),
                        f"the card list is a JSON {_event_type(event)}, not an array",
                    )
            elif prefix == "" and event not in ("start_map", "end_map"):
                yield unexpected(
                    self.doc, "", f"the file is a JSON {_event_type(event)}, not an MTGJSON object"
                )
                return
            elif prefix == "data" and event not in _CONTAINER_ENDS:
                if event != "start_map":
                    yield unexpected(
                        self.doc, "/data", f"data is a JSON {_event_type(event)}, not an object"
                    )
                    return
                has_data = True
        if not has_data:
            yield unexpected(self.doc, "", "there is no data object")
        elif not has_cards:
            yield unexpected(
                self.doc, "/data", "there is no card list (/data/cards or /data/<SET>/cards)"
            )


def _card_filter(card: str) -> tuple[tuple[str, ...], dict[str, frozenset[str]]]:
    """What to build of the card at prefix ``card``: the prefixes of the values to keep
    whole, and the containers on the way to them with the keys to keep of each."""
    foreign = f"{card}.foreignData"
    keep = [f"{card}.{field}" for field in CARD_FIELDS - {"foreignData"}]
    keep += [f"{foreign}.item.{field}" for field in FOREIGN_FIELDS]
    return tuple(keep), {card: CARD_FIELDS, foreign: frozenset(), f"{foreign}.item": FOREIGN_FIELDS}


def _is_cards_prefix(prefix: str) -> bool:
    """``data.cards`` (a set file) or ``data.<SET>.cards`` (AllPrintings)."""
    return prefix == "data.cards" or (
        prefix.endswith(".cards") and prefix.startswith("data.") and prefix.count(".") == 2
    )


def _event_type(event: str) -> str:
    return {"start_map": "object", "start_array": "array", "map_key": "object"}.get(event, event)


def _card(
    doc: SourceFile, path: str, card: Any, names: CardNames, ruled: dict[str, str]
) -> Iterator[Output]:
    if not isinstance(card, dict):
        yield unexpected(doc, path, f"a card is a JSON {json_type(card)}, not an object")
        return
    name = card.get("name")
    if not isinstance(name, str) or not name.strip():
        yield unexpected(doc, f"{path}/name", "the card has no name", found=name)
        return
    name = normalize(name)
    yield from names.add(name, "en", name)
    yield from names.add(card.get("faceName"), "en", name)
    identifiers = card.get("identifiers")
    if isinstance(identifiers, dict):
        yield from names.add(identifiers.get("scryfallOracleId"), "oracle_id", name)
    yield from _foreign_names(doc, path, card.get("foreignData", []), name, names)
    rulings = card.get("rulings", [])
    if not isinstance(rulings, list):
        yield unexpected(
            doc, f"{path}/rulings", f"rulings is a JSON {json_type(rulings)}, not an array"
        )
    elif rulings and name not in ruled:
        ruled[name] = path
        for position, entry in enumerate(rulings):
            yield from _ruling(doc, path, position, entry, name)


def _foreign_names(
    doc: SourceFile, path: str, foreign: Any, card: str, names: CardNames
) -> Iterator[Output]:
    if not isinstance(foreign, list):
        yield unexpected(
            doc, f"{path}/foreignData", f"foreignData is a JSON {json_type(foreign)}, not an array"
        )
        return
    languages = card_languages("mtgjson")
    for index, entry in enumerate(foreign):
        if not isinstance(entry, dict) or not isinstance(entry.get("language"), str):
            yield unexpected(
                doc,
                f"{path}/foreignData/{index}",
                "a foreign name has no language",
                found=entry,
                severity="warning",
            )
            continue
        lang = languages.get(entry["language"])
        if lang:
            yield from names.add(entry.get("name"), lang, card)
            yield from names.add(entry.get("faceName"), lang, card)


def _ruling(
    doc: SourceFile, card_path: str, position: int, entry: Any, card: str
) -> Iterator[Output]:
    path = f"{card_path}/rulings/{position}"
    if not isinstance(entry, dict):
        yield unexpected(doc, path, f"a ruling is a JSON {json_type(entry)}, not an object")
        return
    text = entry.get("text")
    if not isinstance(text, str) or not text.strip():
        yield unexpected(doc, path, "the ruling has no text", found=entry)
        return
    yield from master_ruling(
        doc,
        path,
        fmt=FORMAT,
        text=text,
        date_raw=entry.get("date"),
        date_field="date",
        title=card,
        card=card,
        doc_id=f"{doc.rel}#{card_path}",
        position=position,
    )
