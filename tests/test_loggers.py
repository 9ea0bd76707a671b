"""Every logger is named by its module (``logging.getLogger(__name__)``), so a log line
says where it came from and an operator can tune one module's logging."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "brandubh"

# Another library's logger, fetched to configure it (app.py filters uvicorn's access log;
# the engine bridge quietens httpx's line per request), is no logger of ours.
THEIRS = ("uvicorn.", "httpx")


def test_every_logger_is_named_by_its_module() -> None:
    ad_hoc = {
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        for name in re.findall(r"getLogger\(([^)]*)\)", path.read_text())
        if name != "__name__" and not name.strip("\"'").startswith(THEIRS)
    }
    assert ad_hoc == set()
