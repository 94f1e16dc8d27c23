"""``python -m devil_play`` runs the terminal game (the same as ``devil-play``)."""

from devil_play.tui import main

raise SystemExit(main())
