"""The page's second ``hello_reply`` (issue 49 item 5c): a JupyterLab 4.4+ page says hello
again on its comm subshell once that started, so a fresh kernel's Run All knows the page before
its first prompt; the kernel takes that one repeat quietly (no state re-sent, nothing counted as
refused) and still bounds a flood."""

from __future__ import annotations

from dsh_notebook.frontend.pages import Pages


def test_a_pages_one_repeated_hello_is_expected_a_flood_is_refused() -> None:
    """A JupyterLab 4.4+ page says hello again on its comm subshell (a Run All on a fresh
    kernel): that one repeat re-sends nothing and is not counted as refused; more are."""
    now = [100.0]
    pages = Pages(clock=lambda: now[0])
    caps = frozenset({"read_notebook"})
    assert pages.hello("p1", caps) is True
    now[0] += 0.2
    assert pages.hello("p1", caps) is False and pages.hellos.dropped_total == 0
    now[0] += 0.2
    assert pages.hello("p1", caps) is False and pages.hellos.dropped_total == 1
