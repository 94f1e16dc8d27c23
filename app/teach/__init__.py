"""Teaching: the hint ladder and lessons of the game page, the analysis board, puzzles.

The hint ladder and the lessons only ever read the *visible* position while a game runs
(the solver's verdicts on it are public knowledge); the layout is read only once the game
has ended (the win's board level). Cell names in hints, lessons, proofs and puzzles are
zero-based and spelled out, ``row 3, col 5`` (``Position.where``), exactly as ``devil-check``,
its ``--explain`` proofs and the JSON API count: the top-left cell is row 0, col 0.

Modules: ``routes`` (the URLs), ``facts`` (proof helpers shared by the rest), ``hints``,
``lessons``, ``panels`` (what the game page shows), ``query`` (position URLs and query
fields), ``grid``, ``analysis``, ``svg``, ``puzzles``.
"""
