"""The kernel's declarations, imported by every other room: settings, ``%%dsh`` cell options and
their closed choices, the ``%dsh`` line arguments."""
