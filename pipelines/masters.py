"""Downloading the English masters into the cache: MTGJSON, Scryfall, the Comprehensive Rules.

``fetch(kind, names, cache_dir)`` puts the files a user names under
``cache_dir/masters/<kind>/``; ``resolve_masters(spec, cache_dir)`` turns a ``--masters``
value (``mtgjson:TSP,PLC,FUT``, ``scryfall``, ``cr`` or a path) into the cached files, and never
downloads anything itself.

A download streams into a hidden ``.<name>.part`` file beside its target (hidden files are
never read as input), resumes it with an HTTP ``Range`` request on the next attempt (guarded by
``If-Range``, so a partial file of an older version is never completed with a newer one), is
checked against the SHA-256 MTGJSON publishes, decompressed when gzipped (streamed, bounded
memory) and renamed into place in one step. A hidden JSON sidecar per file (URL, SHA-256, size,
ETag, Last-Modified, Scryfall's ``updated_at``) lets a later fetch skip what is complete and
current. Every failure the user can meet is a ``FetchError`` with a one-line message.

Only ``urllib.request`` from the standard library; no dependency.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import http.client
import json
import os
import re
import ssl
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from . import __version__
from .files import temporary_path, write_atomic

Progress = Callable[[str, int, int | None], None]

TIMEOUT = 30.0  # seconds, per connection attempt and per read
CHUNK = 1 << 16
ATTEMPTS = 3  # an interrupted transfer is resumed this many times within one fetch
RETRY_DELAY = 1.0  # seconds between those attempts
SMALL_LIMIT = 8 << 20  # checksum files, the bulk-data index, the rules page
MAX_DECOMPRESSED = 16 << 30  # a gzip member that inflates beyond this is refused
URL_ENV = "RULINGS_MASTERS_URL_{}"  # RULINGS_MASTERS_URL_MTGJSON, _SCRYFALL, _CR
USER_AGENT = f"rulings/{__version__} (translation-consistency checker for MTG rulings)"


class FetchError(Exception):
    """A download that failed, in one line for the user."""


@dataclass(frozen=True)
class Kind:
    """A family of masters: where it lives and what its names are."""

    name: str
    label: str
    base_url: str
    names: str  # what the names are, for help texts
    summary: str


KINDS: dict[str, Kind] = {
    "mtgjson": Kind(
        "mtgjson",
        "MTGJSON",
        "https://mtgjson.com/api/v5",
        "set codes such as TSP PLC FUT, or AllPrintings",
        "MTGJSON set files or AllPrintings, checked against the published SHA-256",
    ),
    "scryfall": Kind(
        "scryfall",
        "Scryfall",
        "https://api.scryfall.com",
        "bulk file types (default: rulings oracle_cards)",
        "Scryfall's rulings bulk file with its oracle cards file",
    ),
    "cr": Kind(
        "cr",
        "Comprehensive Rules",
        "https://magic.wizards.com/en/rules",
        "none",
        "the Comprehensive Rules text linked from the rules page",
    ),
}

SCRYFALL_DEFAULT = ("rulings", "oracle_cards")
ALL_PRINTINGS = "AllPrintings"
_SET_CODE = re.compile(r"[A-Z0-9_]{2,10}")
_BULK_TYPE = re.compile(r"[a-z_]{1,40}")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_CR_MARK = "magiccomprules"


def base_url(kind: str, base_urls: Mapping[str, str] | None = None) -> str:
    """Where ``kind`` is fetched from: ``base_urls[kind]``, ``$RULINGS_MASTERS_URL_<KIND>``,
    else the public site. For ``cr`` it is the rules page that links the text."""
    _kind(kind)
    configured = (base_urls or {}).get(kind) or os.environ.get(URL_ENV.format(kind.upper()))
    url = (configured or KINDS[kind].base_url).strip()
    return url if kind == "cr" else url.rstrip("/")


def masters_dir(cache_dir: Path, kind: str) -> Path:
    return Path(cache_dir).expanduser() / "masters" / _kind(kind).name


def fetch(
    kind: str,
    names: Iterable[str],
    cache_dir: Path,
    *,
    progress: Progress | None = None,
    opener: Any = None,
    base_urls: Mapping[str, str] | None = None,
) -> list[Path]:
    """Download the masters ``names`` of ``kind`` into ``cache_dir/masters/<kind>/``.

    ``mtgjson``: set codes (``TSP``) or ``AllPrintings``, stored as ``<NAME>.json``.
    ``scryfall``: bulk file types, by default ``rulings`` and ``oracle_cards``, stored as
    ``<type>.json``. ``cr``: no names; the text linked from the rules page, under its own
    (sanitised) file name. A file already complete and current is not downloaded again.
    ``progress(label, done, total)`` is called as bytes arrive (``total`` None when unknown);
    ``opener`` is anything with urllib's ``open(request, timeout=)``. Returns the stored files.
    """
    spec = _kind(kind)
    wanted = _names(names)
    session = _Session(
        opener=opener if opener is not None else urllib.request.build_opener(),
        progress=progress,
        folder=masters_dir(cache_dir, spec.name),
        base=base_url(spec.name, base_urls),
    )
    if spec.name == "mtgjson":
        return _fetch_mtgjson(session, wanted)
    if spec.name == "scryfall":
        return _fetch_scryfall(session, wanted)
    return _fetch_cr(session, wanted)


def resolve_masters(spec: str, cache_dir: Path) -> list[Path]:
    """The files a ``--masters`` value names; never downloads.

    ``mtgjson:TSP,PLC,FUT`` (or ``mtgjson``: every cached MTGJSON file), ``scryfall`` (or
    ``scryfall:rulings,oracle_cards``), ``cr``: the cached files, or a FetchError saying which
    ``rulings fetch`` to run. Anything else is a path to a file or folder (write ``./cr`` for a
    folder named like a kind).
    """
    text = spec.strip()
    kind, colon, rest = text.partition(":")
    if kind not in KINDS:
        path = Path(text).expanduser()
        if not text or not path.exists():
            raise FetchError(
                f"--masters {text or '(empty)'}: no such file or folder "
                "(give a path, mtgjson:SETS, scryfall or cr)"
            )
        return [path]
    names = _names([rest]) if colon else []
    folder = masters_dir(cache_dir, kind)
    if kind == "mtgjson":
        canonical = [_mtgjson_name(name) for name in names]
        if not canonical:
            found = sorted(
                p for p in folder.glob("*.json") if not p.name.startswith(".") and _complete(p)
            )
            if found:
                return found
            raise FetchError(f"no MTGJSON file in the cache ({folder}); {_hint(kind, ['TSP'])}")
        paths = [folder / f"{name}.json" for name in canonical]
        missing = [name for name, path in zip(canonical, paths, strict=True) if not _complete(path)]
        if missing:
            raise FetchError(
                f"MTGJSON {', '.join(missing)} not in the cache ({folder}); {_hint(kind, missing)}"
            )
        return paths
    if kind == "scryfall":
        types = [_bulk_type(name) for name in names] or list(SCRYFALL_DEFAULT)
        paths = [folder / f"{name}.json" for name in types]
        missing = [name for name, path in zip(types, paths, strict=True) if not _complete(path)]
        if missing:
            hint = _hint(kind, [] if not names else types)
            raise FetchError(f"Scryfall {', '.join(missing)} not in the cache ({folder}); {hint}")
        return paths
    if names:
        raise FetchError("--masters cr takes no names")
    current = _read_json(folder / ".current.json") or {}
    name = current.get("name")
    if isinstance(name, str) and name == _safe_name(name) and _complete(folder / name):
        return [folder / name]
    raise FetchError(f"no Comprehensive Rules text in the cache ({folder}); {_hint(kind, [])}")


# --- the three kinds ------------------------------------------------------------------------


@dataclass
class _Session:
    opener: Any
    progress: Progress | None
    folder: Path
    base: str


def _fetch_mtgjson(session: _Session, names: list[str]) -> list[Path]:
    if not names:
        raise FetchError("name the MTGJSON files to fetch: set codes such as TSP, or AllPrintings")
    canonical = list(dict.fromkeys(_mtgjson_name(name) for name in names))
    _check_url(session.base, "MTGJSON")
    paths = []
    for name in canonical:
        final = _inside(session.folder, f"{name}.json")
        for suffix in (".json.gz", ".json"):
            url = f"{session.base}/{name}{suffix}"
            published = _get_small(session, url + ".sha256", missing_ok=True)
            digest = _parse_digest(published, name) if published is not None else None
            if digest and _current(session, final, url=url, sha256=digest):
                paths.append(final)
                break
            stored = _download(
                session,
                url,
                final,
                label=f"{name}{suffix}",
                sha256=digest,
                gunzip=suffix.endswith(".gz"),
                missing_ok=True,
            )
            if stored is not None:
                paths.append(stored)
                break
        else:
            raise FetchError(
                f"no MTGJSON file named {name} (nothing at {session.base}/{name}.json.gz)"
            )
    return paths


def _fetch_scryfall(session: _Session, names: list[str]) -> list[Path]:
    types = list(dict.fromkeys(_bulk_type(name) for name in names)) or list(SCRYFALL_DEFAULT)
    index_url = f"{session.base}/bulk-data"
    _check_url(index_url, "Scryfall")
    body = _get_small(session, index_url, missing_ok=True)
    if body is None:
        raise FetchError(f"no Scryfall bulk-data index at {index_url}")
    entries = _bulk_entries(body, index_url)
    paths = []
    for kind in types:
        entry = entries.get(kind)
        if entry is None:
            available = ", ".join(sorted(entries)) or "none"
            raise FetchError(f"no Scryfall bulk file of type {kind} (available: {available})")
        uri = entry.get("download_uri")
        if not isinstance(uri, str) or not uri:
            raise FetchError(f"the Scryfall bulk-data index gives no download_uri for {kind}")
        uri = urljoin(index_url, uri)
        _check_url(uri, "Scryfall")
        updated = entry.get("updated_at")
        final = _inside(session.folder, f"{kind}.json")
        if _current(session, final, url=uri, updated_at=updated):
            paths.append(final)
            continue
        stored = _download(
            session,
            uri,
            final,
            label=f"{kind}.json",
            sha256=None,
            gunzip=urlsplit(uri).path.endswith(".gz"),
            missing_ok=True,
            extra={"updated_at": updated, "scryfall_size": entry.get("size")},
        )
        if stored is None:
            raise FetchError(
                f"Scryfall's {kind} file is gone (HTTP 404 at {uri}); run the fetch again"
            )
        paths.append(stored)
    return paths


def _fetch_cr(session: _Session, names: list[str]) -> list[Path]:
    if names:
        raise FetchError("`cr` takes no names: it fetches the current Comprehensive Rules text")
    page = session.base
    _check_url(page, "the rules page")
    body = _get_small(session, page, missing_ok=True)
    if body is None:
        raise FetchError(f"no rules page at {page} (HTTP 404)")
    link = cr_link(body.decode("utf-8", "replace"), page)
    if link is None:
        raise FetchError(f"found no link to a MagicCompRules….txt file on {page}")
    _check_url(link, "the Comprehensive Rules link")
    name = _safe_name(PurePosixPath(urlsplit(link).path).name)
    final = _inside(session.folder, name)
    if not _current(session, final, url=link):
        stored = _download(
            session, link, final, label=name, sha256=None, gunzip=False, missing_ok=True
        )
        if stored is None:
            raise FetchError(f"the Comprehensive Rules link on {page} is broken (HTTP 404: {link})")
    try:
        write_atomic(session.folder / ".current.json", json.dumps({"name": name}).encode("utf-8"))
    except OSError as problem:
        raise _disk_error(problem, final) from None
    return [final]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key == "href" and value:
                self.hrefs.append(value.strip())


def cr_link(html: str, page_url: str) -> str | None:
    """The absolute URL of the first link on the page to a ``…MagicCompRules….txt`` file."""
    parser = _Links()
    with contextlib.suppress(Exception):
        parser.feed(html)
        parser.close()
    for href in parser.hrefs:
        path = unquote(urlsplit(href).path)
        if path.lower().endswith(".txt") and _CR_MARK in path.lower():
            return urljoin(page_url, href)
    return None


# --- downloading ----------------------------------------------------------------------------


class _Interrupted(Exception):
    def __init__(self, done: int, total: int | None, reason: str) -> None:
        super().__init__(reason)
        self.done, self.total, self.reason = done, total, reason


def _download(
    session: _Session,
    url: str,
    final: Path,
    *,
    label: str,
    sha256: str | None,
    gunzip: bool,
    missing_ok: bool,
    extra: Mapping[str, Any] | None = None,
) -> Path | None:
    """Stream ``url`` to ``final`` (resuming, verifying, decompressing); None on a 404."""
    _make_folder(session.folder)
    part = _inside(session.folder, f".{label}.part")
    state_path = _inside(session.folder, f".{label}.part.json")
    last: _Interrupted | None = None
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(RETRY_DELAY)
        try:
            received = _transfer(session, url, part, state_path, label, sha256)
        except _Interrupted as cut:
            last = cut
            continue
        if received is None:
            if not missing_ok:
                raise FetchError(f"nothing at {url} (HTTP 404)")
            return None
        break
    else:
        assert last is not None
        of = f" of {last.total}" if last.total is not None else ""
        raise FetchError(
            f"the download of {label} from {_host(url)} broke off after {last.done}{of} bytes "
            f"({last.reason}); run the fetch again to resume"
        )
    digest, validators = received
    if sha256 is not None and digest != sha256:
        _remove(part, state_path)
        raise FetchError(
            f"checksum mismatch for {label}: the published SHA-256 is {sha256[:16]}…, the "
            f"download's is {digest[:16]}…; the partial file was deleted"
        )
    try:
        if gunzip:
            _gunzip(part, final, label)
            part.unlink()
        else:
            os.replace(part, final)
    except FetchError:
        _remove(part, state_path)
        raise
    except OSError as problem:
        raise _disk_error(problem, final) from None
    meta = {
        "url": url,
        "sha256": digest,
        "verified": sha256 is not None,
        "size": final.stat().st_size,
        **validators,
        **(extra or {}),
    }
    _write_meta(final, meta)
    with contextlib.suppress(FileNotFoundError):
        state_path.unlink()
    return final


def _transfer(
    session: _Session,
    url: str,
    part: Path,
    state_path: Path,
    label: str,
    sha256: str | None,
) -> tuple[str, dict[str, Any]] | None:
    """One attempt: append to ``part`` from where it stops; the SHA-256 of the whole file."""
    state = _read_json(state_path) or {}
    offset = part.stat().st_size if part.exists() else 0
    if offset and (state.get("url") != url or state.get("expected") != sha256):
        offset = 0  # a partial file of another URL or version: start again
    headers = _headers()
    if offset:
        headers["Range"] = f"bytes={offset}-"
        etag = state.get("etag")
        validator = etag if etag and not etag.startswith("W/") else state.get("last_modified")
        if validator:
            headers["If-Range"] = validator
    try:
        response = _open(session, url, headers)
    except urllib.error.HTTPError as problem:
        problem.close()
        if problem.code == 404:
            return None
        if problem.code == 416 and offset:  # the partial file is no prefix of this one
            _remove(part, state_path)
            return _transfer(session, url, part, state_path, label, sha256)
        raise _http_error(problem, url) from None
    with response:
        length = _int(response.headers.get("Content-Length"))
        start, total = 0, length
        if response.status == 206:
            match = _CONTENT_RANGE.fullmatch((response.headers.get("Content-Range") or "").strip())
            if not match or int(match.group(1)) != offset:
                _remove(part, state_path)  # a range not asked for: the next attempt starts afresh
                raise _Interrupted(0, None, "the server answered with another range")
            start = offset
            total = int(match.group(3)) if match.group(3) != "*" else None
            if total is None and length is not None:
                total = offset + length
        validators = {
            "etag": response.headers.get("ETag"),
            "last_modified": response.headers.get("Last-Modified"),
        }
        hasher = hashlib.sha256()
        done = start
        try:
            if start:
                _hash_file(part, hasher)
            else:
                state = {"url": url, "expected": sha256, **validators}
                write_atomic(state_path, json.dumps(state).encode("utf-8"))
            _report(session, label, done, total)
            with open(part, "ab" if start else "wb") as handle:
                while chunk := _read(response, done, total):
                    _write(handle, chunk)
                    hasher.update(chunk)
                    done += len(chunk)
                    _report(session, label, done, total)
        except OSError as problem:
            raise _disk_error(problem, part) from None
        if total is not None and done < total:
            raise _Interrupted(done, total, "the connection closed early")
        if total is not None and done > total:
            _remove(part, state_path)
            raise FetchError(f"{_host(url)} sent more bytes for {label} than it announced")
    return hasher.hexdigest(), validators


def _read(response: Any, done: int, total: int | None) -> bytes:
    """The next chunk of a response; a connection that breaks is an ``_Interrupted``."""
    try:
        return response.read(CHUNK)
    except (http.client.HTTPException, OSError) as cut:
        raise _Interrupted(done, total, _describe(cut) or "cut off") from None


def _write(handle: Any, chunk: bytes) -> None:
    handle.write(chunk)


def _hash_file(path: Path, hasher: Any) -> None:
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            hasher.update(block)


def _gunzip(source: Path, target: Path, label: str) -> None:
    """Decompress ``source`` into ``target`` in one step, a chunk at a time."""
    temporary = temporary_path(target)
    size = 0
    try:
        with gzip.open(source, "rb") as packed, open(temporary, "wb") as out:
            while True:
                try:
                    block = packed.read(CHUNK)
                except (OSError, EOFError, zlib.error) as problem:
                    if isinstance(problem, OSError) and problem.errno is not None:
                        raise
                    raise FetchError(
                        f"{label} is not a valid gzip file ({_describe(problem)}); deleted it"
                    ) from None
                if not block:
                    break
                size += len(block)
                if size > MAX_DECOMPRESSED:
                    raise FetchError(f"{label} inflates beyond {MAX_DECOMPRESSED >> 30} GB")
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def _get_small(session: _Session, url: str, *, missing_ok: bool) -> bytes | None:
    """A small document (checksum, index, page) in memory; None on a 404 when allowed."""
    try:
        response = _open(session, url, _headers())
    except urllib.error.HTTPError as problem:
        problem.close()
        if problem.code == 404 and missing_ok:
            return None
        raise _http_error(problem, url) from None
    with response:
        try:
            body = response.read(SMALL_LIMIT + 1)
        except (http.client.HTTPException, OSError) as problem:
            raise FetchError(f"cannot read {url}: {_describe(problem)}") from None
    if len(body) > SMALL_LIMIT:
        raise FetchError(f"{url} is larger than {SMALL_LIMIT >> 20} MB; not what was expected")
    return body


def _open(session: _Session, url: str, headers: dict[str, str]) -> Any:
    request = urllib.request.Request(url, headers=headers)
    try:
        return session.opener.open(request, timeout=TIMEOUT)
    except urllib.error.HTTPError:
        raise
    except urllib.error.URLError as problem:
        raise _reach_error(url, problem.reason) from None
    except (http.client.HTTPException, OSError) as problem:
        raise _reach_error(url, problem) from None


def _headers() -> dict[str, str]:
    return {
        "User-Agent": USER_AGENT,
        "Accept": "application/json, text/html;q=0.9, */*;q=0.8",
        "Accept-Encoding": "identity",
    }


# --- errors ---------------------------------------------------------------------------------


def _describe(problem: object) -> str:
    if isinstance(problem, OSError) and problem.strerror:
        text = problem.strerror
    else:
        text = str(problem) or type(problem).__name__
    return " ".join(text.split())


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def _reach_error(url: str, reason: object) -> FetchError:
    host = _host(url)
    if isinstance(reason, ssl.SSLError):
        return FetchError(f"no secure connection to {host}: {_describe(reason)}")
    if isinstance(reason, TimeoutError):
        return FetchError(f"cannot reach {host}: no answer in {TIMEOUT:.0f} s (are you offline?)")
    return FetchError(f"cannot reach {host}: {_describe(reason)} (are you offline?)")


def _http_error(problem: urllib.error.HTTPError, url: str) -> FetchError:
    later = "; try again later" if problem.code == 429 or problem.code >= 500 else ""
    reason = _describe(problem.reason) if problem.reason else ""
    return FetchError(f"{_host(url)} answered HTTP {problem.code} {reason} for {url}{later}")


def _disk_error(problem: OSError, path: Path) -> FetchError:
    if problem.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return FetchError(
            f"disk full while writing {path.parent}: free some space and run the fetch again "
            "(the partial download is kept and will be resumed)"
        )
    return FetchError(f"cannot write {path.parent}: {_describe(problem)}")


# --- names, paths and sidecars --------------------------------------------------------------


def _kind(kind: str) -> Kind:
    spec = KINDS.get(kind)
    if spec is None:
        raise FetchError(f"unknown masters kind {kind!r} (choose {', '.join(KINDS)})")
    return spec


def _names(names: Iterable[str]) -> list[str]:
    if isinstance(names, str):
        names = [names]
    split = (part.strip() for name in names for part in name.split(","))
    return list(dict.fromkeys(part for part in split if part))


def _mtgjson_name(name: str) -> str:
    if name.lower() == ALL_PRINTINGS.lower():
        return ALL_PRINTINGS
    code = name.upper()
    if not _SET_CODE.fullmatch(code):
        raise FetchError(f"{name!r} is not an MTGJSON set code (such as TSP) or AllPrintings")
    return code


def _bulk_type(name: str) -> str:
    if not _BULK_TYPE.fullmatch(name):
        raise FetchError(f"{name!r} is not a Scryfall bulk file type (such as rulings)")
    return name


def _bulk_entries(body: bytes, url: str) -> dict[str, dict[str, Any]]:
    try:
        index = json.loads(body)
    except ValueError:
        raise FetchError(f"the Scryfall bulk-data index at {url} is not JSON") from None
    data = index.get("data") if isinstance(index, dict) else None
    if not isinstance(data, list):
        raise FetchError(f"the Scryfall bulk-data index at {url} has no data list")
    return {
        entry["type"]: entry
        for entry in data
        if isinstance(entry, dict) and isinstance(entry.get("type"), str)
    }


def _parse_digest(body: bytes, name: str) -> str:
    words = body.decode("ascii", "replace").split()
    digest = words[0].lower() if words else ""
    if not _DIGEST.fullmatch(digest):
        raise FetchError(f"the checksum MTGJSON published for {name} is not a SHA-256 digest")
    return digest


def _safe_name(name: str) -> str:
    """A plain base name for a name that came from the network (a link)."""
    base = PurePosixPath(unquote(name).replace("\\", "/")).name
    base = _SAFE.sub("_", base).strip("._")[:120]
    if not base:
        raise FetchError(f"cannot make a file name of {name!r}")
    return base


def _inside(folder: Path, name: str) -> Path:
    """``folder/name``, refusing a name that would leave the folder."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise FetchError(f"refusing to write {name!r}: not a plain file name")
    return folder / name


def _check_url(url: str, what: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise FetchError(f"{what} URL {url!r} is not an http(s) address")


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as problem:
        raise FetchError(f"cannot create {folder}: {_describe(problem)}") from None


def _meta_path(final: Path) -> Path:
    return final.with_name(f".{final.name}.meta.json")


def _meta(final: Path) -> dict[str, Any]:
    return _read_json(_meta_path(final)) or {}


def _write_meta(final: Path, meta: Mapping[str, Any]) -> None:
    body = json.dumps(dict(meta), indent=1, sort_keys=True).encode("utf-8")
    try:
        write_atomic(_meta_path(final), body)
    except OSError as problem:
        raise _disk_error(problem, final) from None


def _current(session: _Session, final: Path, **expected: Any) -> bool:
    """``final`` is complete and its sidecar has the ``expected`` values: no need to fetch."""
    meta = _meta(final)
    if not _complete(final) or any(meta.get(key) != value for key, value in expected.items()):
        return False
    size = final.stat().st_size
    _report(session, final.name, size, size)
    return True


def _complete(final: Path) -> bool:
    """``final`` is there with the size its sidecar records (a finished fetch)."""
    meta = _meta(final)
    try:
        return final.is_file() and final.stat().st_size == meta.get("size")
    except OSError:
        return False


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _remove(*paths: Path) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _report(session: _Session, label: str, done: int, total: int | None) -> None:
    if session.progress is not None:
        session.progress(label, done, total)


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _hint(kind: str, names: list[str]) -> str:
    return f"run `rulings fetch {' '.join([kind, *names])}` first"
