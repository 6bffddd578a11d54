"""A tournament file: TOML in, validated tables out, with the line of every key
(docs/tournaments.md)."""
