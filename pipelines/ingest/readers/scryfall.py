"""Scryfall bulk data: the rulings file, and the card files that name the rulings' cards."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import ijson

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

FORMAT = "scryfall"

_RULING_OBJECT = re.compile(rb'"object"\s*:\s*"ruling"')
_CARD_OBJECT = re.compile(rb'"object"\s*:\s*"card"')


def detect(doc: SourceFile) -> float:
    """A JSON array of Scryfall ``ruling`` or ``card`` objects (with their ``oracle_id``)."""
    head = json_head(doc)
    if not head.startswith(b"["):
        return 0.0
    if b'"oracle_id"' not in head:
        return 0.0
    if _RULING_OBJECT.search(head) and b'"comment"' in head:
        return 0.95
    if _CARD_OBJECT.search(head) and b'"name"' in head:
        return 0.95
    return 0.0


@reader(FORMAT, detect=detect, priority=20, ceiling=0.95)
def read_scryfall(doc: SourceFile) -> Iterator[Output]:
    """Scryfall bulk files: a JSON array of ruling objects, or of card objects.

    A ruling object gives its ``comment`` (the ruling text), ``published_at`` and the card's
    ``oracle_id``, but not the card's name. Each becomes a ruling with id ``<file>#/<index>``,
    ``card`` empty and the oracle id as ``doc_title``; its document is
    ``<file>#oracle/<oracle_id>`` and ``position`` its order among that card's rulings. Card
    identity later turns the oracle id into the card's name through the card-name index.

    A card object (from a cards bulk file given in the same input) adds to that index, once
    per file: its oracle id (language ``oracle_id``) with its English name, the English name
    and face names, and the printed (localized) name and face names under the card's
    language (Scryfall's ``zhs``/``zht`` become ``zh``/``zh-Hant``).

    The file is streamed one object at a time. Broken JSON is reported with its byte offset
    and the pointer of the element being read, after the elements before it; an element of
    the wrong shape is reported and skipped.
    """
    names = CardNames(doc.rel)
    positions: dict[str, int] = {}
    if not json_head(doc).startswith(b"["):
        yield unexpected(doc, "", "the file is not a JSON array of Scryfall objects")
        return
    with open_json(doc) as stream:
        done = 0
        try:
            for element in ijson.items(stream, "item", use_float=True):
                yield from _element(doc, done, element, names, positions)
                done += 1
        except (ijson.JSONError, UnicodeDecodeError) as error:
            yield malformed(doc, error, stream, pointer(done))


def _element(
    doc: SourceFile, index: int, element: Any, names: CardNames, positions: dict[str, int]
) -> Iterator[Output]:
    path = pointer(index)
    if not isinstance(element, dict):
        yield unexpected(doc, path, f"an element is a JSON {json_type(element)}, not an object")
    elif element.get("object") == "ruling":
        yield from _ruling(doc, path, element, positions)
    elif element.get("object") == "card":
        yield from _card_names(doc, path, element, names)
    else:
        yield unexpected(
            doc, path, "an element is neither a ruling nor a card", found=element.get("object")
        )


def _ruling(
    doc: SourceFile, path: str, element: dict[str, Any], positions: dict[str, int]
) -> Iterator[Output]:
    oracle_id = element.get("oracle_id")
    text = element.get("comment")
    if not isinstance(oracle_id, str) or not oracle_id.strip():
        yield unexpected(doc, f"{path}/oracle_id", "the ruling has no oracle_id", found=element)
        return
    if not isinstance(text, str) or not text.strip():
        yield unexpected(doc, f"{path}/comment", "the ruling has no comment", found=element)
        return
    oracle_id = oracle_id.strip()
    position = positions.get(oracle_id, 0)
    positions[oracle_id] = position + 1
    yield from master_ruling(
        doc,
        path,
        fmt=FORMAT,
        text=text,
        date_raw=element.get("published_at"),
        date_field="published_at",
        title=oracle_id,
        card=None,
        doc_id=f"{doc.rel}#oracle/{oracle_id}",
        position=position,
    )


def _card_names(
    doc: SourceFile, path: str, card: dict[str, Any], names: CardNames
) -> Iterator[Output]:
    name = card.get("name")
    if not isinstance(name, str) or not name.strip():
        yield unexpected(doc, f"{path}/name", "the card has no name", found=name)
        return
    name = normalize(name)
    faces = card.get("card_faces")
    faces = [face for face in faces if isinstance(face, dict)] if isinstance(faces, list) else []
    oracle_id = card.get("oracle_id") or next(
        (face.get("oracle_id") for face in faces if face.get("oracle_id")), None
    )
    yield from names.add(oracle_id, "oracle_id", name)
    yield from names.add(name, "en", name)
    for face in faces:
        yield from names.add(face.get("name"), "en", name)
    lang = card_languages("scryfall").get(card.get("lang", "en"))
    if lang:
        yield from names.add(card.get("printed_name"), lang, name)
        for face in faces:
            yield from names.add(face.get("printed_name"), lang, name)
