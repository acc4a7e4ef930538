"""Issue 29: the waiting signal everyone can use, in a real JupyterLab with a real pending approval.

- "dsh: N waiting" and the card's filled decision button ("Allow once", "Apply") read at a
  contrast of at least 4.5:1 in the light and the dark theme (computed colours);
- on an inactive tab the badge is a small pill beside the notebook's name, never a bar over it;
- "dsh: Go to the next waiting request" (palette, Alt+Shift+D) scrolls to the waiting card so
  that its buttons are on screen and focuses what it asks to read (issue 43: never a button),
  the first button one Tab away.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, write_notebook
from .labpage import current_panel, menu_command, open_lab, wait_kernel_idle

pytestmark = pytest.mark.browser

FILLER = [f"# a cell above the prompt ({i})\nvalue_{i} = {i}" for i in range(14)]


def channels(rgb: str) -> tuple[float, float, float, float]:
    """``rgb(…)`` / ``rgba(…)`` as red, green, blue (0 to 255) and alpha (0 to 1)."""
    values = [float(v) for v in re.findall(r"\d+(?:\.\d+)?", rgb)]
    return values[0], values[1], values[2], values[3] if len(values) > 3 else 1.0


def luminance(rgb: str) -> float:
    r, g, b = (v / 255 for v in channels(rgb)[:3])

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast; a translucent foreground (JupyterLab Dark's ``rgba(0, 0, 0, 0.8)``) is
    composited over the background first, as the eye sees it."""
    r, g, b, a = channels(fg)
    if a < 1:
        under = channels(bg)
        r, g, b = (a * top + (1 - a) * low for top, low in zip((r, g, b), under[:3], strict=True))
        fg = f"rgb({r}, {g}, {b})"
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def status_contrast(page: Any) -> float:
    fg, bg = page.eval_on_selector(
        ".jp-StatusBar-Widget .dsh-waiting-status",
        "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]",
    )
    return contrast(fg, bg)


def allow_contrast(page: Any) -> float:
    fg, bg = page.eval_on_selector(
        ".dsh-approval .dsh-allow",
        "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]",
    )
    return contrast(fg, bg)


def test_signal_contrast_tab_badge_and_go_to_the_next_waiting_request(
    browser: Any,
    extlab: Lab,
    artifacts: Path,
    tmp_path: Path,
) -> None:
    target = tmp_path / "approved.txt"
    write_notebook(
        extlab.root / "signals.ipynb",
        ["%load_ext dsh_notebook", *FILLER,
         f"%%dsh\n[[scenario:escalate]] [[target:{target}]] do it", "after = 1"],
    )  # fmt: skip
    write_notebook(extlab.root / "other.ipynb", ["1 + 1"])
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    open_lab(page, extlab, "/tree/signals.ipynb")
    page.locator(".lm-TabBar-tab.jp-mod-current:has-text('signals.ipynb')").wait_for()
    wait_kernel_idle(extlab, "signals.ipynb")
    panel = current_panel(page)
    panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    cells = panel.locator(".jp-Cell")
    prompt = len(FILLER) + 1
    for i in (0, prompt):
        cells.nth(i).click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        wait_kernel_idle(extlab, "signals.ipynb")
    status = page.locator(".jp-StatusBar-Widget .dsh-waiting-status")
    status.wait_for(state="visible", timeout=90_000)
    panel.locator(".dsh-allow").wait_for(timeout=30_000)
    page.wait_for_timeout(800)  # the card's buttons are inert for half a second

    # the command: from the top of the notebook, the card's buttons come on screen, focused
    cells.nth(1).click()
    page.keyboard.press("Escape")
    panel.locator(".jp-WindowedPanel-outer").evaluate("e => { e.scrollTop = 0 }")
    page.keyboard.press("Alt+Shift+D")
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.matches('.dsh-approval [data-dsh-read]')",
        timeout=10_000,
        polling=100,
    )
    page.keyboard.press("Tab")  # the decision's first button, one Tab away
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.tagName === 'BUTTON'"
        " && document.activeElement.closest('.dsh-approval .dsh-actions')",
        timeout=10_000,
        polling=100,
    )
    box = page.evaluate(
        "() => { const r = document.activeElement.getBoundingClientRect();"
        " return [r.top, r.bottom, window.innerHeight, document.activeElement.textContent]; }"
    )
    assert box[0] >= 0 and box[1] <= box[2], box  # the button is on screen
    assert box[3] == "Allow once", box
    page.screenshot(path=str(artifacts / "waiting-go-to-next.png"))

    # the palette lists the command
    cells.nth(1).click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+C")
    search = page.locator(".lm-CommandPalette-input")
    search.wait_for(timeout=10_000)
    search.fill("next waiting")
    page.screenshot(path=str(artifacts / "waiting-palette.png"))
    item = page.locator(".lm-CommandPalette-item:has-text('dsh: Go to the next waiting request')")
    item.first.wait_for(timeout=10_000)
    page.keyboard.press("Escape")

    light = status_contrast(page)
    assert light >= 4.5, light
    light_allow = allow_contrast(page)
    assert light_allow >= 4.5, light_allow

    # an inactive tab: open another notebook; the badge stays beside the name
    menu_command(page, "File", "Open from Path")
    page.keyboard.type("other.ipynb")
    page.keyboard.press("Enter")
    page.locator(".lm-TabBar-tab.jp-mod-current:has-text('other.ipynb')").wait_for()
    tab = page.locator(".lm-TabBar-tab.dsh-mod-waiting[data-dsh-waiting='1']")
    assert "lm-mod-current" not in (tab.get_attribute("class") or "")
    badge = tab.evaluate(
        "t => { const s = getComputedStyle(t, '::after'); const l = t.querySelector("
        "'.lm-TabBar-tabLabel').getBoundingClientRect(); return [s.position, s.content,"
        " s.width, l.width, t.getBoundingClientRect().width, s.color, s.backgroundColor]; }"
    )
    assert badge[0] == "static" and badge[1] == '"1"', badge  # in the flow, not a bar over it
    assert float(badge[2].removesuffix("px")) < 40 and badge[3] > 40, badge
    assert contrast(badge[5], badge[6]) >= 4.5, badge
    page.screenshot(path=str(artifacts / "waiting-inactive-tab.png"))

    # the dark theme, on the waiting notebook again
    tab.click()
    status.wait_for(state="visible", timeout=10_000)
    page.click("li.lm-MenuBar-item:has-text('Settings')")
    page.hover(".lm-Menu-item:has-text('Theme')")
    page.click(".lm-Menu-item:has-text('JupyterLab Dark')")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=20_000, polling=100)
    page.wait_for_timeout(500)
    dark = status_contrast(page)
    assert dark >= 4.5, dark
    dark_allow = allow_contrast(page)
    assert dark_allow >= 4.5, dark_allow
    page.screenshot(path=str(artifacts / "waiting-dark.png"))
    page.close()
