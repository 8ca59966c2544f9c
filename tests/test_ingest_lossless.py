"""Nothing is lost, on generated input: every non-blank line ends in a ruling or a finding."""

from __future__ import annotations

from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.ingest import accounted_lines, ingest_sources
from pipelines.ingest.source import SourceFile

VOCABULARY = (
    "la carta habilidad disparada suspender exiliar contador de tiempo the card triggered "
    "ability suspend exile counter 延缓 放逐 计时指示物 触发式异能 {X} +1/+1 (1) “carta” «x» …"
)
WORDS = st.sampled_from(VOCABULARY.split(" "))
SENTENCE = st.lists(WORDS, min_size=1, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
DATE = st.builds(
    lambda d, m, y: f"{d:02d}/{m:02d}/{y}",
    st.integers(1, 28),
    st.integers(1, 12),
    st.integers(1995, 2030),
)
RULE_NUMBER = st.builds(
    lambda a, b, c: f"{a}.{b}{c}", st.integers(100, 905), st.integers(1, 99),
    st.sampled_from(["", "a", "b", "k"]),
)  # fmt: skip
LINE = st.one_of(
    SENTENCE,
    DATE,
    st.builds(lambda d, s: f"{d} {s}", DATE, SENTENCE),
    st.builds(lambda n, s: f"{n} {s}", RULE_NUMBER, SENTENCE),
    st.builds(lambda n, s: f"{n}. {s}", st.integers(100, 905), SENTENCE),
    st.builds(lambda n, s: f"- {n} {s}", RULE_NUMBER, SENTENCE),
    st.builds(lambda s: f"* {s}", SENTENCE),
    st.sampled_from(["-----", "Chroma", "Glossary", "Example: the card.", "\u00a0", "", "", ""]),
    st.text(min_size=1, max_size=40),
)


def check_lossless(text: str) -> None:
    source = SourceFile.from_text("generated.txt", text)
    result = ingest_sources([source])
    assert not [f for f in result.findings if f.code == "PARSE007"], result.findings
    if source.is_json or [f for f in result.findings if f.code == "PARSE001"]:
        assert result.rulings or result.findings  # read by a JSON reader, or reported whole
        return
    covered = accounted_lines(result.rulings, result.findings)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    missing = [n for n, line in enumerate(lines, 1) if line.strip() and n not in covered]
    assert not missing


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINE, max_size=40))
def test_any_mix_of_lines_is_accounted_for(lines):
    check_lossless("\n".join(lines))


@settings(max_examples=examples(60), deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=300))
def test_arbitrary_text_is_accounted_for(text):
    check_lossless(text)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(DATE, SENTENCE), min_size=1, max_size=15))
def test_plain_block_documents_are_read_exactly(blocks):
    text = "Dicotomancia\n\n" + "\n\n".join(f"{d}\n\n{s}" for d, s in blocks) + "\n"
    result = ingest_sources([SourceFile.from_text("doc.txt", text)])
    assert [(r.date_raw, r.text) for r in result.rulings] == [
        (d, " ".join(s.split())) for d, s in blocks
    ]
    assert {r.format for r in result.rulings} == {"plain-block"}
    assert {f.category for f in result.findings} <= {"date", "card-name"}


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(DATE, SENTENCE), min_size=1, max_size=15))
def test_plain_dated_documents_are_read_exactly(rows):
    text = "Hipergénesis\n\n" + "\n\n".join(f"{d} {s}" for d, s in rows)
    result = ingest_sources([SourceFile.from_text("doc.txt", text)])
    assert [(r.date_raw, r.text) for r in result.rulings] == [
        (d, " ".join(s.split())) for d, s in rows
    ]
    assert {r.format for r in result.rulings} == {"plain-dated"}
