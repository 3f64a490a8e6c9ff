"""Re-measure the workbook's tokens-per-GB table (llmest/catalog/corpora/measured.json) from where its texts come from:

- english: the English pages of Debian's ``manpages`` package (/usr/share/man/man1 ... man8), Linux man-pages
  project, licences per page in /usr/share/doc/manpages/copyright (mostly the Linux man-pages copyleft and GPL-2+);
- chinese: the simplified-Chinese pages of Debian's ``manpages-zh`` (/usr/share/man/zh_CN), GFDL-1.2+;
  only the pages each package installed (``dpkg-query -L``), not the other packages' pages in the same folders
  (passwd's, login's and man-db's Chinese pages; many programs' English ones), which differ between machines;
- code: the ``.py`` files of the running Python's standard library (its tests and site-packages left out), PSF
  licence.

Run as root on Debian: ``apt-get install -y manpages manpages-zh groff-base``, then
``python -m llmest.texts.measure`` (add ``--out PATH`` to write elsewhere). A man page is gzipped roff; it is turned
into prose with ``groff -k -Tutf8 -mandoc`` (-k reads the page's encoding, a long line length and no hyphenation so
that a paragraph stays one line, -P-cbou for plain text without overstrikes), then every line is stripped and runs of
spaces and of blank lines become one. Files are taken in a fixed order (shuffled by the CRC-32 of
their names) until a kind holds ``--mb`` MB (1e6 bytes), and
cut into ``--chunks`` sub-samples of whole files to show the spread between parts of a sample. Each row records the
versions it was measured with (the text's package, groff-base, bpe-openai, Python): the same versions give the same
rates.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.metadata
import json
import platform
import re
import subprocess
import sys
import sysconfig
import zlib
from pathlib import Path

from ...core.i18n import N_

TABLE = Path(__file__).with_name("measured.json")
TOKENIZERS = ("cl100k_base", "o200k_base", "voyage3_base")  # the encodings bpe-openai ships (no download)

SOURCES = {
    "english": dict(name=N_("Debian manpages: English man pages (sections 1-8)"),
                    licence=N_("Linux man-pages copyleft, GPL-2+ and others, per page: "
                               "/usr/share/doc/manpages/copyright"), package="manpages"),
    "chinese": dict(name=N_("Debian manpages-zh: simplified-Chinese man pages (zh_CN)"),
                    licence=N_("GFDL-1.2+ (/usr/share/doc/manpages-zh/copyright)"), package="manpages-zh"),
    "code": dict(name=N_("the Python standard library's .py files (without test/ and site-packages)"),
                 licence=N_("PSF License"), package="python3"),
}


def _man_files(root: Path, package: str) -> list[Path]:
    """The pages under ``root`` (section folders man1-man8) that ``package`` installed, in an order fixed by their
    names' CRC-32 (a repeatable shuffle, so that the sample spreads over sections instead of being the first pages of
    man1). Other packages' pages in the same folders are left out: the sample is the package's on every machine."""
    owned = {Path(line) for line in _dpkg("-L", package).splitlines()}
    pages = (p for p in root.glob("man[1-8]/*.gz") if p in owned and p.is_file() and not p.is_symlink())
    return sorted(pages, key=lambda p: (zlib.crc32(p.relative_to(root).as_posix().encode()), p.name))


def _dpkg(*args: str) -> str:
    """What dpkg-query prints, or "" where there is no dpkg (not Debian) or the package is not installed."""
    try:
        return subprocess.run(["dpkg-query", *args], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return ""


def files(kind: str) -> list[Path]:
    if kind in ("english", "chinese"):
        return _man_files(Path("/usr/share/man/zh_CN" if kind == "chinese" else "/usr/share/man"),
                          SOURCES[kind]["package"])
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    modules = (p for p in stdlib.rglob("*.py")
               if not {"test", "tests", "site-packages", "idle_test"} & set(p.relative_to(stdlib).parts))
    return sorted(modules, key=lambda p: (zlib.crc32(p.relative_to(stdlib).as_posix().encode()), p.name))


def prose(page: Path) -> str:
    """A man page as plain text: groff renders it, then lines are stripped and runs of spaces become one."""
    roff = gzip.decompress(page.read_bytes())
    if roff.lstrip().startswith(b".so "):  # a page that only points at another page
        return ""
    out = subprocess.run(["groff", "-k", "-Tutf8", "-mandoc", "-rLL=2000n", "-rHY=0", "-P-cbou"], input=roff,
                         capture_output=True, timeout=60).stdout.decode("utf-8", "replace")
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in out.splitlines()]
    lines = [line for line in lines if line][1:-1]  # without the page's header and footer lines
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def text_of(kind: str, path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if kind == "code" else prose(path)


def collect(kind: str, target_bytes: float) -> list[str]:
    texts, size = [], 0
    for path in files(kind):
        text = text_of(kind, path)
        if kind == "chinese" and not re.search(r"[\u4e00-\u9fff]", text):
            continue  # an untranslated page
        if text.strip():
            texts.append(text)
            size += len(text.encode("utf-8"))
        if size >= target_bytes:
            break
    return texts


def chunks(texts: list[str], n: int) -> list[list[str]]:
    """``n`` sub-samples of whole files, each about 1/n of the bytes."""
    total = sum(len(t.encode("utf-8")) for t in texts)
    parts, current, size = [], [], 0
    for text in texts:
        current.append(text)
        size += len(text.encode("utf-8"))
        if size >= total * (len(parts) + 1) / n and len(parts) < n - 1:
            parts.append(current)
            current = []
    return parts + [current] if current else parts


def rate(encoding, texts: list[str]) -> float:
    """Tokens per GB of a list of files, each tokenized on its own (a file is a document)."""
    tokens = sum(len(encoding.encode_ordinary(text)) for text in texts)
    return tokens / sum(len(text.encode("utf-8")) for text in texts) * 1e9


def cjk_share(text: str) -> float:
    """The share of the characters that are CJK ideographs."""
    return len(re.findall(r"[\u4e00-\u9fff]", text)) / max(len(text), 1)


def version(package: str) -> str:
    """The installed version of a Debian package, of bpe-openai, or of Python ("python3"); "" where it is missing."""
    if package == "python3":
        return platform.python_version()
    if package == "bpe-openai":
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return ""
    return _dpkg("-W", "-f", "${Version}", package)


def versions(kind: str) -> dict:
    """What a kind's rates depend on, with the versions installed here: the text's package, the renderer of man
    pages (groff-base) and the tokenizers (bpe-openai)."""
    tools = ("bpe-openai",) if kind == "code" else ("groff-base", "bpe-openai")
    return {name: version(name) for name in (SOURCES[kind]["package"], *tools)}


def measure(kind: str, target_bytes: float = 1.5e6, n_chunks: int = 10) -> dict:
    import bpe_openai

    texts = collect(kind, target_bytes)
    whole = "".join(texts)
    n_bytes = len(whole.encode("utf-8"))
    rates = {}
    for name in TOKENIZERS:
        enc = bpe_openai.get_encoding(name)
        rates[name] = dict(tokens_per_gb=rate(enc, texts), chunks=[rate(enc, part) for part in chunks(texts, n_chunks)])
    return dict(**SOURCES[kind], version=version(SOURCES[kind]["package"]), measured_with=versions(kind),
                bytes=n_bytes, files=len(texts), cjk_share=cjk_share(whole), tokenizers=rates)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TABLE)
    parser.add_argument("--mb", type=float, default=1.5, help="MB (1e6 bytes) of text per kind (default 1.5)")
    parser.add_argument("--chunks", type=int, default=10, help="sub-samples per kind (default 10)")
    args = parser.parse_args(argv)
    table = {kind: measure(kind, args.mb * 1e6, args.chunks) for kind in SOURCES}
    for kind, row in table.items():
        if row["bytes"] < 1e6:
            print(f"error: only {row['bytes']:,} bytes of {kind}: is {row['package']} installed?", file=sys.stderr)
            return 2
    args.out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for kind, row in table.items():
        shown = ", ".join(f"{t} {r['tokens_per_gb']:.3g}" for t, r in row["tokenizers"].items())
        print(f"{kind}: {row['bytes']:,} bytes in {row['files']} files: {shown} tokens per GB")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
