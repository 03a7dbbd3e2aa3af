"""One module per game (pgx and OpenSpiel style); the core (cards, deals, rules, registry, outcomes, shared
searches) sits at the top of ``engine/``.  Each module exposes ``GAME``, a :class:`engine.registry.GameSpec`."""
