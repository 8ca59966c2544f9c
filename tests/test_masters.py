"""``pipelines.masters``: fetching the English masters, against a local HTTP server only.

The server serves the files under ``tests/fixtures/masters/`` (the MTGJSON set gzipped and its
checksum computed here), answers Range requests (with If-Range), and can drop a connection
halfway, ignore Range, or publish a wrong checksum. Nothing here touches the internet.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pipelines import masters
from pipelines.masters import FetchError, fetch, resolve_masters

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "masters"
CR_PATH = "/media/MagicCompRules%2020240802.txt"


@dataclass
class Request:
    path: str
    range: str | None
    if_range: str | None
    status: int


@dataclass
class Behaviour:
    routes: dict[str, bytes] = field(default_factory=dict)
    drops: dict[str, int] = field(default_factory=dict)  # path -> connections to cut halfway
    ignore_range: set[str] = field(default_factory=set)
    requests: list[Request] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]


class MastersServer(ThreadingHTTPServer):
    daemon_threads = True
    behaviour: Behaviour


class Handler(BaseHTTPRequestHandler):
    """Serves ``behaviour.routes`` with Range support, and misbehaves on request."""

    server: MastersServer

    def do_GET(self) -> None:
        behaviour = self.server.behaviour
        path = urlsplit(self.path).path
        asked = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        body = behaviour.routes.get(path)
        if body is None:
            behaviour.requests.append(Request(path, asked, if_range, 404))
            self.send_error(404)
            return
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        start = 0
        honour = asked and path not in behaviour.ignore_range and if_range in (None, etag)
        if honour:
            match = re.fullmatch(r"bytes=(\d+)-", asked)
            assert match, asked
            start = int(match.group(1))
            if start >= len(body):
                behaviour.requests.append(Request(path, asked, if_range, 416))
                self.send_error(416)
                return
        status = 206 if honour else 200
        behaviour.requests.append(Request(path, asked, if_range, status))
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body) - start))
        self.send_header("ETag", etag)
        if honour:
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        self.end_headers()
        payload = body[start:]
        if behaviour.drops.get(path, 0) > 0:
            behaviour.drops[path] -= 1
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def http_server() -> Iterator[MastersServer]:
    server = MastersServer(("127.0.0.1", 0), Handler)
    server.behaviour = Behaviour()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(5)


@dataclass
class Site:
    base: str
    behaviour: Behaviour
    urls: dict[str, str]
    tsp: bytes  # the set file as served before gzip
    tsp_gz: bytes


@pytest.fixture
def site(http_server: MastersServer, monkeypatch: pytest.MonkeyPatch) -> Site:
    """Fresh routes for one test: MTGJSON TSP (gzipped) and PLC (plain), Scryfall, the CR."""
    monkeypatch.setenv("no_proxy", "*")  # never send 127.0.0.1 to a proxy of the environment
    monkeypatch.setattr(masters, "RETRY_DELAY", 0.0)
    for kind in masters.KINDS:
        monkeypatch.delenv(masters.URL_ENV.format(kind.upper()), raising=False)
    host, port = http_server.server_address[:2]
    base = f"http://{host}:{port}"
    tsp = (FIXTURES / "TSP.json").read_bytes()
    tsp_gz = gzip.compress(tsp, mtime=0)
    plc = tsp.replace(b'"TSP"', b'"PLC"').replace(b"Time Spiral", b"Planar Chaos")
    rulings = (FIXTURES / "rulings.json").read_bytes()
    cards = (FIXTURES / "oracle-cards.json").read_bytes()

    def filled(name: str) -> bytes:
        return (FIXTURES / name).read_bytes().replace(b"{BASE}", base.encode())

    behaviour = Behaviour(
        routes={
            "/mtgjson/TSP.json.gz": tsp_gz,
            "/mtgjson/TSP.json.gz.sha256": sha256(tsp_gz).encode() + b"\n",
            "/mtgjson/PLC.json": plc,
            "/mtgjson/PLC.json.sha256": sha256(plc).encode(),
            "/scryfall/bulk-data": filled("bulk-data.json"),
            "/files/rulings-20240801210042.json": rulings,
            "/files/oracle-cards-20240802090518.json": cards,
            "/files/default-cards-20240802090958.json": cards,
            "/rules": filled("rules.html"),
            CR_PATH: (FIXTURES / "MagicCompRules-20240802.txt").read_bytes(),
        }
    )
    http_server.behaviour = behaviour
    urls = {"mtgjson": f"{base}/mtgjson", "scryfall": f"{base}/scryfall", "cr": f"{base}/rules"}
    return Site(base, behaviour, urls, tsp, tsp_gz)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listing(root: Path) -> list[str]:
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())


# --- MTGJSON --------------------------------------------------------------------------------


def test_fetch_mtgjson_set_verifies_and_decompresses(site: Site, tmp_path: Path) -> None:
    calls: list[tuple[str, int, int | None]] = []
    paths = fetch(
        "mtgjson",
        ["tsp"],
        tmp_path,
        base_urls=site.urls,
        progress=lambda label, done, total: calls.append((label, done, total)),
    )
    target = tmp_path / "masters" / "mtgjson" / "TSP.json"
    assert paths == [target]
    assert target.read_bytes() == site.tsp
    assert json.loads(target.read_text("utf-8"))["data"]["code"] == "TSP"
    meta = json.loads((target.parent / ".TSP.json.meta.json").read_text())
    assert meta["url"] == f"{site.urls['mtgjson']}/TSP.json.gz"
    assert meta["sha256"] == sha256(site.tsp_gz)
    assert meta["verified"] is True
    assert meta["size"] == len(site.tsp)
    assert meta["etag"]
    assert calls[-1] == ("TSP.json.gz", len(site.tsp_gz), len(site.tsp_gz))
    assert listing(tmp_path) == ["masters/mtgjson/.TSP.json.meta.json", "masters/mtgjson/TSP.json"]


def test_a_complete_file_is_not_downloaded_again(site: Site, tmp_path: Path) -> None:
    fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    site.behaviour.requests.clear()
    assert fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls) == [
        tmp_path / "masters" / "mtgjson" / "TSP.json"
    ]
    assert site.behaviour.paths() == ["/mtgjson/TSP.json.gz.sha256"]


def test_a_new_published_version_is_downloaded(site: Site, tmp_path: Path) -> None:
    fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    newer = site.tsp.replace(b"2024-08-02", b"2024-09-13")
    packed = gzip.compress(newer, mtime=0)
    site.behaviour.routes["/mtgjson/TSP.json.gz"] = packed
    site.behaviour.routes["/mtgjson/TSP.json.gz.sha256"] = sha256(packed).encode()
    [path] = fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    assert path.read_bytes() == newer


def test_plain_json_when_no_gzip_is_published(site: Site, tmp_path: Path) -> None:
    [path] = fetch("mtgjson", ["PLC"], tmp_path, base_urls=site.urls)
    assert json.loads(path.read_bytes())["data"]["name"] == "Planar Chaos"
    assert "/mtgjson/PLC.json.gz" in site.behaviour.paths()  # tried first, 404


def test_base_url_from_the_environment(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULINGS_MASTERS_URL_MTGJSON", site.urls["mtgjson"] + "/")
    [path] = fetch("mtgjson", ["TSP"], tmp_path)
    assert path.read_bytes() == site.tsp


# --- resuming -------------------------------------------------------------------------------


def test_a_dropped_connection_is_resumed_with_range(site: Site, tmp_path: Path) -> None:
    site.behaviour.drops["/mtgjson/TSP.json.gz"] = 1
    [path] = fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    assert path.read_bytes() == site.tsp
    downloads = [r for r in site.behaviour.requests if r.path == "/mtgjson/TSP.json.gz"]
    half = len(site.tsp_gz) // 2
    assert [(r.range, r.status) for r in downloads] == [(None, 200), (f"bytes={half}-", 206)]
    assert downloads[1].if_range  # the ETag of the first response guards the resume


def test_the_next_fetch_resumes_a_broken_download(site: Site, tmp_path: Path) -> None:
    site.behaviour.drops["/mtgjson/TSP.json.gz"] = masters.ATTEMPTS
    with pytest.raises(FetchError) as caught:
        fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    message = str(caught.value)
    assert "broke off" in message and "run the fetch again to resume" in message
    assert "\n" not in message
    folder = tmp_path / "masters" / "mtgjson"
    kept = (folder / ".TSP.json.gz.part").stat().st_size  # each attempt got half of the rest
    assert 0 < kept < len(site.tsp_gz)
    assert not (folder / "TSP.json").exists()

    site.behaviour.requests.clear()
    [path] = fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    assert path.read_bytes() == site.tsp
    [download] = [r for r in site.behaviour.requests if r.path == "/mtgjson/TSP.json.gz"]
    assert (download.range, download.status) == (f"bytes={kept}-", 206)
    assert listing(folder) == [".TSP.json.meta.json", "TSP.json"]


def test_a_server_that_ignores_range_gets_a_full_download(site: Site, tmp_path: Path) -> None:
    site.behaviour.drops["/mtgjson/TSP.json.gz"] = 1
    site.behaviour.ignore_range.add("/mtgjson/TSP.json.gz")
    [path] = fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    assert path.read_bytes() == site.tsp
    downloads = [r for r in site.behaviour.requests if r.path == "/mtgjson/TSP.json.gz"]
    assert [(r.range is not None, r.status) for r in downloads] == [(False, 200), (True, 200)]


def test_a_changed_file_is_not_resumed(site: Site, tmp_path: Path) -> None:
    """If-Range: a partial file of the old version is replaced, not completed with the new."""
    rulings_path = "/files/rulings-20240801210042.json"
    site.behaviour.drops[rulings_path] = masters.ATTEMPTS
    with pytest.raises(FetchError, match="broke off"):
        fetch("scryfall", ["rulings"], tmp_path, base_urls=site.urls)
    changed = site.behaviour.routes[rulings_path].replace(b"haste", b"HASTE")
    site.behaviour.routes[rulings_path] = changed
    [path] = fetch("scryfall", ["rulings"], tmp_path, base_urls=site.urls)
    assert path.read_bytes() == changed
    last = [r for r in site.behaviour.requests if r.path == rulings_path][-1]
    assert last.range and last.if_range and last.status == 200


# --- failures -------------------------------------------------------------------------------


def test_a_wrong_checksum_deletes_the_download(site: Site, tmp_path: Path) -> None:
    site.behaviour.routes["/mtgjson/TSP.json.gz.sha256"] = b"0" * 64 + b"  TSP.json.gz\n"
    with pytest.raises(FetchError, match=r"^checksum mismatch for TSP\.json\.gz: "):
        fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    assert listing(tmp_path) == []


def test_a_checksum_that_is_no_digest(site: Site, tmp_path: Path) -> None:
    site.behaviour.routes["/mtgjson/TSP.json.gz.sha256"] = b"<html>oops</html>"
    with pytest.raises(FetchError, match="not a SHA-256 digest"):
        fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)


def test_a_file_that_is_not_gzip(site: Site, tmp_path: Path) -> None:
    site.behaviour.routes["/mtgjson/TSP.json.gz"] = site.tsp
    site.behaviour.routes["/mtgjson/TSP.json.gz.sha256"] = sha256(site.tsp).encode()
    with pytest.raises(FetchError, match="not a valid gzip file"):
        fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    assert listing(tmp_path) == []


def test_an_unknown_set_is_a_404(site: Site, tmp_path: Path) -> None:
    with pytest.raises(FetchError) as caught:
        fetch("mtgjson", ["XYZ"], tmp_path, base_urls=site.urls)
    assert str(caught.value).startswith("no MTGJSON file named XYZ (")


@pytest.mark.parametrize("kind", ["mtgjson", "scryfall", "cr"])
def test_offline_is_one_clear_line(tmp_path: Path, kind: str, site: Site) -> None:
    port = closed_port()
    urls = {kind: f"http://127.0.0.1:{port}/x"}
    with pytest.raises(FetchError) as caught:
        fetch(kind, ["TSP"] if kind == "mtgjson" else [], tmp_path, base_urls=urls)
    assert str(caught.value) == (
        f"cannot reach 127.0.0.1:{port}: Connection refused (are you offline?)"
    )


def test_a_full_disk(site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(_handle: object, _chunk: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(masters, "_write", full)
    with pytest.raises(FetchError, match=r"^disk full while writing .*mtgjson: free some space"):
        fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)


@pytest.mark.parametrize(
    ("kind", "names", "message"),
    [
        ("mtgjsn", ["TSP"], "unknown masters kind 'mtgjsn' (choose mtgjson, scryfall, cr)"),
        ("mtgjson", ["../etc"], "'../etc' is not an MTGJSON set code"),
        ("mtgjson", [], "name the MTGJSON files to fetch"),
        ("scryfall", ["all cards"], "'all cards' is not a Scryfall bulk file type"),
        ("scryfall", ["art_crops"], "no Scryfall bulk file of type art_crops (available: "),
        ("cr", ["2024"], "`cr` takes no names"),
    ],
)
def test_bad_kinds_and_names(
    site: Site, tmp_path: Path, kind: str, names: list[str], message: str
) -> None:
    with pytest.raises(FetchError) as caught:
        fetch(kind, names, tmp_path, base_urls=site.urls)
    assert str(caught.value).startswith(message)


# --- Scryfall and the Comprehensive Rules ---------------------------------------------------


def test_fetch_scryfall_rulings_and_oracle_cards(site: Site, tmp_path: Path) -> None:
    paths = fetch("scryfall", [], tmp_path, base_urls=site.urls)
    folder = tmp_path / "masters" / "scryfall"
    assert paths == [folder / "rulings.json", folder / "oracle_cards.json"]
    assert json.loads(paths[0].read_bytes())[0]["object"] == "ruling"
    assert json.loads(paths[1].read_bytes())[0]["name"] == "Epochrasite"
    meta = json.loads((folder / ".rulings.json.meta.json").read_text())
    assert meta["updated_at"] == "2024-08-01T21:00:42.453+00:00"
    assert meta["size"] == meta["scryfall_size"] == 494
    assert meta["verified"] is False

    site.behaviour.requests.clear()
    fetch("scryfall", [], tmp_path, base_urls=site.urls)
    assert site.behaviour.paths() == ["/scryfall/bulk-data"]  # both files are current

    index = site.behaviour.routes["/scryfall/bulk-data"]
    site.behaviour.routes["/scryfall/bulk-data"] = index.replace(b"2024-08-01T21", b"2024-08-02T21")
    fetch("scryfall", [], tmp_path, base_urls=site.urls)
    assert site.behaviour.paths()[-1] == "/files/rulings-20240801210042.json"


def test_fetch_the_comprehensive_rules(site: Site, tmp_path: Path) -> None:
    [path] = fetch("cr", [], tmp_path, base_urls=site.urls)
    assert path == tmp_path / "masters" / "cr" / "MagicCompRules_20240802.txt"
    assert path.read_bytes() == site.behaviour.routes[CR_PATH]
    assert site.behaviour.paths() == ["/rules", CR_PATH]  # the first .txt rules link only


def test_a_hostile_cr_link_stays_in_the_cache(site: Site, tmp_path: Path) -> None:
    evil = "/media/..%2F..%2F..%2Fescaped%2FMagicCompRules%20x.txt"
    site.behaviour.routes["/rules"] = f'<a href="{evil}">rules</a>'.encode()
    site.behaviour.routes[evil] = b"100.1. Rules.\r\n"
    [path] = fetch("cr", [], tmp_path / "cache", base_urls=site.urls)
    assert path == tmp_path / "cache" / "masters" / "cr" / "MagicCompRules_x.txt"
    assert listing(tmp_path) == [
        "cache/masters/cr/.MagicCompRules_x.txt.meta.json",
        "cache/masters/cr/.current.json",
        "cache/masters/cr/MagicCompRules_x.txt",
    ]


def test_a_rules_page_without_the_link(site: Site, tmp_path: Path) -> None:
    site.behaviour.routes["/rules"] = b'<a href="/media/MagicCompRules.pdf">PDF</a>'
    with pytest.raises(FetchError, match="found no link to a MagicCompRules"):
        fetch("cr", [], tmp_path, base_urls=site.urls)


# --- --masters ------------------------------------------------------------------------------


def test_resolve_masters_before_and_after_a_fetch(site: Site, tmp_path: Path) -> None:
    with pytest.raises(FetchError) as caught:
        resolve_masters("mtgjson:TSP,PLC", tmp_path)
    assert "run `rulings fetch mtgjson TSP PLC` first" in str(caught.value)
    with pytest.raises(FetchError, match="run `rulings fetch scryfall` first"):
        resolve_masters("scryfall", tmp_path)
    with pytest.raises(FetchError, match="run `rulings fetch cr` first"):
        resolve_masters("cr", tmp_path)
    with pytest.raises(FetchError, match="run `rulings fetch mtgjson TSP` first"):
        resolve_masters("mtgjson", tmp_path)
    assert site.behaviour.requests == []  # resolving never downloads

    fetch("mtgjson", ["TSP", "PLC"], tmp_path, base_urls=site.urls)
    fetch("scryfall", [], tmp_path, base_urls=site.urls)
    fetch("cr", [], tmp_path, base_urls=site.urls)
    cache = tmp_path / "masters"
    assert resolve_masters("mtgjson:tsp, PLC", tmp_path) == [
        cache / "mtgjson" / "TSP.json",
        cache / "mtgjson" / "PLC.json",
    ]
    assert resolve_masters("mtgjson", tmp_path) == [
        cache / "mtgjson" / "PLC.json",
        cache / "mtgjson" / "TSP.json",
    ]
    assert resolve_masters("scryfall", tmp_path) == [
        cache / "scryfall" / "rulings.json",
        cache / "scryfall" / "oracle_cards.json",
    ]
    assert resolve_masters("cr", tmp_path) == [cache / "cr" / "MagicCompRules_20240802.txt"]
    with pytest.raises(FetchError, match="MTGJSON FUT not in the cache"):
        resolve_masters("mtgjson:TSP,FUT", tmp_path)


def test_resolve_masters_paths(tmp_path: Path) -> None:
    assert resolve_masters(str(tmp_path), tmp_path / "cache") == [tmp_path]
    with pytest.raises(FetchError, match="no such file or folder"):
        resolve_masters(str(tmp_path / "absent.json"), tmp_path / "cache")


def test_a_cut_file_in_the_cache_is_not_resolved(site: Site, tmp_path: Path) -> None:
    [path] = fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(FetchError, match="run `rulings fetch mtgjson TSP` first"):
        resolve_masters("mtgjson:TSP", tmp_path)
    site.behaviour.requests.clear()
    fetch("mtgjson", ["TSP"], tmp_path, base_urls=site.urls)
    assert path.read_bytes() == site.tsp
