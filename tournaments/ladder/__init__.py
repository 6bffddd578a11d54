"""A standing competition (``ginref ladder``): entrants submit bots whenever they like, each
submission is unpacked, built in the sandbox and validated before it joins the pool, the pool
plays matches continuously, ratings with uncertainty rank it, and at the deadline the organiser
freezes submissions and plays a final (docs/ladder.md)."""
