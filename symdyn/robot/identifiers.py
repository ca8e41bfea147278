"""Identifiers for names from robot files: a joint's or a frame's name is the source's own text
(``link_3.0_tip``, ``l_hand/palm``), and the generated code names its constants and per-frame
functions after it (``PANDA_IDX_Q_panda_joint1``, ``pose_and_jacobian_link_3_0_tip``). The
names themselves stay in JOINTS and FRAMES, as written."""
from __future__ import annotations

import re

# C99 keeps 63 characters of an identifier significant; the longest prefix a name gets is a
# robot's name (64) and a word, in macros, whose significance gcc extends.
IDENTIFIER_LENGTH = 60


def identifiers(names) -> tuple[str, ...]:
    """An identifier for each of ``names``, in order: letters, digits and _ (anything else
    made _), not starting with a digit, at most IDENTIFIER_LENGTH characters, all different
    (a later one that would repeat an earlier one gets _2, _3, ...)."""
    out, taken = [], set()
    for text in names:
        name = re.sub(r"[^A-Za-z0-9_]", "_", text)[:IDENTIFIER_LENGTH] or "_"
        if name[0].isdigit():
            name = f"_{name}"[:IDENTIFIER_LENGTH]
        unique, k = name, 2
        while unique in taken:
            unique, k = f"{name}_{k}", k + 1
        taken.add(unique)
        out.append(unique)
    return tuple(out)
