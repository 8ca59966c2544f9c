"""``rulings fetch`` and ``rulings run --masters``: the README's masters example, as written,
against a local HTTP server that publishes MTGJSON set files the way mtgjson.com does (gzipped,
with a SHA-256 beside each). Nothing here touches the internet."""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import CORPUS, FIXTURES, shared_path

from pipelines.cli import main
from pipelines.masters import URL_ENV

HYPERGENESIS = "000_40e512ac1ae253c1.txt"
MTGJSON_SETS = ("TSP", "PLC", "FUT")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def publish(folder: Path, sets: dict[str, bytes]) -> None:
    """MTGJSON's layout: ``NAME.json.gz`` and ``NAME.json.gz.sha256``."""
    for name, data in sets.items():
        packed = gzip.compress(data, mtime=0)
        (folder / f"{name}.json.gz").write_bytes(packed)
        (folder / f"{name}.json.gz.sha256").write_text(hashlib.sha256(packed).hexdigest())


@pytest.fixture
def mtgjson_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A local MTGJSON: publish files into the folder it yields."""
    root = tmp_path / "site"
    root.mkdir()
    handler = functools.partial(QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv(URL_ENV.format("MTGJSON"), f"http://{host}:{port}")
    yield root
    server.shutdown()
    server.server_close()


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.model
def test_fetch_then_run_with_the_masters(mtgjson_site: Path, tmp_path: Path) -> None:
    publish(mtgjson_site, {"TSP": (FIXTURES / "masters" / "TSP.json").read_bytes()})
    cache = tmp_path / "cache"
    fetched = invoke("fetch", "mtgjson", "TSP", "--cache-dir", str(cache))
    assert fetched.exit_code == 0, fetched.output
    stored = cache / "masters" / "mtgjson" / "TSP.json"
    assert stored.read_bytes() == (FIXTURES / "masters" / "TSP.json").read_bytes()
    assert "--masters mtgjson:TSP" in fetched.stdout and fetched.stderr == ""

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(CORPUS / HYPERGENESIS, corpus / HYPERGENESIS)
    out = tmp_path / "out"
    args = ["run", str(corpus), "--out", str(out), "--cache-dir", str(cache)]
    done = invoke(*args, "--masters", "mtgjson:TSP")
    assert done.exit_code in (0, 1), done.output
    masters = [r for r in read_jsonl(out / "corpus.jsonl") if r["format"] == "mtgjson"]
    assert {r["card"] for r in masters} == {"Hypergenesis"} and len(masters) == 2
    sources = {a["source_id"] for a in read_jsonl(out / "alignment.jsonl") if a["target_id"]}
    assert {r["id"] for r in masters} & sources


def test_masters_not_fetched_stop_the_run_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = invoke(
        "run",
        str(CORPUS),
        "--out",
        str(out),
        "--cache-dir",
        str(tmp_path),
        "--masters",
        "mtgjson:PLC",
    )
    assert done.exit_code == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("rulings: error: MTGJSON PLC not in the cache")
    assert "rulings fetch mtgjson PLC" in line
    assert not out.exists()


def test_a_failed_fetch_is_one_line(mtgjson_site: Path, tmp_path: Path) -> None:
    done = invoke("fetch", "mtgjson", "XYZ", "--cache-dir", str(tmp_path))
    assert done.exit_code == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("rulings: error: ") and "XYZ" in line
    assert not list((tmp_path / "masters").rglob("*.json"))


@pytest.mark.shared
@pytest.mark.model
def test_the_readme_masters_example_as_written(
    mtgjson_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a fresh clone: `rulings fetch mtgjson TSP PLC FUT`, then
    `rulings run corpus --masters mtgjson:TSP,PLC,FUT --out reports-with-masters`."""
    mtgjson = shared_path("data", "mtgjson")
    publish(mtgjson_site, {name: (mtgjson / f"{name}.json").read_bytes() for name in MTGJSON_SETS})
    clone = tmp_path / "clone"
    shutil.copytree(CORPUS, clone / "corpus")
    monkeypatch.chdir(clone)
    fetched = invoke("fetch", "mtgjson", "TSP", "PLC", "FUT")
    assert fetched.exit_code == 0, fetched.output
    done = invoke(
        "run", "corpus", "--masters", "mtgjson:TSP,PLC,FUT", "--out", "reports-with-masters"
    )
    assert done.exit_code in (0, 1), done.output
    out = clone / "reports-with-masters"
    rulings = read_jsonl(out / "corpus.jsonl")
    english = [r for r in rulings if r["format"] == "mtgjson"]
    assert len({r["file"] for r in english}) == 3 and len(english) > 1000
    codes = {f["code"] for f in read_jsonl(out / "findings.jsonl")}
    assert "MISS001" in codes  # English rulings without a translation: only with the masters
    assert (out / "report.html").is_file()
