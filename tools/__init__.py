"""The repository's own tools (run from the repository's root as ``python -m tools.<name>``):
what writes a generated file (the client's models, the blocking client, the reference pages, the
lock) and checks it is current."""
