"""Where matches are played: in this process, in worker processes, on a Ray cluster, or hosted for
remote bots."""
