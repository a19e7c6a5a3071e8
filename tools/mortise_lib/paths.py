"""Where the headers, instance sources and libraries are.

From a source tree (tools/mortise): include/, instances/, and the libraries
of a build: $MORTISE_BUILD_DIR/lib, else build/lib. $MORTISE_INCLUDE_DIR
replaces the header tree, $MORTISE_LIB_DIR is searched first for libraries. Installed (bin/mortise),
`make install` writes install_layout.py beside this module with the install
directories relative to it, so an installed tree can be moved as a whole.
"""
from __future__ import annotations

import os
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

try:
    # written by `make install`; absent from the source tree, so mypy cannot see it
    from . import install_layout as _layout  # type: ignore[attr-defined]
except ImportError:
    _layout = None


class Paths:
    def __init__(self) -> None:
        if _layout is not None:
            self.installed = True
            self.include = (HERE / _layout.INCLUDE).resolve()
            self.instances = (HERE / _layout.INSTANCES).resolve()
            self.libs = [(HERE / _layout.LIB).resolve()]
            self.tools = (HERE / _layout.TOOLS).resolve()
        else:
            self.installed = False
            root = HERE.parent.parent
            self.include = root / "include"
            self.instances = root / "instances"
            builds = [os.environ.get("MORTISE_BUILD_DIR", ""), str(root / "build")]
            self.libs = [pathlib.Path(b) / "lib" for b in builds if b]
            self.tools = root / "tools"
        if os.environ.get("MORTISE_INCLUDE_DIR"):      # another header tree
            self.include = pathlib.Path(os.environ["MORTISE_INCLUDE_DIR"])
        extra = os.environ.get("MORTISE_LIB_DIR")
        if extra:
            self.libs.insert(0, pathlib.Path(extra))

    def instance_library(self, name: str) -> pathlib.Path | None:
        for d in self.libs:
            p = d / f"libmortise-{name}.so"
            if p.is_file():
                return p.resolve()      # LD_PRELOAD must hold in any directory
        return None
