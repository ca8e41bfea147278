"""Straight-line programs and the passes over them."""
from .evaluate import evaluate
from .passes import OpCount, op_count, optimize, optimize_all
from .program import Argument, Assignment, Program

__all__ = ["Argument", "Assignment", "OpCount", "Program", "evaluate", "op_count", "optimize",
           "optimize_all"]
