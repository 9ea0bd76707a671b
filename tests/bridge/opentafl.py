"""OpenTafl (github.com/jslater89/OpenTafl, Java) as a third-party OTEP engine, for the
gated test and bench/otep_opentafl.py: where a build is, and a folder for it to run in.

``OPENTAFL_CLASSPATH`` names a build: a Java class path holding OpenTafl's classes (or its
jar) and the libraries it needs (bench/opentafl_build.sh makes one; docs/bridge.md,
"Tested with OpenTafl"). Nothing here downloads anything.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CLASSPATH_ENV = "OPENTAFL_CLASSPATH"
MAIN_CLASS = "com.manywords.softworks.tafl.OpenTafl"


def opentafl_classpath() -> str | None:
    """The build named by OPENTAFL_CLASSPATH, or None when it is unset or java is missing."""
    classpath = os.environ.get(CLASSPATH_ENV, "").strip()
    if not classpath or shutil.which("java") is None:
        return None
    return classpath


def opentafl_engine(classpath: str) -> tuple[str, ...]:
    """OpenTafl's own AI as an OTEP engine: ``OpenTafl --engine``
    (ExternalEngineClient)."""
    return ("java", "-Xmx512m", "-cp", classpath, MAIN_CLASS, "--engine")


def opentafl_folder(folder: Path, think_seconds: int) -> Path:
    """A folder for the engine to run in (it writes log/, saved-games/, engines/ there), with
    a settings.ini capping its search at ``think_seconds`` (its default is 10)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.ini").write_text(f"[config]\nthinktime = {think_seconds}\n")
    return folder
