"""The exact solver and its kernels (every module here is compiled with mypyc when a C
compiler is there: ``devil.native`` and ``hatch_build.py`` list this folder).

Public names are re-exported by ``devil.solver`` (``classify``, ``probabilities``,
``witness``, ``Solver``); the pipeline is described in ``devil.solve.position_analysis``."""
