"""Where a proactive message goes: one small module per channel behind the ``Channel`` protocol."""
