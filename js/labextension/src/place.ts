/**
 * Which part of a settled run's transcript stands for the part of its live widget a person was
 * looking at (pure DOM queries, no JupyterLab imports).
 *
 * - an approval card (`.dsh-approval`) is the transcript's n-th "Approval for …" line, n its
 *   place among the widget's approval cards; a question card (`.dsh-question`) likewise the
 *   n-th "Question · …" line;
 * - the answer (the widget's last top-level `.dsh-text`) is the last transcript block whose text
 *   starts as the answer's first block does;
 * - anything else has no counterpart (`null`): the caller falls back to the answer, then to the
 *   output itself.
 */

/** What to look for in the transcript. */
export type PlaceKey =
  | { kind: 'card'; lead: string; index: number }
  | { kind: 'text'; start: string }
  | { kind: 'output' };

const LEADS: ReadonlyArray<[string, string]> = [
  ['.dsh-approval', 'Approval for '],
  ['.dsh-question', 'Question ·']
];
const BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, pre, blockquote, td';
const START_CHARS = 40;

/** Whitespace collapsed, trimmed. */
export function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The key of a card (an element inside `root`, the widget's `.dsh-root`), or `null`. */
export function cardKey(root: Element, card: Element): PlaceKey | null {
  for (const [selector, lead] of LEADS) {
    if (card.matches(selector)) {
      const index = Array.from(root.querySelectorAll(selector)).indexOf(card);
      return index < 0 ? null : { kind: 'card', lead, index };
    }
  }
  return null;
}

/** The widget's answer: its last top-level text item, and the key of its first block. */
export function answerOf(root: Element): { element: Element; key: PlaceKey } | null {
  const texts = Array.from(root.querySelectorAll('.dsh-items > .dsh-text'));
  for (let i = texts.length - 1; i >= 0; i--) {
    const element = texts[i]!;
    const first = element.querySelector(BLOCKS) ?? element;
    const start = normalized(first.textContent ?? '').slice(0, START_CHARS);
    if (start !== '') {
      return { element: first, key: { kind: 'text', start } };
    }
  }
  return null;
}

/** The element of `transcript` (the settled output's node) that `key` names, or `null`. */
export function findPlace(transcript: Element, key: PlaceKey): Element | null {
  if (key.kind === 'output') {
    return transcript;
  }
  const blocks = Array.from(transcript.querySelectorAll(BLOCKS));
  if (key.kind === 'card') {
    const lines = blocks.filter(b => b.tagName === 'P' && normalized(b.textContent ?? '').startsWith(key.lead));
    return lines[key.index] ?? null;
  }
  for (let i = blocks.length - 1; i >= 0; i--) {
    if (normalized(blocks[i]!.textContent ?? '').startsWith(key.start)) {
      return blocks[i]!;
    }
  }
  return null;
}

/** The nearest ancestor of `el` that scrolls vertically (the notebook's), else the page's. */
export function scrollerOf(el: Element): Element | null {
  for (let node = el.parentElement; node !== null; node = node.parentElement) {
    const overflow = getComputedStyle(node).overflowY;
    if ((overflow === 'auto' || overflow === 'scroll') && node.scrollHeight > node.clientHeight) {
      return node;
    }
  }
  return document.scrollingElement;
}

/** Whether `el` is (partly) inside the visible part of `scroller`. */
export function onScreen(el: Element, scroller: Element): boolean {
  const box = el.getBoundingClientRect();
  const view = scroller === document.scrollingElement ? { top: 0, bottom: window.innerHeight } : scroller.getBoundingClientRect();
  return box.height > 0 && box.bottom > view.top && box.top < view.bottom;
}
