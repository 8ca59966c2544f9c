"""Data files the package ships: termbase, card names, month names, report template."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource_path(name: str) -> Path:
    return Path(str(resources.files(__name__).joinpath(name)))


def read_tsv(name: str) -> list[dict[str, str]]:
    """Rows of a shipped TSV file: '#' lines are comments, the first other line is the header."""
    lines = [
        line
        for line in resource_path(name).read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"), strict=False)) for line in lines[1:]]


def language_name(code: str | None) -> str:
    """English name of a language code ("es" -> "Spanish"), from the card-data table."""
    if not code:
        return "unknown"
    names = {row["lang"]: row["mtgjson"] for row in read_tsv("mtgjson_languages.tsv")}
    name = names.get(code) or names.get(code.split("-")[0]) or code
    return name.replace("Chinese Simplified", "Chinese")
