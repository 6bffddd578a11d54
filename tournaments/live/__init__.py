"""A tournament as it is played: progress in the terminal, and the read-only live page for
spectators."""
