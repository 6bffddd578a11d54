"""A tournament as it is played: progress in the terminal, and the read-only live page for
spectators."""

# The live page's port, here rather than in its server (which imports it): the command line's
# options read it, and the server's imports (uvicorn, the watch) would cost every command its
# start-up time.
DEFAULT_PORT = 8080
