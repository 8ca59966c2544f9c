"""A bad and a good input for every code the ingest stage emits (the checks' examples are in
``pipelines/resources/check_examples.toml``): ``write(code, folder, good)`` writes the files
into ``folder`` and returns the inputs and the ``ingest`` options to read them with. The bad
input makes the code report; the good one, the same input put right, must not.

``tests/test_codes.py`` runs both and compares the bad input's findings with its snapshot.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CORPUS = Path(__file__).resolve().parents[1] / "corpus"

SPANISH = (
    "Dicotomancia\n\n02/02/2024\n\n"
    "Las cartas exiliadas con suspender están exiliadas boca arriba.\n"
)
DATED = "Hipergénesis\n\n" + "".join(
    f"15/10/2006 Regla {n}: todo lo que se active durante la resolución esperará.\n\n"
    for n in range(1, 6)
)
FRENCH = (
    "Hypergenèse\n\n"
    "15/10/2006 Tout ce qui se déclenche pendant la résolution attendra d'être mis sur la "
    "pile jusqu'à ce que tout ait été mis sur le champ de bataille.\n\n"
    "19/03/2021 Le processus se termine lorsque chaque joueur (en commençant par vous) "
    "choisit de ne pas mettre de carte sur le champ de bataille pendant un tour complet.\n"
)
SPANISH_HYPERGENESIS = (
    "Hipergénesis\n\n"
    "15/10/2006 Todo lo que se dispare durante la resolución esperará a ser puesto en la "
    "pila hasta que todo se haya puesto en el campo de batalla.\n\n"
    "19/03/2021 El proceso termina cuando cada jugador (empezando por ti) elige no poner "
    "una carta en el campo de batalla durante una vuelta completa.\n"
)
TERMS = [
    ("ability", "habilidad"),
    ("activated ability", "habilidad activada"),
    ("triggered ability", "habilidad disparada"),
    ("battlefield", "campo de batalla"),
    ("graveyard", "cementerio"),
    ("library", "biblioteca"),
    ("exile", "exilio"),
    ("counter", "contador"),
    ("spell", "hechizo"),
    ("permanent", "permanente"),
    ("creature", "criatura"),
    ("token", "ficha"),
]


def _text(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _xliff(units: list[tuple[str, str, str]]) -> str:
    body = "".join(
        f'<trans-unit id="{uid}"><source>{source}</source><target>{target}</target></trans-unit>\n'
        for uid, source, target in units
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
        '<file original="suspend" source-language="en" target-language="es" datatype="plaintext">'
        f"<body>\n{body}</body></file>\n</xliff>\n"
    )


XLIFF_UNITS = [
    ("1", "Suspend is a keyword ability.", "Suspender es una habilidad de palabra clave."),
    ("2", "Exile it with three time counters on it.", "Exíliala con tres contadores de tiempo."),
]

Options = dict[str, Any]
Builder = Callable[[Path, bool], tuple[list[Path], Options]]
BUILDERS: dict[str, Builder] = {}


def builds(code: str) -> Callable[[Builder], Builder]:
    def register(function: Builder) -> Builder:
        BUILDERS[code] = function
        return function

    return register


@builds("PARSE001")
def _binary(folder: Path, good: bool):
    data = (
        SPANISH.encode() if good else b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
    )
    return [_text(folder, "ruling.dat", data)], {}


@builds("PARSE002")
def _latin1(folder: Path, good: bool):
    return [_text(folder, "doc.txt", SPANISH.encode("utf-8" if good else "latin-1"))], {}


@builds("PARSE003")
def _empty(folder: Path, good: bool):
    return [_text(folder, "doc.txt", SPANISH if good else "\n\n   \n")], {}


@builds("PARSE004")
def _unread_line(folder: Path, good: bool):
    tail = "" if good else "\n03/03/2024\n"
    return [_text(folder, "doc.txt", SPANISH + tail)], {}


@builds("PARSE005")
def _empty_heading(folder: Path, good: bool):
    rules = (
        "702.62. Suspend\n\n"
        "702.62a Suspend is a keyword that functions while the card with suspend is in a "
        "player's hand.\n\n"
    )
    return [_text(folder, "rules.txt", rules + ("" if good else "Chroma\n"))], {}


@builds("PARSE006")
def _long_line(folder: Path, good: bool):
    length = 200 if good else 20_001
    return [_text(folder, "doc.txt", SPANISH + "\n" + "a" * length + "\n")], {}


@builds("PARSE007")
def _reader_failure(folder: Path, good: bool):
    # a reader fails on a file when it raises: the test breaks one (``BROKEN_READER``)
    return [_text(folder, "doc.txt", SPANISH)], {"break_reader": not good}


@builds("PARSE008")
def _cut_json(folder: Path, good: bool):
    data = (FIXTURES / "json" / "mtgjson_set.json").read_bytes()
    if not good:
        data = data[: data.index(b'"name": "Epochrasite"') + 5]
    return [_text(folder, "set.json", data)], {}


@builds("PARSE009")
def _misshapen_json(folder: Path, good: bool):
    card = {"name": "Epochrasite", "rulings": [{"date": "2007-05-01", "text": "It returns."}]}
    cards = [card] if good else [card, {"rulings": []}]
    data = {"meta": {"version": "5.2.0"}, "data": {"code": "TSP", "cards": cards}}
    return [_text(folder, "set.json", json.dumps(data, indent=1))], {}


@builds("PARSE010")
def _socket(folder: Path, good: bool):
    _text(folder, "ok.txt", SPANISH)
    if good:
        return [folder], {}
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "s.txt"))
    return [folder], {"close": server.close}


@builds("PARSE011")
def _broken_xliff(folder: Path, good: bool):
    text = _xliff(XLIFF_UNITS)
    if not good:
        text = text[: text.index("</body>")]
    return [_text(folder, "suspend.xlf", text)], {"languages": ("en", "es")}


@builds("PARSE012")
def _twice_used_id(folder: Path, good: bool):
    units = XLIFF_UNITS if good else [XLIFF_UNITS[0], ("1", *XLIFF_UNITS[1][1:])]
    return [_text(folder, "suspend.xlf", _xliff(units))], {"languages": ("en", "es")}


@builds("PARSE013")
def _nul(folder: Path, good: bool):
    text = DATED if good else DATED.replace("Regla 2", "Regla\x00 2")
    return [_text(folder, "doc.txt", text)], {}


@builds("PARSE014")
def _hidden_file(folder: Path, good: bool):
    _text(folder, "ok.txt", SPANISH)
    _text(folder, "notes.txt" if good else ".notes.txt", DATED)
    return [folder], {}


@builds("PARSE015")
def _hidden_folder(folder: Path, good: bool):
    _text(folder, "ok.txt", SPANISH)
    _text(folder, "git/HEAD.txt" if good else ".git/HEAD", DATED)
    return [folder], {}


@builds("DOC001")
def _glossary(folder: Path, good: bool):
    if good:
        return [_text(folder, "doc.txt", DATED)], {}
    lines = "".join(f"{en}\t{es}\n" for en, es in TERMS)
    return [_text(folder, "glosario.txt", lines)], {}


@builds("DOC002")
def _other_language(folder: Path, good: bool):
    text = SPANISH_HYPERGENESIS if good else FRENCH
    return [_text(folder, "hypergenesis.txt", text)], {"languages": ("en", "es", "zh")}


@builds("DATE003")
def _ambiguous_dates(folder: Path, good: bool):
    second = "19/03/2021" if good else "03/05/2021"
    text = (
        "Hipergénesis\n\n"
        "07/06/2013 Todo lo que se dispare durante la resolución esperará.\n\n"
        f"{second} El proceso termina cuando cada jugador elige no poner una carta.\n"
    )
    return [_text(folder, "doc.txt", text)], {}


@builds("DATE004")
def _both_orders(folder: Path, good: bool):
    second = "19/03/2021" if good else "03/19/2021"
    text = (
        "Hipergénesis\n\n"
        "25/10/2006 Todo lo que se dispare durante la resolución esperará.\n\n"
        f"{second} El proceso termina cuando cada jugador elige no poner una carta.\n"
    )
    return [_text(folder, "doc.txt", text)], {}


@builds("DATE005")
def _impossible_date(folder: Path, good: bool):
    date = "28/02/2024" if good else "31/02/2024"
    return [_text(folder, "doc.txt", SPANISH.replace("02/02/2024", date))], {}


@builds("CARD001")
def _wrong_title(folder: Path, good: bool):
    text = (CORPUS / "002_f829283b2bc10ea3.txt").read_text(encoding="utf-8")
    if good:
        text = text.replace("古辉石", "时代寄生虫", 1)
    return [_text(folder, "epochrasite.zh.txt", text)], {}


@builds("CARD002")
def _unknown_card(folder: Path, good: bool):
    title = "Hipergénesis" if good else "Dragón de la Tormenta Carmesí"
    text = SPANISH_HYPERGENESIS.replace("Hipergénesis", title, 1)
    return [_text(folder, "card.txt", text)], {}
