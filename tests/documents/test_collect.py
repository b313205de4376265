"""Collecting a corpus from uploads, folders, globs and zips, and refusing hostile archives."""

from __future__ import annotations

import io
import os
import stat
import struct
import tracemalloc
import warnings
import zipfile

import pytest

from scar_viz.common.errors import UserError
from scar_viz.documents import collect
from scar_viz.documents.collect import (
    CorpusError,
    Limits,
    Skipped,
    collect_files,
    collect_path,
    collect_zip,
    describe_skipped,
)
from scar_viz.documents.reading import DocumentError, load_path, read_document

FILES = {
    "README": "A file without an extension, plain text.\n",
    "guide.md": "# Guide\n\nHow the harbour works.\n",
    "notes/a.txt": "Alpha notes about tides.\n",
    "notes/deep/b.rst": "Beta\n====\n\nDeep notes.\n",
    "src/main.py": "def main():\n    return 42\n",
    "src/Lib.java": "class Lib { int x = 1; }\n",
}


def make_zip(entries, compression=zipfile.ZIP_DEFLATED) -> bytes:
    """A zip in memory; ``entries`` maps names (or ZipInfo) to bytes or str."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are wanted here
        with zipfile.ZipFile(buf, "w", compression) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return buf.getvalue()


def info(name: str, **attrs) -> zipfile.ZipInfo:
    zi = zipfile.ZipInfo(name)
    zi.compress_type = zipfile.ZIP_DEFLATED
    for key, value in attrs.items():
        setattr(zi, key, value)
    return zi


def names_texts(collected):
    return [(d.name, d.text) for d in collected.documents]


def reasons(collected) -> dict[str, str]:
    return {s.path: s.reason for s in collected.skipped}


def write_tree(root, files=FILES):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


# --- the three ways give one corpus -------------------------------------------------------


def test_folder_glob_and_zip_give_the_same_documents(tmp_path, monkeypatch):
    root = tmp_path / "kb"
    write_tree(root)
    expected = sorted(FILES.items())
    by_folder = collect_path(str(root))
    by_glob = collect_path(str(root / "**" / "*"))
    by_zip_bytes = collect_zip("kb.zip", make_zip(FILES.items()))
    (tmp_path / "kb.zip").write_bytes(make_zip(FILES.items()))
    by_zip_path = collect_path(str(tmp_path / "kb.zip"))
    by_upload = collect_files([("kb.zip", make_zip(FILES.items()))])
    for got in (by_folder, by_glob, by_zip_bytes, by_zip_path, by_upload):
        assert names_texts(got) == expected
        assert got.skipped == ()
    monkeypatch.chdir(root)  # a relative glob: names below its fixed prefix
    assert [d.name for d in collect_path("notes/**/*.*").documents] == ["a.txt", "deep/b.rst"]


def test_a_single_file_is_todays_document(tmp_path):
    write_tree(tmp_path)
    got = collect_path(str(tmp_path / "notes" / "a.txt"))
    assert got.documents == (load_path(tmp_path / "notes" / "a.txt"),)
    one_in_folder = collect_path(str(tmp_path / "notes" / "deep"))
    assert [d.name for d in one_in_folder.documents] == ["b.rst"]


def test_a_single_unreadable_file_keeps_its_own_message(tmp_path):
    (tmp_path / "blank.md").write_text("  \n")
    with pytest.raises(DocumentError, match="only whitespace"):
        collect_path(str(tmp_path / "blank.md"))


def test_hidden_folders_are_listed_once_and_not_entered(tmp_path):
    write_tree(tmp_path)
    write_tree(tmp_path / ".git", {f"objects/{i}": "x" for i in range(20)})
    (tmp_path / "notes" / ".draft.md").write_text("secret draft")
    got = collect_path(str(tmp_path))
    assert [d.name for d in got.documents] == sorted(FILES)
    assert got.skipped == (
        Skipped(".git", collect.HIDDEN),
        Skipped("notes/.draft.md", collect.HIDDEN),
    )


def test_symlinks_and_fifos_in_a_folder_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    write_tree(outside, {"secret.txt": "private key"})
    root = tmp_path / "kb"
    write_tree(root, {"a.txt": "kept"})
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    os.mkfifo(root / "pipe.txt")  # reading it would block forever
    got = collect_path(str(root))
    assert names_texts(got) == [("a.txt", "kept")]
    assert reasons(got) == {
        "link.txt": collect.SYMLINK,
        "linked": collect.SYMLINK,
        "pipe.txt": collect.NOT_REGULAR,
    }
    by_glob = collect_path(str(root / "**" / "*.txt"))
    assert names_texts(by_glob) == [("a.txt", "kept")]
    assert "private key" not in str(by_glob)


def test_paths_that_give_nothing_are_user_errors(tmp_path):
    with pytest.raises(CorpusError, match="no such file or folder"):
        collect_path(str(tmp_path / "missing"))
    with pytest.raises(CorpusError, match="matches no file"):
        collect_path(str(tmp_path / "*.md"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="holds no file"):
        collect_path(str(tmp_path / "empty"))
    (tmp_path / "fake.zip").write_bytes(b"not a zip at all")
    with pytest.raises(CorpusError, match="not a zip archive"):
        collect_path(str(tmp_path / "fake.zip"))
    assert issubclass(CorpusError, UserError) and issubclass(CorpusError, DocumentError)


# --- uploads --------------------------------------------------------------------------------


def test_uploads_several_files_and_a_zip_prefixed_with_its_stem():
    got = collect_files(
        [
            ("b.md", b"second"),
            ("a.py", b"print(1)"),
            ("kb.zip", make_zip([("x/c.txt", "inside")])),
            ("a.py", b"again"),
            ("bundle.tar.gz", b"\x1f\x8b\x08"),
            ("broken.zip", b"PK nonsense"),
        ]
    )
    assert names_texts(got) == [("a.py", "print(1)"), ("b.md", "second"), ("kb/x/c.txt", "inside")]
    assert reasons(got) == {
        "a.py": collect.DUPLICATE,
        "bundle.tar.gz": collect.ARCHIVE_IN_FOLDER,
        "broken.zip": collect.NOT_ZIP,
    }


def test_a_lone_non_zip_upload_is_refused():
    with pytest.raises(CorpusError, match="not a zip archive"):
        collect_files([("kb.zip", b"hello")])
    with pytest.raises(CorpusError, match="No file"):
        collect_files([])


def test_code_and_prose_are_text_pdf_html_parsed_binary_skipped():
    got = collect_zip(
        "mix.zip",
        make_zip(
            [
                ("page.html", "<html><body><h1>T</h1><p>Visible</p><script>x=1</script></body>"),
                ("lib.rs", "fn main() {}"),
                ("conf.yaml", "a: 1"),
                ("data.weird", "odd suffix, still text"),
                ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200)),
                ("latin.txt", "déjà vu".encode("latin-1")),
                ("utf16.md", "naïve".encode("utf-16")),
                ("fake.pdf", b"no header"),
            ]
        ),
    )
    docs = {d.name: d for d in got.documents}
    assert sorted(docs) == [
        *("conf.yaml", "data.weird", "latin.txt", "lib.rs", "page.html", "utf16.md")
    ]
    assert "Visible" in docs["page.html"].text and "x=1" not in docs["page.html"].text
    assert docs["latin.txt"].text == "déjà vu" and "Latin-1" in docs["latin.txt"].note
    assert docs["utf16.md"].text == "naïve"
    assert reasons(got) == {"image.png": "binary (NUL bytes)", "fake.pdf": "not a PDF"}


def test_read_document_takes_code_suffixes_and_still_refuses_unknown_types():
    assert read_document("x.py", b"x = 1").text == "x = 1"
    assert read_document("Main.java", b"class Main {}").name == "Main.java"
    with pytest.raises(DocumentError, match="not a supported type") as caught:
        read_document("doc.docx", b"PK\x03\x04")
    assert caught.value.reason == "not a supported type"
    assert read_document("LICENSE", b"MIT", any_suffix=True).text == "MIT"


# --- hostile archives ----------------------------------------------------------------------


def test_paths_leaving_the_archive_are_skipped_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = make_zip(
        [
            ("../evil.txt", "up"),
            ("/etc/abs.txt", "absolute"),
            ("a/../../b.txt", "sneaky"),
            ("C:\\win.txt", "drive"),
            ("..\\back.txt", "backslash"),
            ("ok/./fine.txt", "fine"),
        ]
    )
    got = collect_zip("evil.zip", data)
    assert names_texts(got) == [("ok/fine.txt", "fine")]
    assert sorted(reasons(got).values()) == [collect.LEAVES] * 5
    assert list(tmp_path.iterdir()) == [] and not (tmp_path.parent / "evil.txt").exists()


def mark_encrypted(data: bytes, name: bytes) -> bytes:
    """Set flag bit 0x1 (encrypted) of ``name`` in both headers (zipfile clears it on write)."""
    out = bytearray(data)
    for signature, flag_at, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        at = 0
        while True:
            at = out.index(signature, at)
            if out[at + name_at : at + name_at + len(name)] == name:
                break
            at += 4
        flags = struct.unpack_from("<H", out, at + flag_at)[0]
        struct.pack_into("<H", out, at + flag_at, flags | 0x1)
    return bytes(out)


def test_symlink_encrypted_and_nested_entries_are_skipped():
    link = info("link.txt", external_attr=(stat.S_IFLNK | 0o777) << 16)
    data = make_zip(
        [
            (link, "/etc/passwd"),
            ("locked.txt", "ciphertext"),
            ("inner.zip", make_zip([("x.txt", "x")])),
            ("keep.txt", "kept"),
        ]
    )
    data = mark_encrypted(data, b"locked.txt")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.getinfo("locked.txt").flag_bits & 0x1
    got = collect_zip("a.zip", data)
    assert names_texts(got) == [("keep.txt", "kept")]
    assert reasons(got) == {
        "link.txt": collect.SYMLINK,
        "locked.txt": collect.ENCRYPTED,
        "inner.zip": collect.NESTED,
    }


def test_duplicate_paths_keep_the_first():
    got = collect_zip("d.zip", make_zip([("a.txt", "first"), ("a.txt", "second"), ("b", "b")]))
    assert names_texts(got) == [("a.txt", "first"), ("b", "b")]
    assert got.skipped == (Skipped("a.txt", collect.DUPLICATE),)


def _zeros_zip(name: str, size: int) -> bytes:
    """A zip holding ``size`` zero bytes, written in chunks (cheap: ~230:1 at level 1)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        with zf.open(info(name), "w", force_zip64=True) as out:
            chunk = bytes(2**20)
            for _ in range(size // len(chunk)):
                out.write(chunk)
        zf.writestr("keep.txt", "kept")
    return buf.getvalue()


def test_a_zip_bomb_is_refused_before_reading_and_memory_stays_small():
    bomb = _zeros_zip("bomb.txt", 300 * 2**20)
    assert len(bomb) < 2 * 2**20
    tracemalloc.start()
    try:
        got = collect_zip("bomb.zip", bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert names_texts(got) == [("keep.txt", "kept")]
    assert reasons(got) == {"bomb.txt": "larger than 20 MiB"}
    assert peak < 8 * 2**20


def test_a_high_ratio_entry_under_the_size_limit_is_refused():
    got = collect_zip("r.zip", _zeros_zip("zeros.txt", 5 * 2**20))
    assert reasons(got) == {"zeros.txt": "compression ratio over 100:1"}


def test_a_header_that_understates_the_size_cannot_blow_memory():
    data = bytearray(_zeros_zip("liar.txt", 16 * 2**20))
    central = data.index(b"PK\x01\x02")
    assert data[central + 46 : central + 54] == b"liar.txt"
    extra_len = struct.unpack_from("<H", data, central + 30)[0]
    if struct.unpack_from("<I", data, central + 24)[0] == 0xFFFFFFFF:  # size in the zip64 extra
        extra = central + 46 + 8
        assert data[extra : extra + 2] == b"\x01\x00" and extra_len >= 12
        struct.pack_into("<Q", data, extra + 4, 1000)
    else:
        struct.pack_into("<I", data, central + 24, 1000)
    tracemalloc.start()
    try:
        got = collect_zip("liar.zip", bytes(data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert reasons(got) == {"liar.txt": collect.CORRUPT_ENTRY}
    assert [d.name for d in got.documents] == ["keep.txt"]
    assert peak < 4 * 2**20


def test_the_total_size_limit_skips_what_would_pass_it():
    entries = [(f"f{i}.txt", "x" * 400) for i in range(5)]
    got = collect_zip("t.zip", make_zip(entries), limits=Limits(total_bytes=1000))
    assert [d.name for d in got.documents] == ["f0.txt", "f1.txt"]
    assert set(reasons(got).values()) == {"over the total of 0 MiB"}


def test_thousands_of_empty_files_are_skipped_and_summarised():
    entries = [(f"e/{i:04d}.txt", "" if i % 2 else "  \n") for i in range(3000)]
    got = collect_zip("e.zip", make_zip([*entries, ("real.md", "real text")]))
    assert names_texts(got) == [("real.md", "real text")]
    assert len(got.skipped) == 3000 and {s.reason for s in got.skipped} == {"empty"}
    assert describe_skipped(got) == [
        "3,000 files skipped: empty (e/0000.txt, e/0001.txt, e/0002.txt, …)"
    ]


def test_more_files_than_the_limit_keeps_the_first_by_path():
    entries = [(f"{c}.txt", c) for c in "edcba"]
    got = collect_zip("m.zip", make_zip(entries), limits=Limits(files=3))
    assert [d.name for d in got.documents] == ["a.txt", "b.txt", "c.txt"]
    assert describe_skipped(got) == ["2 files skipped: over the limit of 3 files (d.txt, e.txt)"]


def test_too_many_entries_refuse_the_archive():
    data = make_zip([(f"{i}.txt", "x") for i in range(11)])
    with pytest.raises(CorpusError, match="11 entries; the limit is 10"):
        collect_zip("many.zip", data, limits=Limits(entries=10))


def test_an_archive_with_nothing_readable_says_why():
    data = make_zip([("a.bin", bytes(100)), ("b.txt", ""), ("c.txt", "")])
    with pytest.raises(CorpusError, match=r"2 empty; 1 binary \(NUL bytes\)"):
        collect_zip("junk.zip", data)
