"""The referee's name and version, as the Welcome message and every replay log header give it."""

from __future__ import annotations

VERSION = "0.1.0"
REFEREE_VERSION = f"ginref {VERSION}"
