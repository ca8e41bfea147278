"""symdyn: symbolic equations of motion for serial robot arms.

>>> import symdyn
>>> robot = symdyn.load_robot("robots/planar2.yaml")      # doctest: +SKIP
>>> dynamics = symdyn.newton_euler(robot)                  # doctest: +SKIP
>>> symdyn.generate(dynamics, "python", "generated")       # doctest: +SKIP
"""
__version__ = "0.1.0"

from .derive import Dynamics, newton_euler  # noqa: E402
from .emit import generate  # noqa: E402
from .emit.build import compile  # noqa: E402
from .errors import BuildError, DerivationError, EmitError, RobotFileError, SymdynError  # noqa: E402
from .program import op_count, optimize  # noqa: E402
from .robot import Robot, load_robot  # noqa: E402

__all__ = [
    "BuildError", "DerivationError", "Dynamics", "EmitError", "Robot", "RobotFileError",
    "SymdynError", "compile", "generate", "load_robot", "newton_euler", "op_count", "optimize",
]
