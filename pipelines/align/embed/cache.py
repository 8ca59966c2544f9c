"""On-disk cache of embeddings, keyed by (embedder name, text).

Layout: ``<cache dir>/embeddings/<embedder slug>/`` holds ``model.txt`` (the embedder's full
name) and shards. A shard is three files with a common stem: ``STEM.vecs.npy`` (float32
vectors, n x dim), ``STEM.keys.npy`` (n x 2 uint64, the 128-bit BLAKE2b digest of each text's
UTF-8) and ``STEM.sum`` (the SHA-256 of the other two, a checked file written last). A run
that computed new vectors adds one shard; shards are never changed.

Safety with several processes: each file is written to a temporary name, synced and renamed
into place, and the digest file comes last, so a shard is visible only when complete.
Integrity: the first time a process maps a shard it checks both files against the digest; a
shard cut short, with a flipped byte or without its digest is left out and removed, which
costs a recomputation and never a wrong vector. A file checked once is not read again while
it keeps its size, times and inode (``files.file_digest``, kept for the next run as the
inputs' digests are): a shard file is never changed in place, and whatever writes one gives
it a new stamp. Readers map the vector files read-only. When a
text is in several shards (two processes computed it at once) the oldest shard wins, so a
lookup does not depend on timing.

Growth: entries are never evicted on their own. When an embedder has more than
``max_shards`` shards, the newer ones are merged (``merged``: a shard larger than all the
newer ones together stays as it is), which removes duplicates, and a warning is logged
once when the whole cache grows past ``LARGE_CACHE_BYTES``. ``info``, ``prune`` and
``clear`` show and reclaim the space (roughly 2 KB per text for a 512-dimension model).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import mmap
import os
import re
import secrets
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path

import numpy as np

from ...cachedir import default_cache_dir
from ...files import file_digest, read_checked, write_checked

log = logging.getLogger(__name__)

MAX_SHARDS = 16
LARGE_CACHE_BYTES = 2 * 1024**3
RELEASED_ROWS = 1 << 16
"""A lookup copies this many vectors out of a mapped shard, then gives the shard's pages
back (``_release_pages``): the copy and the mapping are never both whole in memory."""
WRITTEN_ROWS = 1 << 13
"""A new shard's vectors are written this many at a time (16 MB of 512-dimension ones)."""
STALE_TEMP_SECONDS = 3600
"""Temporary files older than this belong to a writer that died; ``prune`` removes them."""

_KEYS = ".keys.npy"
_VECS = ".vecs.npy"
_SUM = ".sum"
_SHARD_FILES = (_SUM, _KEYS, _VECS)
_PART = ".part"
_NAME_FILE = "model.txt"


def text_keys(texts: Sequence[str]) -> np.ndarray:
    """The cache key of each text: its 128-bit BLAKE2b digest as a row of two uint64."""
    digests = b"".join(
        blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest() for text in texts
    )
    return np.frombuffer(digests, dtype="<u8").reshape(-1, 2)


@dataclass(frozen=True, slots=True)
class CacheInfo:
    name: str
    directory: Path
    shards: int
    entries: int
    """Vectors stored, duplicates included (``compact`` removes them)."""
    bytes: int
    last_used: float
    """Seconds since the epoch of the last lookup or store."""


@dataclass(frozen=True, slots=True)
class _Index:
    """Every key of an embedder's shards, sorted and without duplicates, and where it is."""

    stems: tuple[str, ...]
    """The shards listed when the index was built (to notice new ones)."""
    loaded: tuple[str, ...]
    """The shards it actually holds (a damaged or vanished one is left out)."""
    high: np.ndarray
    low: np.ndarray
    shard: np.ndarray
    row: np.ndarray
    vectors: tuple[np.ndarray, ...]
    dim: int

    def __len__(self) -> int:
        return len(self.high)


class EmbeddingCache:
    """Embeddings on disk under ``<cache_dir>/embeddings``; ``cache_dir`` defaults to
    ``default_cache_dir()``."""

    def __init__(self, cache_dir: Path | str | None = None, *, max_shards: int = MAX_SHARDS):
        root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
        self.directory = root / "embeddings"
        self.max_shards = max_shards
        self._indexes: dict[str, _Index] = {}
        self._verified: dict[Path, tuple[tuple, tuple[np.ndarray, np.ndarray]]] = {}
        """Shards this process has checked against their digest: the files' identity (inode,
        size, time) when checked, and the shard's keys and mapped vectors."""
        self._warned_large = False

    def __repr__(self) -> str:
        return f"<EmbeddingCache {self.directory}>"

    def model_dir(self, name: str) -> Path:
        """The folder of one embedder: a readable slug of its name and a hash of the name."""
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:60]
        digest = blake2b(name.encode("utf-8"), digest_size=4).hexdigest()
        return self.directory / f"{slug}-{digest}"

    def get(
        self, name: str, texts: Sequence[str], *, every_row: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Which texts are cached, and their vectors.

        Returns ``(hits, vectors)``: a bool mask over ``texts`` and a float32 matrix with one
        row per hit, in the order of the texts (shape ``(0, 0)`` when the cache is empty).
        ``every_row``: one row per text instead, the rows of the texts not cached left zero,
        for the caller to fill in place (at a million units a second matrix of every vector
        was 750 MB more at the stage's peak).
        """
        keys = text_keys(texts)
        index = self._index(name)
        hits = np.zeros(len(keys), dtype=bool)
        if index is None or not len(keys):
            return hits, np.empty((0, index.dim if index else 0), dtype=np.float32)
        _touch(self.model_dir(name) / _NAME_FILE)
        position = np.minimum(np.searchsorted(index.high, keys[:, 0]), len(index) - 1)
        hits = (index.high[position] == keys[:, 0]) & (index.low[position] == keys[:, 1])
        found = position[hits]
        shard, row = index.shard[found], index.row[found]
        rows = len(keys) if every_row else len(found)
        vectors = np.zeros((rows, index.dim), dtype=np.float32)
        place = np.flatnonzero(hits) if every_row else np.arange(len(found))
        for number in np.unique(shard):
            slots = np.flatnonzero(shard == number)
            slots = slots[np.argsort(row[slots], kind="stable")]
            source = index.vectors[number]
            for start in range(0, len(slots), RELEASED_ROWS):
                part = slots[start : start + RELEASED_ROWS]
                vectors[place[part]] = source[row[part]]
                _release_pages(source)
        return hits, vectors

    def put(
        self,
        name: str,
        texts: Sequence[str],
        vectors: np.ndarray,
        *,
        rows: Sequence[int] | None = None,
    ) -> None:
        """Store vectors as one new shard: the vector of ``texts[i]`` is ``vectors[i]``, or
        ``vectors[rows[i]]`` when ``rows`` is given (the shard is then written from those
        rows a block at a time, without a copy of them). A failure to write is logged,
        never raised."""
        vectors = np.asarray(vectors)
        count = len(vectors) if rows is None else len(rows)
        if vectors.dtype != np.float32 or vectors.ndim != 2 or count != len(texts):
            raise ValueError(
                f"expected {len(texts)} float32 vectors, got {vectors.dtype} {vectors.shape}"
            )
        if not len(texts):
            return
        folder = self.model_dir(name)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not (folder / _NAME_FILE).exists():
                _write_atomic(folder / _NAME_FILE, lambda f: f.write(name.encode("utf-8")))
            stem = _new_stem()
            vectors_digest = _write_atomic(
                folder / f"{stem}{_VECS}", lambda file: _write_rows(vectors, rows, file)
            )
            keys_digest = _save_atomic(folder / f"{stem}{_KEYS}", text_keys(texts))
            _seal(folder, stem, keys_digest, vectors_digest)
        except OSError as error:
            log.warning("could not store embeddings in %s: %s", folder, error)
            return
        if len(_stems(folder)) > self.max_shards:
            self.compact(name)
        self._warn_if_large()

    def compact(self, name: str) -> None:
        """Merge an embedder's newer shards into one, keeping one vector per text (``merged``
        says which: not a shard that holds more texts than all the shards after it). A run
        that adds a few vectors then rewrites them and the other runs' few, not the whole
        cache: a million units' 748 MB shard took 1.98 s to write again with 13 small ones,
        and its digest was checked again on the next run (``benchmarks/results/work_layer.md``).
        The merged shard takes the time of the oldest it merges, so it sorts where that one
        did, after every shard kept: the oldest shard of a text still wins."""
        folder = self.model_dir(name)
        whole = self._index(name)
        if whole is None or len(whole.loaded) < 2:
            return
        stems = merged(whole.loaded, [len(vectors) for vectors in whole.vectors])
        index = (
            whole
            if len(stems) == len(whole.loaded)
            else _build_index(folder, stems, self._verified_shard)
        )
        if index is None:
            return
        oldest_time = index.loaded[0].split("-")[0]
        stem = f"{oldest_time}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            vectors_digest = _write_atomic(
                folder / f"{stem}{_VECS}", lambda file: _write_vectors_of(index, file)
            )
            keys_digest = _save_atomic(
                folder / f"{stem}{_KEYS}", np.column_stack([index.high, index.low])
            )
            _seal(folder, stem, keys_digest, vectors_digest)
        except OSError as error:
            log.warning("could not compact the embedding cache %s: %s", folder, error)
            return
        for old in index.loaded:
            _remove_shard(folder, old)
        self._indexes.pop(name, None)

    def info(self) -> list[CacheInfo]:
        """One line per embedder with cached vectors."""
        result = []
        for folder in self._model_dirs():
            name_file = folder / _NAME_FILE
            try:
                name = name_file.read_text(encoding="utf-8")
                last_used = name_file.stat().st_mtime
            except OSError:
                name, last_used = folder.name, 0.0
            entries = 0
            stems = _stems(folder)
            for stem in stems:
                try:
                    entries += len(np.load(folder / f"{stem}{_KEYS}", mmap_mode="r"))
                except (OSError, ValueError):
                    continue
            result.append(CacheInfo(name, folder, len(stems), entries, _size(folder), last_used))
        return result

    def clear(self, name: str | None = None) -> None:
        """Remove one embedder's vectors, or every embedder's."""
        folders = [self.model_dir(name)] if name is not None else self._model_dirs()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        self._indexes.clear()

    def prune(self, max_bytes: int) -> list[str]:
        """Remove whole embedders, least recently used first, until at most ``max_bytes``
        remain; also remove temporary files and unsealed shard files left by writers that
        died. Returns the names removed."""
        now = time.time()
        for folder in self._model_dirs():
            sealed = set(_stems(folder))
            for path in folder.iterdir():
                unsealed = path.name.endswith((_KEYS, _VECS)) and _stem_of(path) not in sealed
                if not (path.name.endswith(_PART) or unsealed):
                    continue
                try:
                    if now - path.stat().st_mtime > STALE_TEMP_SECONDS:
                        path.unlink()
                except OSError:
                    continue
        removed = []
        caches = sorted(self.info(), key=lambda entry: entry.last_used)
        total = sum(entry.bytes for entry in caches)
        for entry in caches:
            if total <= max_bytes:
                break
            shutil.rmtree(entry.directory, ignore_errors=True)
            self._indexes.clear()
            total -= entry.bytes
            removed.append(entry.name)
        return removed

    def _model_dirs(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(path for path in self.directory.iterdir() if path.is_dir())

    def _index(self, name: str) -> _Index | None:
        """The index of an embedder's shards, rebuilt only when the set of shards changed."""
        folder = self.model_dir(name)
        stems = tuple(_stems(folder))
        cached = self._indexes.get(name)
        if cached is not None and cached.stems == stems:
            return cached
        index = _build_index(folder, stems, self._verified_shard)
        if index is None:
            self._indexes.pop(name, None)
        else:
            self._indexes[name] = index
        return index

    def _verified_shard(self, folder: Path, stem: str) -> tuple[np.ndarray, np.ndarray] | None:
        """A shard's keys and mapped vectors, checked against its digest once per process;
        a shard that fails the check is removed (its texts are embedded again)."""
        path = folder / stem
        try:
            signature = tuple(
                (state.st_ino, state.st_size, state.st_mtime_ns)
                for state in (os.stat(folder / f"{stem}{suffix}") for suffix in _SHARD_FILES)
            )
            known = self._verified.get(path)
            if known is not None and known[0] == signature:
                return known[1]
            shard = _load_shard(folder, stem)
        except (OSError, ValueError) as error:  # vanished: another process removed it
            log.debug("skipping embedding shard %s: %s", path, error)
            return None
        if shard is None:
            log.warning("removing damaged embedding shard %s (its texts are embedded again)", path)
            _remove_shard(folder, stem)
            return None
        if len(self._verified) > 4 * MAX_SHARDS:
            self._verified.clear()
        self._verified[path] = (signature, shard)
        return shard

    def _warn_if_large(self) -> None:
        if self._warned_large:
            return
        total = sum(_size(folder) for folder in self._model_dirs())
        if total > LARGE_CACHE_BYTES:
            self._warned_large = True
            log.warning(
                "the embedding cache %s holds %.1f GB; remove it or prune it "
                "(EmbeddingCache.prune) to reclaim the space",
                self.directory,
                total / 1024**3,
            )


def _load_shard(folder: Path, stem: str) -> tuple[np.ndarray, np.ndarray] | None:
    """A shard's keys and mapped vectors when both files match its digest and each other,
    None when the shard is damaged; OSError when it vanished."""
    expected = read_checked(folder / f"{stem}{_SUM}")
    if not isinstance(expected, dict):
        return None
    for suffix, name in ((_KEYS, "keys"), (_VECS, "vectors")):
        if _shard_file_digest(folder / f"{stem}{suffix}") != f"sha256:{expected.get(name)}":
            return None
    try:
        keys = np.load(folder / f"{stem}{_KEYS}", allow_pickle=False)
        vectors = np.load(folder / f"{stem}{_VECS}", mmap_mode="r", allow_pickle=False)
    except ValueError:
        return None
    valid = (
        keys.dtype == np.dtype("<u8")
        and keys.ndim == 2
        and keys.shape[1] == 2
        and vectors.dtype == np.float32
        and vectors.ndim == 2
        and len(vectors) == len(keys)
    )
    return (keys, vectors) if valid else None


def _shard_file_digest(path: Path) -> str:
    """The SHA-256 of a shard file as its digest file gives it, marked ``sha256:``, read only
    when ``files.file_digest`` does not remember it for the file's stamp (the vectors of a
    million units are 750 MB: 0.6 s of every edited run)."""

    def sha256() -> str:
        with open(path, "rb") as file:
            return "sha256:" + hashlib.file_digest(file, "sha256").hexdigest()

    return file_digest(path, sha256)


def _release_pages(vectors: np.ndarray) -> None:
    """Let the kernel take back the pages of a mapped shard this process has read (the file
    stays in the page cache, and a later read maps them again). Without this, a lookup that
    reads every vector keeps the whole shard in the process's resident memory beside the
    copy it returned, for as long as the shard stays mapped: 750 MB at a million units
    (``benchmarks/results/work_layer.md``)."""
    mapped = getattr(vectors, "_mmap", None)  # np.memmap's own mapping
    if mapped is None or not hasattr(mmap, "MADV_DONTNEED"):
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        mapped.madvise(mmap.MADV_DONTNEED)


def _build_index(folder: Path, stems: tuple[str, ...], load_shard) -> _Index | None:
    keys, shards, rows, vectors, loaded = [], [], [], [], []
    dim = None
    for stem in stems:
        shard = load_shard(folder, stem)
        if shard is None:
            continue
        shard_keys, shard_vectors = shard
        if dim is not None and shard_vectors.shape[1] != dim:
            log.warning("skipping embedding shard %s of another dimension", folder / stem)
            continue
        dim = shard_vectors.shape[1]
        keys.append(shard_keys)
        shards.append(np.full(len(shard_keys), len(vectors), dtype=np.int32))
        rows.append(np.arange(len(shard_keys), dtype=np.int64))
        vectors.append(shard_vectors)
        loaded.append(stem)
    if dim is None:
        return None
    all_keys = np.concatenate(keys)
    # lexsort is stable: among equal keys the one from the oldest shard comes first and wins.
    order = np.lexsort((all_keys[:, 1], all_keys[:, 0]))
    high, low = all_keys[order, 0], all_keys[order, 1]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (high[1:] != high[:-1]) | (low[1:] != low[:-1])
    order = order[first]
    return _Index(
        stems=stems,
        loaded=tuple(loaded),
        high=high[first],
        low=low[first],
        shard=np.concatenate(shards)[order],
        row=np.concatenate(rows)[order],
        vectors=tuple(vectors),
        dim=dim,
    )


def merged(stems: Sequence[str], sizes: Sequence[int]) -> tuple[str, ...]:
    """The shards (oldest first, with their numbers of texts) a compaction merges: those
    after the last that holds more texts than all the shards after it together. The shards
    kept are each larger than every newer one together, so there are few of them (at most
    about the logarithm of the texts), and a text is rewritten a few times in all, not once
    for every few runs. When that leaves fewer than two, the two newest."""
    after = sum(sizes)
    first = len(sizes)
    for number, size in enumerate(sizes):
        after -= size
        if size <= after:
            first = number
            break
    return tuple(stems[min(first, len(stems) - 2) :])


def _write_vectors_of(index: _Index, file) -> None:
    """Write an index's vectors as one .npy, in index order, a block at a time."""
    _write_header(file, len(index), index.dim)
    block_rows = 65536
    for start in range(0, len(index), block_rows):
        shard = index.shard[start : start + block_rows]
        row = index.row[start : start + block_rows]
        block = np.empty((len(shard), index.dim), dtype="<f4")
        for number in np.unique(shard):
            slots = shard == number
            block[slots] = index.vectors[number][row[slots]]
        file.write(memoryview(block).cast("B"))


def _write_rows(vectors: np.ndarray, rows: Sequence[int] | None, file) -> None:
    """``vectors`` (or its ``rows``, in that order) as one .npy file, a block at a time: the
    bytes ``np.save`` writes for the same matrix."""
    count = len(vectors) if rows is None else len(rows)
    _write_header(file, count, vectors.shape[1])
    for start in range(0, count, WRITTEN_ROWS):
        if rows is None:
            block = vectors[start : start + WRITTEN_ROWS]
        else:
            block = vectors[np.asarray(rows[start : start + WRITTEN_ROWS], dtype=np.int64)]
        file.write(memoryview(np.ascontiguousarray(block, dtype="<f4")).cast("B"))


def _write_header(file, rows: int, dim: int) -> None:
    """The .npy header of a float32 matrix of ``rows`` x ``dim``, as ``np.save`` writes it."""
    np.lib.format.write_array_header_1_0(
        file, {"descr": "<f4", "fortran_order": False, "shape": (rows, dim)}
    )


def _new_stem() -> str:
    """Shard names sort by creation time; pid and a random part keep writers apart."""
    return f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}"


def _stems(folder: Path) -> list[str]:
    """The sealed shards of a folder (their digest file is written last)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(name[: -len(_SUM)] for name in names if name.endswith(_SUM))


def _stem_of(path: Path) -> str:
    return path.name.rsplit(".", 2)[0]


def _seal(folder: Path, stem: str, keys_digest: str, vectors_digest: str) -> None:
    write_checked(folder / f"{stem}{_SUM}", {"keys": keys_digest, "vectors": vectors_digest})


def _save_atomic(path: Path, array: np.ndarray) -> str:
    return _write_atomic(path, lambda file: np.save(file, array, allow_pickle=False))


class _HashingWriter:
    """A binary file that also hashes what goes through it."""

    def __init__(self, file) -> None:
        self.file = file
        self.digest = hashlib.sha256()

    def write(self, data) -> int:
        self.digest.update(data)
        return self.file.write(data)


def _write_atomic(path: Path, write) -> str:
    """Write through a temporary file in the same folder, sync it, then rename it in place;
    returns the SHA-256 of the bytes written."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}{_PART}")
    try:
        with open(temporary, "wb") as file:
            hashing = _HashingWriter(file)
            write(hashing)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return hashing.digest.hexdigest()


def _remove_shard(folder: Path, stem: str) -> None:
    """The digest first, so that no reader takes up a shard whose files are going."""
    for suffix in _SHARD_FILES:
        try:
            (folder / f"{stem}{suffix}").unlink(missing_ok=True)
        except OSError as error:
            log.debug("could not remove %s: %s", folder / f"{stem}{suffix}", error)


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.utime(path)


def _size(folder: Path) -> int:
    total = 0
    with contextlib.suppress(OSError):
        for path in folder.iterdir():
            with contextlib.suppress(OSError):
                total += path.stat().st_size
    return total
