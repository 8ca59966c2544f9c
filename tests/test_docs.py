"""The generated documentation is up to date with the code, and the catalogue is whole."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pipelines.catalogue import CATALOGUE, CHECK, TABLE
from pipelines.check.registry import CHECKS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from generate_checks_doc import PAGES, TARGET, render, render_pages  # noqa: E402
from generate_cli_doc import TARGET as CLI_TARGET  # noqa: E402
from generate_cli_doc import render as render_cli  # noqa: E402
from generate_config_doc import TARGET as CONFIG_TARGET  # noqa: E402
from generate_config_doc import render as render_config  # noqa: E402


def test_checks_doc_is_current():
    assert TARGET.read_text(encoding="utf-8") == render(), (
        "docs/checks.md is out of date: run python tools/generate_checks_doc.py"
    )


def test_every_code_has_its_current_page_and_no_page_is_left_over():
    pages = render_pages()
    assert set(PAGES.glob("*.md")) == set(pages), (
        "docs/checks/ has pages of codes that are gone, or lacks some: run "
        "python tools/generate_checks_doc.py"
    )
    for path, text in pages.items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name} is out of date: run python tools/generate_checks_doc.py"
        )


def test_cli_doc_is_current():
    assert CLI_TARGET.read_text(encoding="utf-8") == render_cli(), (
        "docs/cli.md is out of date: run python tools/generate_cli_doc.py"
    )


def test_configuration_doc_is_current():
    assert CONFIG_TARGET.read_text(encoding="utf-8") == render_config(), (
        "docs/configuration.md is out of date: run python tools/generate_config_doc.py"
    )


def test_every_code_is_well_formed():
    for row in TABLE:
        assert row.summary.endswith(".") and len(row.summary.split()) >= 5, row.code
        assert row.code[:-3].isalpha() and row.code[-3:].isdigit(), row.code
        assert all(covered in CATALOGUE for covered in row.covers), row.code


def test_every_check_code_has_its_check_and_every_check_its_code():
    check_codes = {row.code for row in TABLE if row.stage == CHECK}
    assert set(CHECKS.names()) == check_codes
    for entry in CHECKS:
        assert entry.target.__doc__ and len(entry.target.__doc__.split()) >= 8, entry.name


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
NOT_YET: set = set()
"""Pages another change writes, linked before they land (none now)."""


def test_every_relative_link_of_the_docs_leads_to_a_file_of_the_repository():
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "CHANGELOG.md"]
    broken = []
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            path = (page.parent / target).resolve()
            if not path.is_relative_to(ROOT):
                broken.append(f"{page.relative_to(ROOT)}: {target} is outside the repository")
            elif not path.exists() and path not in NOT_YET:
                broken.append(f"{page.relative_to(ROOT)}: {target} does not exist")
    assert broken == []
