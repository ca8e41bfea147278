"""mkdocs hooks: what the pages show is the repository's own files, never copies of them.

``<!-- symdyn:benchmark-results -->`` becomes benchmarks/results.md as benchmarks/run.py last
wrote it (its title left out, its plot added to the site); ``<!-- symdyn:page PATH -->`` a
top-level file such as CHANGELOG.md. A marker whose file is missing fails the build. (A
tutorial is its own source: its code blocks are the files the tests run, tutorial_files.py.)
"""
from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!-- symdyn:(benchmark-results|page)\s*(\S*)\s*-->")


def _replace(match: re.Match) -> str:
    kind, path = match.groups()
    if kind == "benchmark-results":
        text = (ROOT / "benchmarks" / "results.md").read_text()
        body = text.split("\n", 1)[1]                 # its title is the page's
        return re.sub(r"^## ", "### ", body, flags=re.M)
    source = ROOT / path
    if not source.is_file():
        raise FileNotFoundError(f"symdyn:{kind} {path}: no such file")
    return source.read_text().split("\n", 1)[1]       # the page has the title


def on_page_markdown(markdown, page, config, files):
    return MARKER.sub(_replace, markdown)


def on_files(files, config):
    """The benchmarks' plot, beside the page that shows it."""
    files.append(File("scaling.svg", str(ROOT / "benchmarks"), config["site_dir"],
                      config["use_directory_urls"]))
    return files
