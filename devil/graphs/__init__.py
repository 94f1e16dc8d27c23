"""Boards as graphs: any tiling or cell graph (issue 20).

- ``cells``: ``CellGraph`` (cells with id, label, drawing; neighbour pairs);
- ``layout``: ``graph_board`` places a graph on a ``Board`` (``Topology.GRAPH``);
- ``fileformat``: the ``mine-devil-graph`` file, read and written;
- ``tilings``: the built-in tilings, generated with polygons.
"""
