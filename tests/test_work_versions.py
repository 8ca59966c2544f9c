"""A work-cache key carries its kind's version, not a digest of the package (a docstring fix
keeps every user's cache): a change to the code that computes a kind of unit must come with
a bumped version, or with the recorded digest updated when the results stay the same
(``tools/work_versions.py``, ``docs/work.md``)."""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))

import work_versions


@pytest.mark.slow
def test_the_code_of_each_kind_of_unit_changed_only_with_its_version() -> None:
    now, then = work_versions.current(), work_versions.recorded()
    stale = [
        f"{kind}: the code changed (version still {found['version']}): bump the kind's version "
        "if what it computes changed, then run python tools/work_versions.py --update"
        for kind, found in now.items()
        if then.get(kind, {}).get("version") == found["version"]
        and then[kind]["code"] != found["code"]
    ]
    unrecorded = [
        f"{kind}: version {found['version']} not recorded: python tools/work_versions.py --update"
        for kind, found in now.items()
        if then.get(kind, {}).get("version") != found["version"]
    ]
    assert stale + unrecorded == []


def test_a_docstring_is_not_code(tmp_path) -> None:
    import ast

    one = ast.parse('def f():\n    """Says one thing."""\n    return 1\n')
    other = ast.parse('def f():\n    """Says another."""\n    # and a comment\n    return 1\n')
    strip = work_versions._without_docstrings
    assert ast.dump(strip(one)) == ast.dump(strip(other))
