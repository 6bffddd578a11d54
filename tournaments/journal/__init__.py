"""The journal that makes a run resumable, the records it keeps, and its audit against the replay
logs."""
