"""What the matches add up to: standings, ratings, leagues and the sequential test's statistics."""
