"""The assets an MJCF model names and a user may not have: meshes, textures, height fields and
skins whose files are not there (Menagerie's models are read without their meshes, which a
user may not have fetched).

They shape what is drawn and what collides, not the dynamics, wherever the bodies they shape
give their mass and inertia in an ``<inertial>``: each is then given a stand-in MuJoCo
compiles (a tiny tetrahedron for a mesh, a flat colour for a texture, a flat 2 x 2 height
field; a skin is dropped), and the import says so in one line. A body a joint moves whose
inertia MuJoCo would compute from an absent mesh (no ``<inertial>``, or
``inertiafromgeom="true"``) is refused, naming the mesh and the body.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import RobotFileError

ABSENT = "assets whose files are not there, given stand-ins (they shape no dynamics here: " \
         "every body they shape has its <inertial>):"
# A mesh's stand-in: a tetrahedron of a millimetre's edges, whose volume MuJoCo accepts.
TETRAHEDRON = (0.0, 0.0, 0.0, 1e-3, 0.0, 0.0, 0.0, 1e-3, 0.0, 0.0, 0.0, 1e-3)


def stand_ins(mujoco, spec, path) -> list[str]:
    """Give every asset of ``spec`` whose file is not there a stand-in (the module's
    docstring); the assets' names, as "mesh 'pelvis'"; RobotFileError where a body's inertia
    would come from an absent mesh."""
    folder = Path(spec.modelfiledir or Path(path).parent)
    absent = {kind: [a for a in getattr(spec, kind) if a.file and not _there(
        folder, getattr(spec, "texturedir" if kind == "textures" else "meshdir"), a.file)]
        for kind in ("meshes", "textures", "hfields", "skins")}
    if not any(absent.values()):
        return []
    _refuse_inertia_from(mujoco, spec, {m.name or Path(m.file).stem for m in absent["meshes"]},
                         path)
    for mesh in absent["meshes"]:       # (unscaled: a millimetre's mesh is too small)
        mesh.file, mesh.uservert, mesh.scale = "", list(TETRAHEDRON), [1.0, 1.0, 1.0]
    for texture in absent["textures"]:
        texture.file, texture.builtin = "", mujoco.mjtBuiltin.mjBUILTIN_FLAT
        texture.width = texture.height = 1
    for field in absent["hfields"]:
        field.file, field.nrow, field.ncol = "", 2, 2
        field.userdata = [0.0] * 4
    for skin in absent["skins"]:
        spec.delete(skin)
    return [f"{kind[:-1] if kind != 'meshes' else 'mesh'} {(a.name or a.file)!r}"
            for kind, assets in absent.items() for a in assets]


def _there(folder: Path, assets: str, name: str) -> bool:
    """Whether MuJoCo finds the file ``name``: as given where absolute, else in the model's
    folder joined with the compiler's folder for its kind (meshdir, texturedir)."""
    target = Path(name)
    if not target.is_absolute():
        target = folder / (assets or "") / target
    return target.is_file()


def _refuse_inertia_from(mujoco, spec, meshes: set[str], path) -> None:
    """RobotFileError where a body's mass and inertia would come from one of the absent
    ``meshes``: a geom of it in a body without <inertial>, or every body's under
    inertiafromgeom="true"."""
    always = spec.compiler.inertiafromgeom == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE
    never = spec.compiler.inertiafromgeom == mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    for geom in spec.geoms:
        if geom.meshname not in meshes or never:
            continue
        body = geom.parent
        while not hasattr(body, "explicitinertial"):        # a geom in a <frame>
            body = body.parent
        if (always or not body.explicitinertial) and _moves(body):
            raise RobotFileError(path, f"mesh {geom.meshname!r} is not there, and body "
                                 f"{body.name!r} takes its mass and inertia from it ("
                                 + ("inertiafromgeom=\"true\")" if always else
                                    "it has no <inertial>)"),
                                 expected="the mesh's file where the model names it, or an "
                                          "<inertial> in that body")


def _moves(body) -> bool:
    """Whether a joint moves ``body``: one of its own or of a body it hangs from (a body
    welded to the world carries no dynamics, whatever its inertia)."""
    while body is not None and hasattr(body, "joints"):
        if body.joints:
            return True
        body = body.parent
    return False
