"""Robot files and the robot model."""
from .file import LinkSpec, RobotSpec, load_robot_spec
from .model import Robot


def load_robot(path) -> Robot:
    """Read a robot file and build its model; raises RobotFileError for a bad file."""
    return Robot.from_spec(load_robot_spec(path))


__all__ = ["LinkSpec", "Robot", "RobotSpec", "load_robot", "load_robot_spec"]
