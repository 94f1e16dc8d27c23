"""The ledger of finished games: ``annotate`` (a judgement per move: forced, a guess, the
devil's choice), ``metrics`` (3BV and friends), ``luck`` (how lucky the guesses were),
``board_replay`` (a replay's moves on a board with a known layout) and ``replays/`` (the
replay file formats: EVF, AVF, MBF, move lists)."""
