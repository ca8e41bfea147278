#!/bin/sh
# A URDF arm to a C++ computed-torque controller. Run from this folder with symdyn installed
# (python3 dev.py demo, then: source ../../../.venv/bin/activate).
set -e
# 1. The UR5's URDF, from the example-robot-data package, made a robot file.
ERD=$(python -c "import importlib.metadata as m
print(m.distribution('example-robot-data').locate_file('cmeel.prefix/share/example-robot-data/robots'))")
symdyn import "$ERD/ur_description/urdf/ur5_robot.urdf" --tip tool0 -o build/ur5.yaml -q
# 2. Its dynamics as C: build/generated/ur5.h and ur5.c.
symdyn generate build/ur5.yaml --lang c --out build/generated -q
# 3. A CMake project that builds them as a library and links the controller.
cmake -S . -B build/cmake -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build/cmake > /dev/null
./build/cmake/controller
