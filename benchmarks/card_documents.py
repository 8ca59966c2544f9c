"""Real card-size documents from the MTGJSON set files: English Oracle text and its translations.

Run from the repository root::

    python benchmarks/card_documents.py /tmp/card-docs                     # PLC,FUT in es,zh
    python benchmarks/card_documents.py /tmp/card-docs --sets TSP --langs es
    python benchmarks/card_documents.py /tmp/card-docs --check /tmp/card-runs

For every card of the sets with a printed localized text in a language, it writes
``OUT/en/<SET>/<slug>.txt`` (the English name, a blank line, then each line of the current
Oracle text as a paragraph, paragraphs separated by blank lines) and ``OUT/<lang>/<SET>/<slug>.txt``
(the localized name, then each line of the printed 2006-07 text, the same way), and
``OUT/manifest.json`` (per language and card: set, slug, names, the line pairs). Cards whose two
texts have a different number of lines are skipped and counted. TSP is the set the checks were
tuned on; PLC and FUT (the default) are for evaluation. Deterministic: sorted, no randomness.

``--check RUN_DIR`` then runs ``rulings run OUT/en OUT/<lang>`` per language and measures how
many translated lines the tool pairs with an English line (and with the right one: same card,
same line), written to ``benchmarks/results/card_documents.{json,md}``.

When ../shared is absent it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from common import (  # noqa: E402
    SHARED,
    machine,
    md_table,
    read_jsonl,
    run_rulings,
    shared_or_exit,
    write_results,
)

LANGUAGES = {"es": "Spanish", "zh": "Chinese Simplified"}
"""Language code -> MTGJSON foreignData language."""
DEFAULT_SETS = ("PLC", "FUT")
"""TSP is the tuning set: the default leaves it out."""


@dataclass
class CardDoc:
    set: str
    slug: str
    name: str
    local_name: str
    lang: str
    lines: list[tuple[str, str]]
    """(English line, translated line) pairs, in order."""

    @property
    def path(self) -> str:
        """The translation file, relative to OUT/<lang> (and the English one to OUT/en)."""
        return f"{self.set}/{self.slug}.txt"


def slugify(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")


def paragraph_line(index: int) -> int:
    """The 1-based file line of paragraph ``index`` (0-based): title, blank, p0, blank, p1…"""
    return 3 + 2 * index


def document_text(title: str, paragraphs: list[str]) -> str:
    return "\n\n".join([title, *paragraphs]) + "\n"


def split_lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def load_cards(
    sets=DEFAULT_SETS, langs=tuple(LANGUAGES), shared: Path = SHARED
) -> tuple[list[CardDoc], dict]:
    """Card documents per language (sorted by language, set, slug) and the skipped counts."""
    docs, skipped = [], {}
    for set_code in sorted(sets):
        data = json.loads((shared / "data" / "mtgjson" / f"{set_code}.json").read_text("utf-8"))
        for lang in sorted(langs):
            language = LANGUAGES[lang]
            counts = skipped.setdefault(f"{lang}/{set_code}", {"kept": 0, "line_count": 0})
            for card in data["data"]["cards"]:
                name = card.get("faceName") or card["name"]
                local = [f for f in card.get("foreignData", []) if f["language"] == language]
                if not card.get("text") or not local or not local[0].get("text"):
                    continue
                en, tr = split_lines(card["text"]), split_lines(local[0]["text"])
                if len(en) != len(tr):
                    counts["line_count"] += 1
                    continue
                counts["kept"] += 1
                local_name = local[0].get("faceName") or local[0].get("name") or name
                lines = list(zip(en, tr, strict=True))
                docs.append(CardDoc(set_code, slugify(name), name, local_name, lang, lines))
    docs.sort(key=lambda d: (d.lang, d.set, d.slug))
    return docs, skipped


def write_documents(out: Path, docs: list[CardDoc], skipped: dict | None = None) -> dict:
    """Write the English and translated files and manifest.json; return the manifest."""
    out = Path(out)
    for doc in docs:
        for lang, title, index in ((doc.lang, doc.local_name, 1), ("en", doc.name, 0)):
            path = out / lang / doc.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(document_text(title, [p[index] for p in doc.lines]), "utf-8")
    manifest = {
        "skipped": skipped or {},
        "cards": [asdict(doc) | {"path": doc.path} for doc in docs],
    }
    text = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True)
    (out / "manifest.json").write_text(text + "\n", "utf-8")
    return manifest


def read_manifest(out: Path) -> list[CardDoc]:
    cards = json.loads((Path(out) / "manifest.json").read_text("utf-8"))["cards"]
    keys = ("set", "slug", "name", "local_name", "lang")
    return [CardDoc(*(c[k] for k in keys), [tuple(p) for p in c["lines"]]) for c in cards]


def unit_key(row: dict) -> tuple[str, int]:
    """(``<SET>/<slug>.txt``, line) of a corpus row or finding, whichever input root it is in."""
    return "/".join(row["file"].replace("\\", "/").split("/")[-2:]), int(row["line"])


def is_source_file(file: str) -> bool:
    """A file of the English root: the tool prefixes a clashing path with its root's name."""
    prefix = file.replace("\\", "/").split("/")[:-2]
    return not prefix or prefix[-1] == "en"


def pairing(run_dir: Path, docs: list[CardDoc], lang: str) -> dict:
    """Share of translated lines the tool pairs with an English line, and with the right one.

    Right: the same card's line at the same position, or any English unit with that line's text
    (a template from another card with identical text is right too).
    """
    corpus = {row["id"]: row for row in read_jsonl(Path(run_dir) / "corpus.jsonl")}
    english = {
        (d.path, paragraph_line(i)): en
        for d in docs
        if d.lang == lang
        for i, (en, _) in enumerate(d.lines)
    }
    targets = {
        rid: unit_key(row)
        for rid, row in corpus.items()
        if not is_source_file(row["file"]) and unit_key(row) in english
    }
    sources: dict[tuple, dict | None] = dict.fromkeys(targets.values())
    methods: dict[str, int] = {}
    for row in read_jsonl(Path(run_dir) / "alignment.jsonl"):
        key = targets.get(row.get("target_id"))
        if key is None or not row.get("source_id"):
            continue
        sources[key] = corpus.get(row["source_id"], {"file": "?/?", "line": 0, "text": None})
        methods[row["method"]] = methods.get(row["method"], 0) + 1
    paired = {key: source for key, source in sources.items() if source}
    right = [k for k, s in paired.items() if unit_key(s) == k or s["text"] == english[k]]
    wrong = sorted(
        f"{k[0]}:{k[1]} <- {s['file']}:{s['line']} {s['text']!r}"
        for k, s in paired.items()
        if k not in right
    )
    return {
        "lines": len(english),
        "lines_read_as_units": len(targets),
        "with_source": len(paired),
        "right_source": len(right),
        "share_with_source": round(len(paired) / len(english), 4),
        "share_right_source": round(len(right) / len(english), 4),
        "methods": dict(sorted(methods.items())),
        "unpaired": sorted(
            f"{p}:{n} {english[p, n]!r}" for p, n in english if (p, n) not in paired
        ),
        "wrong_source": wrong,
    }


def check(out: Path, run_root: Path, docs: list[CardDoc], langs) -> dict:
    results = {}
    for lang in sorted(langs):
        run_dir = Path(run_root) / lang
        run = run_rulings([Path(out) / "en", Path(out) / lang], run_dir)
        corpus = read_jsonl(run_dir / "corpus.jsonl")
        formats: dict[str, int] = {}
        for row in corpus:
            formats[row.get("format")] = formats.get(row.get("format"), 0) + 1
        results[lang] = pairing(run_dir, docs, lang) | {"run": run, "formats": formats}
    return results


def markdown(data: dict) -> str:
    header = ["lang", "lines", "read as units", "with a source", "right source", "methods"]
    rows = [
        [
            lang,
            r["lines"],
            r["lines_read_as_units"],
            f"{r['with_source']} ({100 * r['share_with_source']:.1f}%)",
            f"{r['right_source']} ({100 * r['share_right_source']:.1f}%)",
            ", ".join(f"{k} {v}" for k, v in r["methods"].items()),
        ]
        for lang, r in data["pairing"].items()
    ]
    out = [
        "# Card documents: line pairing",
        "",
        f"Produced by `python benchmarks/card_documents.py OUT --sets {data['sets']} --langs "
        f"{data['langs']} --check RUN_DIR`: `rulings run OUT/en OUT/<lang>`, one card line = one "
        "paragraph. Right source: the same card's line, or an English line with the same text.",
        "",
        md_table(header, rows),
        "Cards kept, and skipped for a different number of lines:",
        "",
        md_table(
            ["lang/set", "kept", "skipped"],
            [[key, v["kept"], v["line_count"]] for key, v in data["skipped"].items()],
        ),
    ]
    for lang, r in data["pairing"].items():
        out += [f"## {lang}: lines without a source ({len(r['unpaired'])})", ""]
        out += [f"- `{line}`" for line in r["unpaired"]]
        out += ["", f"## {lang}: lines paired with another line ({len(r['wrong_source'])})", ""]
        out += [f"- `{line}`" for line in r["wrong_source"]]
        out.append("")
    out.append(f"Machine: `{json.dumps(data['machine'], sort_keys=True)}`")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sets", default=",".join(DEFAULT_SETS))
    parser.add_argument("--langs", default=",".join(LANGUAGES))
    parser.add_argument("--check", type=Path, metavar="RUN_DIR")
    args = parser.parse_args(argv)
    shared = shared_or_exit()
    sets, langs = args.sets.split(","), args.langs.split(",")
    docs, skipped = load_cards(sets, langs, shared)
    write_documents(args.out, docs, skipped)
    for key, counts in sorted(skipped.items()):
        print(
            f"{key}: {counts['kept']} cards written, {counts['line_count']} skipped "
            "(different number of lines)"
        )
    if args.check:
        data = {
            "sets": args.sets,
            "langs": args.langs,
            "skipped": skipped,
            "pairing": check(args.out, args.check, docs, langs),
            "machine": machine(),
        }
        for lang, r in data["pairing"].items():
            print(
                f"{lang}: {r['with_source']}/{r['lines']} lines with a source, "
                f"{r['right_source']} with the right one"
            )
        write_results("card_documents", data, markdown(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
