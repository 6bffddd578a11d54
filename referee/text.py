"""Text a bot supplies, made safe to print: no control characters, no escape sequences.

A bot chooses its name and version (``Hello``), and what it prints; shown raw, a newline could
forge a line of the referee's output, an escape sequence could rewrite the terminal, and a
bidirectional override could make one name read as another. :func:`safe_text` is applied where
such text enters the referee (the server's Hello) and where a bot's output is shown.
"""

from __future__ import annotations

import unicodedata

DEFAULT_LIMIT = 64


def safe_text(text: str, limit: int | None = DEFAULT_LIMIT) -> str:
    """``text`` with every control or format character (C0, DEL, C1, bidirectional overrides,
    zero-width characters) shown as an escape such as ``\\x1b`` or ``\\u202e``, cut to
    ``limit`` characters (with an ellipsis); None: no limit."""
    out: list[str] = []
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    clean = "".join(out)
    if limit is not None and len(clean) > limit:
        clean = clean[: max(0, limit - 1)] + "…"
    return clean


def safe_lines(text: str, line_limit: int = 200) -> list[str]:
    """A bot's output as lines that are each safe to print (see :func:`safe_text`)."""
    return [safe_text(line, line_limit) for line in text.splitlines()]
