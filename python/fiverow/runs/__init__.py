"""Runs: games played in bulk. Self-play in C (:mod:`.selfplay`), runs cut
into shards (:mod:`.shards`) and played on a Ray cluster (:mod:`.distributed`,
imported on first use), a run's output file (:mod:`.output`), games with a
Python agent in a seat (:mod:`.agent_match`) and matches between two players
(:mod:`.match`). Dataset generation (:mod:`fiverow.data`) and the balance
study (:mod:`fiverow.studies`) are built on them."""
