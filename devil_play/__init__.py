"""``devil-play``: Mine Devil in a terminal (a Textual app over the ``devil`` engine).

The engine never imports this package. Modules:

``options``  the command line: presets, size, topology, rules, no-guess, seed -> GameParams
``drawing``  the board as text lines (hex rows shifted, the devil's witness after a loss)
``session``  one game being played: the cursor, the moves, the status line, saving
``tui``      the Textual app: keys, mouse, the board widget and the status line
"""
