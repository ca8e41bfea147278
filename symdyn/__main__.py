"""``python -m symdyn``: the symdyn command, where its script is not on PATH."""
from .cli import main

main(prog_name="symdyn")
