"""Bad input never crashes the batch: it becomes a finding, or one line on stderr and exit 2."""

from __future__ import annotations

import codecs
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.ingest import ingest

SPANISH = (
    "Dicotomancia\n\n02/02/2024\n\n"
    "Las cartas exiliadas con suspender están exiliadas boca arriba.\n"
)


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def codes(result, file):
    return [f.code for f in result.findings if f.file == file]


def test_binary_file_is_reported_and_the_batch_goes_on(tmp_path):
    write(tmp_path / "image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    write(tmp_path / "ok.txt", SPANISH.encode())
    result = ingest([tmp_path])
    assert codes(result, "image.png") == ["PARSE001"]
    assert [r.file for r in result.rulings] == ["ok.txt"]


@pytest.mark.parametrize(
    ("encoding", "prefix", "expected"),
    [
        ("latin-1", b"", ["PARSE002"]),
        ("utf-16-le", codecs.BOM_UTF16_LE, ["PARSE002"]),
        ("utf-16-be", codecs.BOM_UTF16_BE, ["PARSE002"]),
        ("utf-8", codecs.BOM_UTF8, []),
        ("utf-16-le", b"", ["PARSE002"]),
    ],
)
def test_encodings_are_decoded_without_losing_accents(tmp_path, encoding, prefix, expected):
    write(tmp_path / "doc.txt", prefix + SPANISH.encode(encoding))
    result = ingest([tmp_path])
    assert codes(result, "doc.txt") == expected
    (ruling,) = result.rulings
    assert ruling.doc_title == "Dicotomancia"
    assert ruling.text == "Las cartas exiliadas con suspender están exiliadas boca arriba."
    assert ruling.date == "2024-02-02"


@pytest.mark.parametrize("content", [b"", b"\n\n   \n\t\n", "\u00a0\n".encode()])
def test_empty_files_are_reported(tmp_path, content):
    write(tmp_path / "empty.txt", content)
    result = ingest([tmp_path])
    assert codes(result, "empty.txt") == ["PARSE003"]
    assert result.rulings == []


def test_a_50_mb_single_line_file_is_reported_not_read(tmp_path):
    write(tmp_path / "huge.txt", b"a" * (50 * 1024 * 1024))
    write(tmp_path / "ok.txt", SPANISH.encode())
    result = ingest([tmp_path])
    assert codes(result, "huge.txt") == ["PARSE006"]
    (problem,) = [f for f in result.findings if f.file == "huge.txt"]
    assert problem.line == 1 and problem.evidence["length"] == 50 * 1024 * 1024
    assert [r.file for r in result.rulings] == ["ok.txt"]


def rulings_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipelines", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@pytest.mark.slow
def test_missing_path_exits_2_with_one_line(tmp_path):
    done = rulings_cli("ingest", "no/such/folder", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "no/such/folder" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow  # a process of its own
def test_folder_without_rulings_exits_2_with_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "empty" / "blank.txt", b"\n\n")
    done = rulings_cli("run", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("rulings: error: no rulings found")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [["run", "--bogus"], ["ingest", "corpus"], ["run", "--lang-id", "nope"], ["frobnicate"]],
)
@pytest.mark.slow  # a process each (test_missing_path_exits_2_with_one_line starts one too)
def test_bad_usage_exits_2_with_one_line(tmp_path, args):
    done = rulings_cli(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("rulings: error:")


@pytest.mark.parametrize(
    ("option", "name", "content", "where"),
    [
        ("--termbase", "terms.tsv", "concept\tlang\tterm\nhaste\ten\thaste\n", "terms.tsv:1:"),
        ("--baseline", "baseline.json", '{"accepted": [\n  {"fingerprint": 1,\n', "baseline.json:"),
    ],
)
@pytest.mark.slow  # a process each (tests/test_cli.py checks the same in this process)
def test_malformed_option_file_exits_2_before_any_work(tmp_path, option, name, content, where):
    """The file is read first: the run stops with one line naming the file (and line) and
    leaves no stage output behind."""
    write(tmp_path / name, content.encode("utf-8"))
    out = tmp_path / "out"
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    done = rulings_cli("run", str(corpus), "--out", str(out), option, name, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("rulings: error:") and where in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (out / "corpus.jsonl").exists()


# --- NUL bytes, hidden files, special files (issue 35) -----------------------------------------

DATED = "Hipergénesis\n\n" + "".join(
    f"15/10/2006 Regla {n}: todo lo que se active durante la resolución esperará.\n\n"
    for n in range(1, 21)
)


def test_a_nul_byte_is_a_finding_on_its_line_and_every_other_line_is_read(tmp_path):
    lines = DATED.splitlines(keepends=True)
    lines[4] = lines[4].replace("Regla 2", "Regla\x00 2")
    write(tmp_path / "damaged.txt", "".join(lines).encode())
    write(tmp_path / "clean.txt", DATED.encode())
    result = ingest([tmp_path])
    (nul,) = [f for f in result.findings if f.file == "damaged.txt"]
    assert (nul.code, nul.line, nul.evidence["columns"]) == ("PARSE013", 5, [17])
    damaged = [r.text for r in result.rulings if r.file == "damaged.txt"]
    assert damaged == [r.text for r in result.rulings if r.file == "clean.txt"]
    assert len(damaged) == 20 and damaged[1].startswith("Regla 2: todo lo")


def test_compressed_data_stays_binary(tmp_path):
    import io
    import zipfile

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("r.txt", DATED * 20)
    write(tmp_path / "rulings.zip", archive.getvalue())
    assert codes(ingest([tmp_path]), "rulings.zip") == ["PARSE001"]


def test_hidden_files_are_each_a_finding_and_the_folders_not_entered_one(tmp_path):
    write(tmp_path / "ok.txt", SPANISH.encode())
    write(tmp_path / ".notes.txt", SPANISH.encode())
    write(tmp_path / "sub" / "..\\..\\evil.txt", SPANISH.encode())
    write(tmp_path / ".git" / "HEAD", b"ref: refs/heads/main\n")
    write(tmp_path / "sub" / ".idea" / "r.txt", SPANISH.encode())
    result = ingest([tmp_path])
    assert [r.file for r in result.rulings] == ["ok.txt"]
    hidden = {f.file: f for f in result.findings if f.code == "PARSE014"}
    assert sorted(hidden) == [".notes.txt", "sub/..\\..\\evil.txt"]
    assert hidden[".notes.txt"].severity == "info" and hidden[".notes.txt"].evidence["bytes"] > 0
    (folders,) = [f for f in result.findings if f.code == "PARSE015"]
    assert [e["folder"] for e in folders.evidence["folders"]] == [".git/", "sub/.idea/"]
    assert result.files == 3


def test_a_hidden_file_given_as_input_is_read(tmp_path):
    write(tmp_path / ".notes.txt", SPANISH.encode())
    assert [r.file for r in ingest([tmp_path / ".notes.txt"]).rulings] == [".notes.txt"]


def test_sockets_and_devices_are_parse010_and_never_opened(tmp_path, monkeypatch):
    import builtins
    import socket

    write(tmp_path / "ok.txt", SPANISH.encode())
    os_link = tmp_path / "zero.txt"
    os_link.symlink_to("/dev/zero")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "s.txt"))
    opened = []
    real_open = builtins.open

    def spying_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spying_open)
    try:
        result = ingest([tmp_path])
    finally:
        server.close()
    unread = {f.file: f.message for f in result.findings if f.code == "PARSE010"}
    assert unread == {
        "s.txt": "s.txt is a socket, not a regular file; it was not read.",
        "zero.txt": "zero.txt is a character device, not a regular file; it was not read.",
    }
    assert [r.file for r in result.rulings] == ["ok.txt"]
    assert not [path for path in opened if path.endswith(("s.txt", "zero.txt"))]


def test_a_text_file_s_head_and_text_come_from_one_read(tmp_path, monkeypatch):
    """Sniffing and decoding read the same bytes (a file that changes in between cannot
    be sniffed as one thing and read as another); the cache key's digest of a run with a
    cache folder is remembered per process (``files.file_digest``)."""
    import builtins

    write(tmp_path / "ok.txt", SPANISH.encode())
    opened = []
    real_open = builtins.open

    def spying_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spying_open)
    assert [r.file for r in ingest([tmp_path]).rulings] == ["ok.txt"]
    assert [path for path in opened if path.endswith("ok.txt")] == [str(tmp_path / "ok.txt")]
