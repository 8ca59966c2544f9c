"""How sure each finding is: its code's judged precision times the sureness of its pair.

The priors are data (``resources/confidence.tsv``, written by ``tools/calibrate_confidence.py``
from the judged samples of the tuning data); a finding about an aligned pair (a source and
its translation) is right only if the pair is, so its code's prior is multiplied by the pair's
alignment score, which is itself calibrated as the probability that the pair is right
(``align/calibration.py``). Findings about a text alone, a document or the run keep the prior.
A check may name a finding's class in its evidence (``_class``: a TERM002 in a condensed
translation is ``condensed``); a class judged on its own has its own prior (row
``TERM002/condensed``), else the code's applies.
"""

from __future__ import annotations

from functools import cache

from ..model import Alignment, Finding
from ..resources import read_tsv

ANY_CODE = "*"
CLASS_KEY = "_class"
"""The evidence key that names a finding's class, for a prior of its own."""
DECIMALS = 3


@cache
def priors() -> dict[str, float]:
    """Code -> prior confidence (``*``: a code never judged)."""
    return {row["code"]: float(row["prior"]) for row in read_tsv("confidence.tsv")}


def with_confidence(findings: list[Finding], alignment: list[Alignment]) -> list[Finding]:
    """The findings with ``confidence`` set (the same list, the same order). Each finding's
    confidence is set in place: a stage's findings are its own records (made again with
    their confidence, 216,355 findings of a million units took 0.34-0.65 s)."""
    known = priors()
    default = known.get(ANY_CODE, 0.5)
    scores = {
        (row.source_id, row.target_id): float(row.score)
        for row in alignment
        if row.source_id and row.target_id and row.score is not None
    }
    for finding in findings:
        value = known.get(finding.code, default)
        kind = (finding.evidence or {}).get(CLASS_KEY)
        if kind:
            value = known.get(f"{finding.code}/{kind}", value)
        if finding.source_id and finding.ruling_id and finding.source_id != finding.ruling_id:
            value *= min(1.0, max(0.0, scores.get((finding.source_id, finding.ruling_id), 1.0)))
        finding.confidence = round(value, DECIMALS)
    return findings


def split_by_confidence(
    findings: list[Finding], minimum: float
) -> tuple[list[Finding], list[Finding]]:
    """(kept, set aside): the findings at or above ``minimum`` confidence, and the others."""
    if minimum <= 0:
        return findings, []
    kept = [f for f in findings if (f.confidence or 0.0) >= minimum]
    return kept, [f for f in findings if (f.confidence or 0.0) < minimum]
