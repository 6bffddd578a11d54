"""Tournament runner and the ginref command line."""
