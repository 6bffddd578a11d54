"""A tournament written out: text for the terminal and one web page."""
