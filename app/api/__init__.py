"""The JSON API for bots and tools: ``routes`` (mounted at ``/api``) and ``state`` (the JSON
sent about a game)."""
