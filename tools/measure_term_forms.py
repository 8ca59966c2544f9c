"""List the forms of the termbase's Spanish verbs that the official printed text uses and the
termbase does not list: what TERM002 would miss ("activarse", "Enderézalas").

Usage (from the repository root; read the tuning sets only, see benchmarks/README.md):
    python tools/measure_term_forms.py \
        ../shared/data/mtgjson/{TSP,PLC,FUT,RAV,ISD,KTK,AKH,DOM,ELD}.json

For every approved or admitted Spanish term that is an infinitive (-ar, -er, -ir), each word
of the sets' printed Spanish card text that is the verb with clitic pronouns attached
(infinitive, imperative or gerund + se/la/lo/las/los/le/les, accents as written) is counted.
Prints ``concept<TAB>form<TAB>count`` for the forms not yet listed, most frequent first; the
reviewed ones go into ``pipelines/resources/termbase.tsv``.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

from pipelines.resources import read_tsv

CLITICS = r"(?:se|la|lo|las|los|le|les|me|te|nos)(?:la|lo|las|los)?"
WORD = re.compile(r"[^\W\d_]+")


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


def spanish_text(paths: list[Path]) -> Counter[str]:
    words: Counter[str] = Counter()
    for path in paths:
        for card in json.loads(path.read_text("utf-8"))["data"]["cards"]:
            for foreign in card.get("foreignData", []):
                if foreign.get("language") == "Spanish" and foreign.get("text"):
                    words.update(w.casefold() for w in WORD.findall(foreign["text"]))
    return words


def main(paths: list[str]) -> int:
    words = spanish_text([Path(p) for p in paths])
    for row in read_tsv("termbase.tsv"):
        if row["lang"] != "es" or row["status"] not in ("approved", "admitted"):
            continue
        listed = {form.casefold() for form in row["term"].split("|")}
        infinitive = row["term"].split("|")[0]
        if " " in infinitive or not re.fullmatch(r"\w+(?:ar|er|ir)", infinitive):
            continue
        stem = fold(infinitive[:-2])
        pattern = re.compile(rf"{stem}(?:ar|er|ir|a|e|ando|iendo|ad|ed|id){CLITICS}")
        found = Counter(
            {w: n for w, n in words.items() if pattern.fullmatch(fold(w)) and w not in listed}
        )
        for form, count in found.most_common():
            print(f"{row['concept']}\t{form}\t{count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
