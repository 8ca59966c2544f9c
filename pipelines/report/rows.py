"""Findings as flat rows for spreadsheets: the ``review`` table of the Python API
(``pipelines.api``), with missing values as empty cells and the evidence as JSON."""

from __future__ import annotations

import json

import pandas as pd

from ..api import REVIEW_COLUMNS, frames
from ..tables import RunTables

COLUMNS = REVIEW_COLUMNS


def review_table(run: RunTables) -> pd.DataFrame:
    """The review rows, most severe first, every cell a string or an int (or empty)."""
    review = frames(run).review.astype(object)
    review["evidence"] = review["evidence"].map(
        lambda evidence: json.dumps(evidence, ensure_ascii=False, sort_keys=True)
    )
    return review.where(review.notna(), "")


def finding_rows(run: RunTables) -> list[dict[str, object]]:
    """One dict per finding, in the review order."""
    return review_table(run).to_dict("records")
