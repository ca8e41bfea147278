"""Textbook printouts of derivations (text, markdown, LaTeX, HTML)."""
from .printout import Printout, printout
from .render import FORMATS

__all__ = ["FORMATS", "Printout", "printout"]
