// A card's Changes section: what the code will change, read from its text by the kernel
// (dsh_notebook/context/consequences.py) and carried on the node (`changes`, bounded by
// dsh_notebook/transcript/changes.py). Shown above the code on every card that runs code
// (run_python, each cell of run_cells, after "Edit, then run" the edited code's), as text only:
// names and paths come from the agent's code. The section has an id, and what the card asks to
// read first points at it (`aria-describedby`), so a screen reader reads the Changes with the
// code.
import { h } from "../dom";
import type { ChangeLine } from "../types";
import { READ_FIRST } from "./celledit";

/** The section's title (the transcript's `CHANGES_TITLE`). */
export const CHANGES_TITLE = "Changes";

/** The section for `lines`, or null when the card has none. `id` names it for aria. */
export function changesBlock(lines: ChangeLine[] | null | undefined, id: string): HTMLElement | null {
  if (!lines || lines.length === 0) return null;
  const list = h("ul", { class: "dsh-changes-list" });
  for (const line of lines) {
    const kind = String(line.kind);
    if (kind === "cell") {
      list.appendChild(h("li", { class: "dsh-change dsh-change-cell" }, h("strong", null, line.text)));
    } else {
      list.appendChild(h("li", { class: `dsh-change dsh-change-${kind.replace(/[^a-z]/g, "")}` }, line.text));
    }
  }
  return h(
    "section",
    { class: "dsh-changes", id, "aria-label": "Changes: what the code will change" },
    h("div", { class: "dsh-changes-title" }, CHANGES_TITLE),
    list,
  );
}

/** Points what the card asks to read first (its `[data-dsh-read]` element) at the section. */
export function describeWith(card: HTMLElement, section: HTMLElement | null): void {
  if (section === null) return;
  const target = card.querySelector<HTMLElement>(`[${READ_FIRST}]`);
  if (target === null) return;
  const ids = (target.getAttribute("aria-describedby") ?? "").split(/\s+/).filter((x) => x && x !== section.id);
  target.setAttribute("aria-describedby", [section.id, ...ids].join(" "));
}
