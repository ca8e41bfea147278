"""mkdocs hooks: what the pages show is the repository's own files, never copies of them.

``<!-- symdyn:include PATH -->`` becomes PATH's text (from the repository's root) in a code
block, so a tutorial shows exactly the script its test runs; ``<!-- symdyn:benchmark-results
-->`` becomes benchmarks/results.md as benchmarks/run.py last wrote it (its title left out, its
plot added to the site); ``<!-- symdyn:page PATH -->`` a top-level file such as CHANGELOG.md.
A marker whose file is missing fails the build.
"""
from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!-- symdyn:(include|benchmark-results|page)\s*(\S*)\s*-->")
LANGUAGES = {".py": "python", ".sh": "sh", ".cpp": "cpp", ".txt": "cmake", ".yaml": "yaml"}


def _replace(match: re.Match) -> str:
    kind, path = match.groups()
    if kind == "benchmark-results":
        text = (ROOT / "benchmarks" / "results.md").read_text()
        body = text.split("\n", 1)[1]                 # its title is the page's
        return re.sub(r"^## ", "### ", body, flags=re.M)
    source = ROOT / path
    if not source.is_file():
        raise FileNotFoundError(f"symdyn:{kind} {path}: no such file")
    if kind == "page":
        return source.read_text().split("\n", 1)[1]   # the page has the title
    language = LANGUAGES.get(source.suffix, "")
    return f"```{language} title=\"{path}\"\n{source.read_text().rstrip()}\n```"


def on_page_markdown(markdown, page, config, files):
    return MARKER.sub(_replace, markdown)


def on_files(files, config):
    """The benchmarks' plot, beside the page that shows it."""
    files.append(File("scaling.svg", str(ROOT / "benchmarks"), config["site_dir"],
                      config["use_directory_urls"]))
    return files
