"""Teaching: why a cell is forced and how hard a board is.

``proof`` (the fewest numbers that force a cell, with readable steps and a level),
``bounds`` (the numbers as bounds on sets of cells, asked of the solver's engines),
``levels`` (step-by-step deduction, the level of a board), ``puzzles`` (boards and puzzles
of a chosen level), ``move_level`` (the level of one move of a game) and ``wording`` (the
sentences)."""
