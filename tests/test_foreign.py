"""Documents in languages outside --languages are reported as such, never read as a candidate."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pipelines.cli import main
from pipelines.ingest import foreign
from pipelines.ingest.foreign import ForeignLanguages, foreign_language
from pipelines.model import Ruling
from pipelines.store import Store
from pipelines.work import Cache

FRENCH = "\n".join(
    [
        "Hypergenèse",
        "",
        "15/10/2006 Tout ce qui se déclenche pendant la résolution attendra d'être mis sur la "
        "pile jusqu'à ce que tout ait été mis sur le champ de bataille.",
        "",
        "19/03/2021 Le processus se termine lorsque chaque joueur (en commençant par vous) "
        "choisit de ne pas mettre de carte sur le champ de bataille pendant un tour complet.",
    ]
)
JAPANESE = "\n".join(
    [
        "ハイパージェネシス",
        "",
        "2006/10/15 これの解決中に誘発したものは、すべてが戦場に出てこの処理が完了するまで"
        "スタックに置かれるのを待つ。",
    ]
)
SPANISH_SHORT = "Envolver en vigor\n\nRegenera cada criatura que controlas.\n"


def _units(*texts: str) -> list[Ruling]:
    return [
        Ruling(f"f:{n}", "f", n, "plain", None, None, None, "en", "en", [], None, None, text)
        for n, text in enumerate(texts)
    ]


def test_a_french_or_japanese_document_is_told_apart():
    assert foreign_language(_units(*FRENCH.splitlines()[2:]), ("en", "es", "zh")) == "fr"
    assert foreign_language(_units(*JAPANESE.splitlines()), ("en", "es", "zh")) == "ja"


def test_short_or_candidate_documents_are_not():
    languages = ("en", "es", "zh")
    assert foreign_language(_units(*SPANISH_SHORT.splitlines()), languages) is None
    assert foreign_language(_units("每当你施放咒语时，抓一张牌。"), languages) is None
    english = "If a spell would be countered, exile it instead. It doesn't go to the graveyard."
    assert foreign_language(_units(english, english), languages) is None
    assert foreign_language(_units(*FRENCH.splitlines()[2:]), ("en", "fr")) is None


def test_spanish_that_lingua_alone_takes_for_portuguese_is_spanish():
    """Claim the Firstborn (ELD, a tuning set): lingua is 0.94 sure of Portuguese; langdetect
    says Spanish, and a document is another language only when both say so. A Portuguese
    printing of the same card is still told."""
    spanish = [
        "Reclamar al primogénito",
        "Gana el control de la criatura objetivo con coste de maná convertido de 3 o menos "
        "hasta el final del turno. Endereza esa criatura. Gana la habilidad de prisa hasta el "
        "final del turno.",
    ]
    portuguese = [
        "Reivindicar o Primogênito",
        "Ganhe o controle da criatura alvo com custo de mana convertido igual ou inferior a 3 "
        "até o final do turno. Desvire aquela criatura. Ela ganha ímpeto até o final do turno.",
    ]
    assert foreign_language(_units(*spanish), ("en", "es", "zh")) is None
    assert foreign_language(_units(*portuguese), ("en", "es", "zh")) == "pt"


@pytest.mark.model
def test_a_french_file_is_reported_and_not_used_as_a_source(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "fr.txt").write_text(FRENCH, encoding="utf-8")
    (inputs / "ja.txt").write_text(JAPANESE, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(inputs), "--out", str(out)])
    assert result.exit_code in (0, 1), result.output
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert {(r["file"], r["lang"], r["doc_kind"]) for r in corpus} == {
        ("fr.txt", "fr", "other"),
        ("ja.txt", "ja", "other"),
    }
    findings = [json.loads(line) for line in (out / "findings.jsonl").read_text().splitlines()]
    messages = {f["file"]: f["message"] for f in findings if f["code"] == "DOC002"}
    assert "French (fr)" in messages["fr.txt"] and "Japanese (ja)" in messages["ja.txt"]


def test_answers_are_kept_between_runs(tmp_path, monkeypatch):
    french, spanish = _units(*FRENCH.splitlines()[2:]), _units(*SPANISH_SHORT.splitlines())
    first = ForeignLanguages(Cache(Store(tmp_path)), ("en", "es", "zh"))
    assert first.answers([french, spanish]) == ["fr", None]
    first.save()

    def no_lingua(text, languages):
        raise AssertionError("asked again")

    monkeypatch.setattr(foreign, "_identify", no_lingua)
    again = ForeignLanguages(Cache(Store(tmp_path)), ("en", "es", "zh"))
    assert again.answers([french, spanish]) == ["fr", None]
    assert not (tmp_path / "langid").exists()  # kept in the work store, not a file of its own
    other_candidates = ForeignLanguages(Cache(Store(tmp_path)), ("en", "fr"))
    with pytest.raises(AssertionError, match="asked again"):
        other_candidates.answers([french])


@pytest.mark.model
def test_a_document_left_out_for_its_language_is_a_warning_a_gate_counts(tmp_path):
    """`--languages en,es` on a French file checks nothing: the run must not pass a gate at
    --fail-on warning as if it had found nothing, and its summary says so."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "fr.txt").write_text(FRENCH, encoding="utf-8")
    args = ["run", str(inputs), "--out", str(tmp_path / "out"), "--languages", "en,es"]
    result = CliRunner().invoke(main, [*args, "--fail-on", "warning"])
    assert result.exit_code == 1, result.output
    assert "1 document not checked: not in a language of --languages (DOC002)." in (
        result.stdout.splitlines()
    )
    findings = [
        json.loads(line) for line in (tmp_path / "out" / "findings.jsonl").read_text().splitlines()
    ]
    assert [(f["code"], f["severity"]) for f in findings] == [("DOC002", "warning")]
    assert CliRunner().invoke(main, args).exit_code == 0  # --fail-on error: a warning passes
