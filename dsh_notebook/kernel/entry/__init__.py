"""The extension's entry points: loading and unloading, the ``%%dsh``/``%dsh`` magics and the
sending of one cell's prompt, the ``%dsh`` commands, warm-up ahead of the first prompt."""
