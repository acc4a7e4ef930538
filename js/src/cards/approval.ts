// The approval card: tool, reason, command (code highlighted); Allow once / Allow for this run /
// (run_python) Edit, then run / Reject, inert for a moment after it appears, sent once; the
// decision (and who made it) recorded on the card. "Allow for this run" asks the kernel to answer
// the same tool's later requests of this run itself (each card then says "Allowed (for this
// run)"); "Edit, then run" turns the code into a text field, and what is sent is the edited text
// (the kernel runs it instead, for this call only). The edited text is plain text in a
// <textarea>: never parsed as HTML. The field opens on the node's `proposed` code, which is whole
// or absent (never the capped reason): code too long to come whole is not editable, and the card
// says so (TOO_LONG_TO_EDIT).
//
// A cell edit (edit_cell, replace_cell, insert_cell, delete_cell; docs/cell-editing.md) shows
// the cell and the diff (./celledit) with Apply / Apply edits for this run / Edit, then apply
// (not for a delete: the editor holds the proposed whole source, and what is sent becomes the
// cell) / Reject; run_cells lists its cells with Run / Run cells for this run / Reject. Every
// card can be rejected with a note (one line, at most NOTE_MAX characters, told to the agent
// verbatim); the decided card shows it.
import { button, containKeys, h } from "../dom";
import { Keyed, type Ctx } from "../context";
import { approvalCode, codeBlock, isTool, toolCode } from "../code";
import type { ApprovalItem, ToolItem } from "../types";
import type { ApprovalMessage } from "../messages";
import { foldedText } from "../fold";
import { READ_FIRST, cellEditTool, cellHeader, diffView, isRunCells, parseDiff, readFirst, runCellsList, showInNotebook } from "./celledit";
import { DECIDED_BY_WORDS, OUTCOME_WORDS, isOver } from "./words";
import { changesBlock, describeWith } from "./changes";

export const INERT_MS = 500;
/** Said instead of offering "Edit, then run" when the code is too long to come whole. */
export const TOO_LONG_TO_EDIT =
  "This code is too long to edit in the card (it is shown cut): allow it as the agent wrote it, or reject it with a note saying what to change.";
/** The longest note a Reject may carry (the kernel refuses a longer one). */
export const NOTE_MAX = 500;

/** The buttons' words: a cell edit applies, run_cells runs, other tools are allowed. */
interface Wording {
  once: string;
  forRun: string;
  edit: string;
  submitEdit: string;
  editLabel: string;
}

const ALLOW_WORDS: Wording = {
  once: "Allow once",
  forRun: "Allow for this run",
  edit: "Edit, then run",
  submitEdit: "Run edited code",
  editLabel: "Edit the code; what you run is what the agent is told ran:",
};
const EDIT_WORDS: Wording = {
  once: "Apply",
  forRun: "Apply edits for this run",
  edit: "Edit, then apply",
  submitEdit: "Apply edited source",
  editLabel: "Edit the cell's new source; what you apply becomes the cell:",
};
const RUN_CELLS_WORDS: Wording = { ...ALLOW_WORDS, once: "Run", forRun: "Run cells for this run" };

function wordingOf(tool: string): Wording {
  if (cellEditTool(tool)) return EDIT_WORDS;
  if (isRunCells(tool)) return RUN_CELLS_WORDS;
  return ALLOW_WORDS;
}

/** What a click sent, as the card says it until the kernel's record arrives. */
function sentWords(value: string, words: Wording): string {
  const sent: Record<string, string> = {
    "allowed-once": words.once,
    "allowed-for-run": words.forRun,
    edited: words.submitEdit,
    rejected: "Reject",
    "rejected-note": "Reject with a note",
  };
  return sent[value] ?? "Reject";
}

/** The recorded decision, in words ("Allowed (for this run)" when a scope answered it). */
export function decisionWords(outcome: string | null, decidedBy: string | null): string {
  if (outcome === "allowed-once" && decidedBy === "scope") return "Allowed (for this run)";
  const words = OUTCOME_WORDS[outcome ?? ""] ?? outcome ?? "Decided";
  const by = decidedBy ? DECIDED_BY_WORDS[decidedBy] ?? decidedBy : "";
  return by ? `${words} — ${by}` : words;
}

export function isActionable(card: { request_id: string | null; state: string }, kind: string, ctx: Ctx): boolean {
  const snap = ctx.store.snapshot;
  if (!card.request_id || card.state !== "pending" || isOver(snap.header.state)) return false;
  if (!ctx.store.interactive) return false;
  return snap.pending.some((p) => p.kind === kind && p.request_id === card.request_id);
}

function commandOf(host: ToolItem | null): string | null {
  if (!host) return null;
  const args = host.args as Record<string, unknown> | null;
  if (args && typeof args === "object" && typeof args.command === "string") return args.command;
  if (host.arguments && host.arguments.length <= 2000) return host.arguments;
  return host.summary;
}

/** What is to be approved: the reason, and the code or command (as code, lines kept); for a
 * cell edit the cell and the diff, for run_cells the list of cells. */
function subjectOf(el: HTMLElement, node: ApprovalItem, host: ToolItem | null, ctx: Ctx): HTMLElement[] {
  const code = approvalCode(node);
  // the whole code when the card has it (`proposed`), else the reason (capped, marked)
  if (code !== null) return [codeBlock(node.proposed ?? code, "python", "the code to run")];
  const editTool = cellEditTool(node.tool_name || "");
  if (editTool && node.reason) {
    const parsed = parseDiff(node.reason);
    return [cellHeader(el, node, editTool, parsed), diffView(parsed.lines, `${node.id}:diff`, node.id, ctx)];
  }
  if (isRunCells(node.tool_name || "") && node.reason) {
    // what will run, last before the buttons ("Show in notebook" above it)
    const list = runCellsList(node.reason, node.id, ctx);
    return node.target ? [h("div", { class: "dsh-cell-target" }, showInNotebook(el, node.target)), list] : [list];
  }
  const parts: HTMLElement[] = [];
  if (node.reason) parts.push(h("div", { class: "dsh-reason" }, node.reason));
  const hostCode = host ? toolCode(host) : null;
  if (hostCode) {
    parts.push(codeBlock(hostCode.code, hostCode.language, `the ${hostCode.argument} to run`));
    return parts;
  }
  const command = commandOf(host);
  if (command) parts.push(h("pre", { class: "dsh-pre dsh-command", "aria-label": "Command or arguments" }, command));
  return parts;
}

/** Marks what the card asks the person to read first (READ_FIRST) where the subject did not:
 * the code (or command, or reason) right above the buttons, else the title. */
function markReadFirst(title: HTMLElement, parts: HTMLElement[]): void {
  if (parts.some((p) => p.matches(`[${READ_FIRST}]`) || p.querySelector(`[${READ_FIRST}]`))) return;
  const last = parts[parts.length - 1];
  const target = last?.matches("pre") ? last : last?.querySelector<HTMLElement>("pre") ?? last ?? title;
  const label = target === title ? title.textContent ?? "Approval needed" : target.getAttribute("aria-label") ?? "What the agent asks to do";
  readFirst(target, label);
}

/** What names a focused element across a re-render: what to read, or a button by class and text. */
function focusKey(active: HTMLElement): string | null {
  if (active.hasAttribute(READ_FIRST)) return READ_FIRST;
  if (active instanceof HTMLButtonElement) return `button\u0000${active.className}\u0000${active.textContent ?? ""}`;
  return null;
}

function restoreFocus(el: HTMLElement, key: string): void {
  if (!el.isConnected) return;
  const active = document.activeElement;
  if (active !== null && active !== document.body && active.isConnected) return; // moved on since
  let target: HTMLElement | null = null;
  if (key === READ_FIRST) target = el.querySelector<HTMLElement>(`[${READ_FIRST}]`);
  else {
    for (const b of el.querySelectorAll<HTMLButtonElement>("button")) {
      if (focusKey(b) === key && !b.disabled) target = b;
    }
  }
  target?.focus({ preventScroll: true });
}

/** The person's note with a rejection, as the card shows it. */
function noteLine(note: string): HTMLElement {
  return h("div", { class: "dsh-reject-note-shown" }, h("span", { class: "dsh-reject-note-label" }, "Your note: "), note);
}

export class ApprovalCard extends Keyed<ApprovalItem> {
  readonly el = h("div", { class: "dsh-card dsh-approval", role: "group" });
  host: ToolItem | null = null;
  /** The code editor while "Edit, then run" is open (kept across renders: its text survives). */
  private editor: HTMLTextAreaElement | null = null;
  /** The note field while "Reject with a note…" is open (kept across renders, like the editor). */
  private noteField: HTMLInputElement | null = null;
  /** The note this view sent (shown until the kernel's record carries it). */
  private sentNote: string | null = null;

  constructor() {
    super();
    containKeys(this.el);
  }

  protected key(node: ApprovalItem, ctx: Ctx): string {
    const local = node.request_id ? ctx.store.decisions.get(node.request_id) : undefined;
    return [
      node.rev,
      ctx.ui.version(node.id),
      local ? `${local.status}:${local.error ?? ""}` : "",
      isActionable(node, "approval", ctx),
      ctx.store.snapshot.header.state,
      this.host?.rev ?? "",
    ].join("|");
  }

  protected render(node: ApprovalItem, ctx: Ctx): void {
    const el = this.el;
    // a re-render (the buttons waking after INERT_MS, a decision arriving) keeps the focus where
    // it was: on what to read, or on the same button
    const active = document.activeElement;
    const refocus = active instanceof HTMLElement && el.contains(active) ? focusKey(active) : null;
    el.textContent = "";
    el.className = `dsh-card dsh-approval dsh-state-${node.state}`;
    el.setAttribute("aria-label", `Approval request for ${node.tool_name || "a tool"}`);
    el.dataset.requestId = node.request_id ?? "";
    // "needed" only while the click is still the person's to give: a decided, sent or
    // interrupted card says what became of it below, under a plain heading
    const local = node.request_id ? ctx.store.decisions.get(node.request_id) : undefined;
    const open = node.state !== "decided" && !node.outcome && !local && !isOver(ctx.store.snapshot.header.state);
    el.appendChild(
      h("div", { class: "dsh-card-title" }, open ? "Approval needed: " : "Approval: ", h("code", { class: "dsh-tool-name" }, node.tool_name || "tool")),
    );
    const title = el.lastElementChild as HTMLElement;
    // what the code will change, above the code (cards that run code; the kernel's analysis)
    const changes = changesBlock(node.changes, `dsh-changes-${node.id}`);
    if (changes) el.appendChild(changes);
    const parts = subjectOf(el, node, this.host, ctx);
    for (const part of parts) el.appendChild(part);
    markReadFirst(title, parts);
    describeWith(el, changes);
    if (refocus !== null) ctx.later(0, () => restoreFocus(el, refocus));
    const tool = node.tool_name || "tool";
    const words = wordingOf(tool);

    if (node.state === "decided" || node.outcome) {
      this.editor = null;
      this.noteField = null;
      el.appendChild(
        h("div", { class: `dsh-outcome dsh-outcome-${node.outcome ?? "unknown"}`, role: "status" }, decisionWords(node.outcome, node.decided_by)),
      );
      const note = node.note ?? (node.outcome === "rejected" ? this.sentNote : null);
      if (note) el.appendChild(noteLine(note));
      if (node.decided_by === "you-edited" && cellEditTool(tool) && node.proposed != null) {
        // the diff is the agent's proposal; what became the cell is the person's text
        el.appendChild(h("div", { class: "dsh-result-label" }, "The source you applied instead:"));
        el.appendChild(foldedText(node.proposed, `${node.id}:applied`, node.id, ctx, { lines: 12, label: "the source you applied" }));
      }
      return;
    }
    if (local) {
      const verb = sentWords(String(local.value), words);
      if (local.status === "failed") {
        el.appendChild(h("div", { class: "dsh-card-error", role: "alert" }, `${verb} was not delivered: ${local.error}`));
      } else {
        el.appendChild(
          h("div", { class: "dsh-outcome dsh-outcome-sent", role: "status" }, `${verb} — sent${local.status === "acknowledged" ? ", waiting for the agent" : "…"}`),
        );
        if (this.sentNote) el.appendChild(noteLine(this.sentNote));
      }
      return;
    }
    if (isOver(ctx.store.snapshot.header.state)) {
      el.appendChild(h("div", { class: "dsh-outcome", role: "status" }, "Not decided — the run was interrupted"));
      return;
    }
    if (!isActionable(node, "approval", ctx)) {
      const why = !ctx.store.interactive
        ? "Answer in the prompt below the cell (this run waits in the cell)."
        : "Waiting for the approval request…";
      el.appendChild(h("div", { class: "dsh-muted" }, why));
      return;
    }
    const requestId = node.request_id as string;
    const appeared = ctx.ui.appeared.get(node.id) ?? ctx.now();
    ctx.ui.appeared.set(node.id, appeared);
    const inert = ctx.now() - appeared < INERT_MS;
    // the protocol's outcomes (ApprovalOutcome), as the runtime receives them; a scope or an
    // edit rides along and is the kernel's business (the wire only ever says allowed-once)
    const send = (shown: string, choice: Omit<ApprovalMessage, "type" | "request_id">) => {
      if (ctx.now() - appeared < INERT_MS) return; // too soon: a stray double click
      ctx.store.decide({ type: "approval", request_id: requestId, ...choice }, shown);
    };
    const decide = (decision: "allowed-once" | "rejected") => send(decision, { decision });
    const editTool = cellEditTool(tool);
    // run_python edits its code, a cell edit (not a delete) its new source: both from
    // `proposed`, which is whole or absent (the reason is capped: an editor on it would run cut
    // code with the cut marker in it)
    const runPython = isTool(tool, "run_python");
    const code = editTool === "delete_cell" || !(editTool || runPython) ? null : node.proposed ?? null;
    const editable = code !== null;
    if (runPython && !editable && approvalCode(node) !== null) {
      el.appendChild(h("div", { class: "dsh-muted dsh-edit-unavailable" }, TOO_LONG_TO_EDIT));
    }
    const buttons: HTMLButtonElement[] = [];
    if (this.editor !== null && editable) {
      const editor = this.editor;
      // the editor replaces the highlighted code: what is in it is what will run (a cell edit
      // keeps its diff above: what the agent proposed)
      el.querySelector(".dsh-code")?.remove();
      el.appendChild(h("label", { class: "dsh-edit-label" }, words.editLabel));
      el.appendChild(editor);
      const run = button(words.submitEdit, `${words.submitEdit}: ${tool}`, () => {
        if (!editor.value.trim()) return; // nothing to run: Reject instead
        send("edited", { decision: "allowed-once", code: editor.value });
      }, "dsh-btn dsh-allow dsh-run-edited");
      const cancel = button("Cancel edit", `Cancel the edit (back to the agent's ${editTool ? "source" : "code"})`, () => {
        this.editor = null;
        ctx.ui.bump(node.id);
        ctx.schedule();
      }, "dsh-btn dsh-edit-cancel");
      buttons.push(run, cancel);
    } else {
      this.editor = null;
      buttons.push(button(words.once, `${words.once}: ${tool}`, () => decide("allowed-once"), "dsh-btn dsh-allow"));
      buttons.push(button(words.forRun, words === ALLOW_WORDS ? `Allow ${tool} for the rest of this run` : `${words.forRun} (${tool})`, () => send("allowed-for-run", { decision: "allowed-once", scope: "run" }), "dsh-btn dsh-allow-run"));
      if (editable) {
        buttons.push(button(words.edit, `${words.edit}: ${tool}`, () => {
          if (ctx.now() - appeared < INERT_MS) return;
          const what = editTool ? "The cell's new source (editable)" : "The code to run (editable)";
          const editor = h("textarea", { class: "dsh-edit-code", spellcheck: "false", rows: String(Math.min(20, Math.max(3, (code ?? "").split("\n").length + 1))), "aria-label": what }) as HTMLTextAreaElement;
          editor.value = code ?? "";
          // the field grows with the code (up to 30 lines, then it scrolls)
          editor.addEventListener("input", () => {
            editor.rows = Math.min(30, Math.max(3, editor.value.split("\n").length + 1));
          });
          this.editor = editor;
          ctx.ui.bump(node.id);
          ctx.schedule();
          ctx.later(0, () => editor.focus());
        }, "dsh-btn dsh-edit"));
      }
    }
    buttons.push(button("Reject", `Reject: ${tool}`, () => decide("rejected"), "dsh-btn dsh-reject"));
    const noteRow = this.noteRow(node, ctx, tool, (note) => {
      if (ctx.now() - appeared < INERT_MS) return;
      const sentBefore = this.sentNote;
      this.sentNote = note || null;
      if (note) send("rejected-note", { decision: "rejected", note });
      else decide("rejected"); // an empty note: a plain Reject (the kernel refuses an empty one)
      if (!ctx.store.decisions.has(requestId)) this.sentNote = sentBefore;
    });
    if (inert) {
      for (const b of [...buttons, ...noteRow.querySelectorAll("button")]) b.disabled = true;
      ctx.later(INERT_MS - (ctx.now() - appeared) + 1, () => {
        ctx.ui.bump(node.id);
        ctx.schedule();
      });
    }
    el.appendChild(h("div", { class: "dsh-actions" }, ...buttons));
    el.appendChild(noteRow);
  }

  /** "Reject with a note…", or (open) a one-line field: Enter or "Reject with this note" sends,
   * Escape or Cancel closes it. */
  private noteRow(node: ApprovalItem, ctx: Ctx, tool: string, reject: (note: string) => void): HTMLElement {
    const reopen = () => {
      ctx.ui.bump(node.id);
      ctx.schedule();
    };
    if (this.noteField === null) {
      return h("div", { class: "dsh-reject-note" }, button("Reject with a note…", `Reject ${tool} and tell the agent why`, () => {
        const field = h("input", { type: "text", class: "dsh-reject-note-field", maxlength: NOTE_MAX, placeholder: "Why? (told to the agent)", "aria-label": "Your note to the agent (why you reject)" }) as HTMLInputElement;
        field.addEventListener("keydown", (event) => {
          if (event.key === "Enter" && !event.isComposing) {
            event.preventDefault();
            reject(field.value.trim().slice(0, NOTE_MAX));
          } else if (event.key === "Escape") {
            event.preventDefault();
            this.noteField = null;
            reopen();
          }
        });
        this.noteField = field;
        reopen();
        ctx.later(0, () => field.focus());
      }, "dsh-link dsh-reject-note-open"));
    }
    const field = this.noteField;
    return h("div", { class: "dsh-reject-note dsh-reject-note-open-row" }, field,
      button("Reject with this note", `Reject ${tool} with this note`, () => reject(field.value.trim().slice(0, NOTE_MAX)), "dsh-btn dsh-reject dsh-reject-note-send"),
      button("Cancel", "Close the note (nothing is sent)", () => {
        this.noteField = null;
        reopen();
      }, "dsh-btn dsh-reject-note-cancel"));
  }
}
