"""Live updates of a game: the Server-Sent Events stream watchers subscribe to (``routes``)."""
