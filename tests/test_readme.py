"""The README: short, about the repository alone, its figures those of the records, and its
runnable commands running on the bundled corpus."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text("utf-8")
RUNNABLE = re.compile(r"<!-- runnable -->\s*```sh\n(.*?)```", re.DOTALL)


def test_the_readme_is_short_and_names_nothing_outside_the_repository():
    assert len(README.splitlines()) <= 200
    assert "../shared" not in README and "DESIGN.md" not in README


def test_the_readme_links_point_at_files_of_the_repository():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_the_readme_figures_are_the_records():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import readme_figures
    finally:
        sys.path.pop(0)
    assert readme_figures.rewritten(README) == README, "run python tools/readme_figures.py"


@pytest.mark.model
def test_the_readmes_runnable_commands_run_on_the_bundled_corpus(tmp_path):
    """Each command of a block marked runnable, in a copy of the bundled corpus, with this
    interpreter's rulings for ``.venv/bin/rulings``."""
    shutil.copytree(ROOT / "corpus", tmp_path / "corpus")
    commands = [
        line.split("  #")[0].strip()
        for block in RUNNABLE.findall(README)
        for line in block.splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert commands
    for command in commands:
        argv = command.replace(".venv/bin/rulings", f"{sys.executable} -m pipelines").split()
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False)
        assert done.returncode == 0, (command, done.stderr[-2000:])
    assert "57 findings" in subprocess.run(
        [sys.executable, "-m", "pipelines", "run", "--out", "again", "--fail-on", "never"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
