// After Allow / Reject / Submit / Dismiss the card re-renders and the clicked button is gone, so
// focus would fall to <body>, where notebook shortcuts stop working. Give it back to the notebook
// cell the widget is in, unless the person has already moved focus somewhere else.
const DECISION_BUTTONS = ".dsh-allow, .dsh-allow-run, .dsh-reject, .dsh-submit, .dsh-dismiss";
const NOTEBOOK_TARGETS = [".jp-Cell", ".jp-Notebook"];

/** Is this event one that answers a card (a decision button, or Enter in a question)? */
export function answersACard(event: Event): boolean {
  const target = event.target instanceof Element ? event.target : null;
  if (!target) return false;
  if (event.type === "click") return target.closest(DECISION_BUTTONS) !== null;
  return event instanceof KeyboardEvent && event.key === "Enter" && target.closest(".dsh-question") !== null;
}

function focusLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

/** Focus the closest focusable notebook cell (else the notebook) around ``el``, if focus was lost. */
export function returnFocusToNotebook(el: HTMLElement): boolean {
  if (!focusLost()) return false;
  for (const selector of NOTEBOOK_TARGETS) {
    const target = el.closest<HTMLElement>(selector);
    if (target && target.hasAttribute("tabindex")) {
      target.focus({ preventScroll: true });
      return document.activeElement === target;
    }
  }
  return false;
}
