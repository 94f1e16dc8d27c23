"""Playing: the game pages, the click's way from the request to the engine, the game service.

Modules: ``routes`` (the URLs), ``moves`` (a request -> ``Click``, the only parser of clicks),
``params`` (game parameters and limits), ``new_game`` (the home page's form), ``service`` (games
as event logs: load, play, replay, hints), ``loaded`` (a game as its log rebuilds it),
``runner`` / ``offload`` (where engine work runs), ``setup`` (the Flask extension), ``view``
(the game page's view model), ``board`` / ``cells`` (the board as drawn), ``replay``.
"""
