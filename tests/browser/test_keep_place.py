"""Issue 29, item 5: settling keeps the person's place.

Real JupyterLab with this checkout's extension build, a real kernel and runtime, the scripted
model, Debian's chromium. The prompt cell sits between cells that make the notebook scroll; the
approval card is scrolled to a known height and Allow once clicked. About 0.3 s later the static
transcript replaces the widget: the transcript's line for that approval ("Approval for bash:
allowed once") must be where the card was on screen (a few pixels either way), and stay there.
Without a click, the answer being read (a slow stream) keeps its place the same way. Both fail
without the page's place keeping (a jump of about 200 px and 40 px).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, write_notebook
from .labpage import current_panel, open_lab, wait_kernel_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

ABOVE = [f"# a cell above the prompt ({i})\nvalue_{i} = {i}" for i in range(10)]
BELOW = [f"# a cell below the prompt ({i})\nlater_{i} = {i}" for i in range(25)]
TOLERANCE = 4  # px

APPROVAL_LINE = """(cell) => {
    const lines = [...cell.querySelectorAll('.jp-RenderedMarkdown p')]
        .filter(p => p.textContent.startsWith('Approval for') && p.textContent.includes('allowed once'));
    return lines.length === 1 ? lines[0].getBoundingClientRect().top : null;
}"""


def open_and_run(browser: Any, extlab: Lab, name: str, prompt_source: str) -> tuple[Any, Any, int]:
    """Write ``name`` (the extension loaded, cells above, the prompt, cells below), open it in
    JupyterLab and run the loading cell and the prompt as a person does (select, Shift+Enter),
    each until the kernel is idle. The page, its notebook panel and the prompt cell's index."""
    write_notebook(extlab.root / name, ["%load_ext dsh_notebook", *ABOVE, prompt_source, *BELOW])
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    open_lab(page, extlab, f"/tree/{name}")
    page.locator(f".lm-TabBar-tab.jp-mod-current:has-text('{name}')").wait_for()
    wait_kernel_idle(extlab, name)
    panel = current_panel(page)
    panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for()
    cells = panel.locator(".jp-Cell")
    prompt = len(ABOVE) + 1
    for i in (0, prompt):
        cells.nth(i).click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        wait_kernel_idle(extlab, name)
    return page, panel, prompt


def test_the_clicked_card_stays_where_it_was_when_the_transcript_replaces_the_widget(
    browser: Any,
    extlab: Lab,
    artifacts: Path,
    tmp_path: Path,
) -> None:
    name = "keep-place.ipynb"
    target = tmp_path / "approved.txt"
    page, panel, prompt = open_and_run(
        browser, extlab, name, f"%%dsh\n[[scenario:escalate]] [[target:{target}]] do it"
    )
    cells = panel.locator(".jp-Cell")
    allow = panel.locator(".dsh-approval .dsh-allow")
    allow.wait_for(timeout=90_000)
    page.wait_for_timeout(800)  # the card's buttons are inert for half a second
    card = panel.locator(".dsh-approval")
    card.evaluate("c => c.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(300)
    before = card.evaluate("c => c.getBoundingClientRect().top")
    prompt_cell = cells.nth(prompt)
    allow.click()
    prompt_cell.locator(".jp-RenderedMarkdown:has-text('allowed once')").wait_for(timeout=60_000)
    seen: list[float | None] = []
    for _ in range(12):  # 1.2 s: the settled place, and that it stays
        page.wait_for_timeout(100)
        seen.append(prompt_cell.evaluate(APPROVAL_LINE))
    page.screenshot(path=str(artifacts / "keep-place-after-settle.png"))
    assert target.exists()
    assert all(top is not None and abs(top - before) <= TOLERANCE for top in seen[-5:]), (
        before,
        seen,
    )
    page.close()


WATCH_ANSWER = """() => {
    // The answer's place in the widget's last state: read at every frame and after every change
    // of the page (a headless chromium under load draws few frames, and the widget's last
    // change before the transcript replaces it, e.g. its footer, can fall between two).
    window.__answerTop = null;
    const read = () => {
        const text = document.querySelector('.dsh-root .dsh-items > .dsh-text p');
        if (text !== null) window.__answerTop = text.getBoundingClientRect().top;
        return document.querySelector('.dsh-root') !== null;
    };
    const watch = () => { if (read()) requestAnimationFrame(watch); };
    requestAnimationFrame(watch);
    const changes = new MutationObserver(() => { if (!read()) changes.disconnect(); });
    changes.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
}"""

ANSWER_BLOCK = """(cell) => {
    const blocks = [...cell.querySelectorAll('.jp-RenderedMarkdown p')]
        .filter(p => p.textContent.startsWith('slow0 slow1'));
    return blocks.length === 1 ? blocks[0].getBoundingClientRect().top : null;
}"""


def test_without_a_click_the_answer_stays_where_it_was(
    browser: Any,
    extlab: Lab,
    artifacts: Path,
) -> None:
    """Nobody pressed anything in the run: the person was reading the answer as it streamed;
    its first paragraph is where it was (its last frame in the widget) once the transcript
    replaces the widget."""
    name = "keep-place-answer.ipynb"
    page, panel, prompt = open_and_run(
        browser, extlab, name, "%%dsh\n[[scenario:slow]] [[chunks:80]] [[chunk-delay:0.08]] go"
    )
    cells = panel.locator(".jp-Cell")
    text = panel.locator(".dsh-root .dsh-items > .dsh-text")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dsh-root .dsh-text')]"
        ".some(t => t.textContent.includes('slow5'))",
        timeout=90_000,
        polling=100,
    )
    text.first.evaluate("t => t.scrollIntoView({block: 'center'})")
    page.evaluate(WATCH_ANSWER)
    prompt_cell = cells.nth(prompt)
    prompt_cell.locator(".jp-RenderedMarkdown:has-text('slow79')").wait_for(timeout=60_000)
    before = page.evaluate("() => window.__answerTop")
    seen: list[float | None] = []
    for _ in range(12):
        page.wait_for_timeout(100)
        seen.append(prompt_cell.evaluate(ANSWER_BLOCK))
    page.screenshot(path=str(artifacts / "keep-place-answer.png"))
    assert before is not None
    assert all(top is not None and abs(top - before) <= TOLERANCE for top in seen[-5:]), (
        before,
        seen,
    )
    page.close()


PRESS_DURING_HOLD = """(cellIndex) => new Promise((resolve) => {
    const frames = (n, then) => n === 0 ? then() : requestAnimationFrame(() => frames(n - 1, then));
    const cell = () => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')[cellIndex];
    const answer = () => [...cell().querySelectorAll('.jp-RenderedMarkdown p')]
        .find(p => p.textContent.startsWith('slow0 slow1'));
    const scroller = () => {  // as place.ts finds it
        for (let node = answer().parentElement; node !== null; node = node.parentElement) {
            const overflow = getComputedStyle(node).overflowY;
            if ((overflow === 'auto' || overflow === 'scroll') && node.scrollHeight > node.clientHeight) return node;
        }
        return document.scrollingElement;
    };
    // the page scrolled by something else than the person (no wheel, no key): another scroller
    const shift = () => { scroller().scrollTop -= 200; };
    const started = performance.now();
    const wait = () => {
        if (performance.now() - started > 60000) return resolve(null);
        if (!answer() || !cell().textContent.includes('slow19')) return requestAnimationFrame(wait);
        frames(2, () => {
            const before = answer().getBoundingClientRect().top;
            shift();
            frames(3, () => {
                const held = answer().getBoundingClientRect().top - before;
                document.body.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
                const pressed = answer().getBoundingClientRect().top;
                shift();
                frames(3, () => resolve({
                    held, afterPress: answer().getBoundingClientRect().top - pressed,
                    elapsed: performance.now() - started,
                }));
            });
        });
    };
    wait();
})"""


def test_a_press_ends_the_holding_so_the_page_never_moves_under_it(
    browser: Any,
    extlab: Lab,
) -> None:
    """While the place is held, the answer is put back wherever the page is scrolled to by
    anything but the person; once the person presses (a button, a cell), holding ends and the
    page is left where it is: moved under a press, the release lands elsewhere and the click is
    lost."""
    name = "keep-place-press.ipynb"
    page, panel, prompt = open_and_run(
        browser, extlab, name, "%%dsh\n[[scenario:slow]] [[chunks:20]] [[chunk-delay:0.05]] go"
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dsh-root .dsh-text')]"
        ".some(t => t.textContent.includes('slow2'))",
        timeout=90_000,
        polling=100,
    )
    text = panel.locator(".dsh-root .dsh-items > .dsh-text")
    text.first.evaluate("t => t.scrollIntoView({block: 'center'})")
    result = page.evaluate(PRESS_DURING_HOLD, prompt)
    assert result is not None, "the transcript never replaced the widget"
    assert abs(result["held"]) <= TOLERANCE, result  # held: the answer did not move
    assert abs(result["afterPress"] - 200) <= TOLERANCE, result  # after the press: left alone
    page.close()
