"""symdyn: symbolic equations of motion for robot arms, hands, legged robots and humanoids.

>>> import symdyn, sympy
>>> robot = symdyn.load_robot("robots/planar2.yaml")
>>> robot.dof, [str(p) for p in robot.parameters]
(2, ['m1', 'm2', 'l1', 'l2', 'g'])
>>> dynamics = symdyn.newton_euler(robot)
>>> sympy.simplify(dynamics.M[1, 1])
l2**2*m2
>>> sympy.simplify(dynamics.g[1])
g*l2*m2*cos(q1 + q2)
>>> print(symdyn.op_count(symdyn.optimize(dynamics.program("gravity_torques"))))
14 mul, 5 add, 4 calls
"""
import os

# symdyn's linear algebra is on small matrices (the base parameters' QR of a 33-link tree's
# stacked regressor, 1600 x 460), where OpenBLAS's threads only spin: that QR took 3.6 s of CPU
# on two threads and 0.07 s on one. Before numpy is first imported (the command line, a script
# that imports symdyn first); a setting of the user's own stands.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .api import compile as compile  # noqa: E402  (re-exported, see __all__)
from .api import generate, python_module  # noqa: E402
from .derive import Dynamics, lagrange, newton_euler  # noqa: E402
from .errors import BuildError, EmitError, RobotFileError, SymdynError  # noqa: E402
from .program import op_count, optimize  # noqa: E402
from .robot import Robot, load_robot  # noqa: E402
from .version import __version__  # noqa: F401

# symdyn.compile is left out of __all__ so that `from symdyn import *` keeps Python's compile.
__all__ = [
    "BuildError", "Dynamics", "EmitError", "Robot", "RobotFileError", "SymdynError",
    "generate", "lagrange", "load_robot", "newton_euler", "op_count", "optimize",
    "python_module",
]
