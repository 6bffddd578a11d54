"""Sample bots built on the ginref protocol."""
