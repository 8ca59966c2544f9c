"""Input ids that cannot clash (docs/contract-ids.md): however many roots and files share a
name, every input gets an id of its own, the same for the same INPUT paths, made of its path
in its root and, on a clash, of as many of the root's own last path segments as needed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipelines.ingest import ingest
from pipelines.ingest.source import _Found, discover, unique_ids

RULINGS = "Dicotomancia\n\n02/02/2024\n\nRegla {n}: las cartas exiliadas están boca arriba.\n"


def tree(root: Path, files: list[str]) -> None:
    for number, rel in enumerate(files):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(RULINGS.format(n=number), encoding="utf-8")


def ids(roots: list[Path]) -> list[str]:
    return [source.rel for source in discover(roots)]


@pytest.fixture
def here(tmp_path: Path):
    previous = Path.cwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(previous)


def test_three_roots_with_the_same_file_name_keep_every_file(here):
    tree(here, ["x/es/r.txt", "y/es/r.txt", "z/es/r.txt"])
    roots = [Path("x/es"), Path("y/es"), Path("z/es")]
    assert ids(roots) == ["x/es/r.txt", "y/es/r.txt", "z/es/r.txt"]
    result = ingest(roots)
    texts = {r.file: r.text for r in result.rulings}
    assert texts == {f"{rel}": f"Regla {n}: las cartas exiliadas están boca arriba." for n, rel in
                     enumerate(["x/es/r.txt", "y/es/r.txt", "z/es/r.txt"])}  # fmt: skip
    assert len({r.id for r in result.rulings}) == len(result.rulings)


def test_files_given_directly_are_all_qualified_on_a_clash(here):
    tree(here, ["a/r.txt", "b/r.txt", "c/r.txt", "d/other.txt"])
    files = [Path("a/r.txt"), Path("b/r.txt"), Path("c/r.txt"), Path("d/other.txt")]
    assert ids(files) == ["a/r.txt", "b/r.txt", "c/r.txt", "other.txt"]


def test_five_same_named_files_in_roots_ending_in_the_same_folders(here):
    roots = ["es", "p/es", "q/p/es", "s/q/p/es", "t/s/q/p/es"]
    tree(here, [f"{root}/r.txt" for root in roots])
    found = ids([Path(root) for root in roots])
    base = here.name
    assert found == [
        f"{base}/es/r.txt",
        f"{base}/p/es/r.txt",
        f"{base}/q/p/es/r.txt",
        f"{base}/s/q/p/es/r.txt",
        "t/s/q/p/es/r.txt",
    ]
    assert ids([Path(root) for root in roots]) == found  # the same paths, the same ids


def test_five_same_named_files_in_roots_nested_inside_each_other(here):
    nested = ["n", "n/a", "n/a/b", "n/a/b/c", "n/a/b/c/d"]
    tree(here, [f"{root}/r.txt" for root in nested])
    outermost_first = ids([Path(root) for root in nested])
    assert outermost_first == ["a/b/c/d/r.txt", "a/b/c/r.txt", "a/b/r.txt", "a/r.txt", "r.txt"]
    deepest_first = ids([Path(root) for root in reversed(nested)])
    assert deepest_first == ["d/r.txt", "c/r.txt", "b/r.txt", "a/r.txt", "n/r.txt"]
    result = ingest([Path(root) for root in reversed(nested)])
    assert sorted(r.text[:7] for r in result.rulings) == [f"Regla {n}" for n in range(5)]


def test_a_qualified_id_never_takes_another_input_s_id(here):
    """x holds r.txt and es/r.txt; y/es holds r.txt: qualifying y's r.txt with its root's
    last segment would give es/r.txt, x's own; both go one segment further."""
    tree(here, ["x/r.txt", "x/es/r.txt", "y/es/r.txt"])
    found = ids([Path("x"), Path("y/es")])
    assert len(set(found)) == 3
    assert found == ["x/es/r.txt", "x/r.txt", "y/es/r.txt"]


def test_the_same_path_given_twice_is_one_input(here):
    tree(here, ["corpus/r.txt"])
    assert ids([Path("corpus"), Path("corpus/r.txt"), Path("./corpus")]) == ["r.txt"]


def test_names_that_clash_up_to_the_root_fall_back_to_absolute_paths():
    found = [_Found(Path("/r.txt"), "r.txt", "/"), _Found(Path("/a/r.txt"), "r.txt", "/a")]
    assert unique_ids(found) == ["/r.txt", "a/r.txt"]
