"""Identification: measured motion and torques -> the base parameters, with their uncertainty.

data.py reads the measurements, estimate.py solves the least-squares problems on the base
regressor, excite.py designs the motion that makes them well conditioned.
"""
from .data import Measurements, read_measurements
from .estimate import Estimate, identify
from .excite import Trajectory, excitation

__all__ = ["Estimate", "Measurements", "Trajectory", "excitation", "identify",
           "read_measurements"]
