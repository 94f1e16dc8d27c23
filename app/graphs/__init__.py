"""Graph boards on the web (issue 20): the analysis board for any tiling or cell graph.

``facts`` asks the engine (within a budget), ``drawing`` turns a graph position into SVG
polygons, ``routes`` is the blueprint (``/analyse/graph``).
"""
