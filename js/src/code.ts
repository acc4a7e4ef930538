// Code an agent wants to run (run_python's code, bash's command), shown as code: its exact text
// and line breaks, monospace, highlighted, scrolling when long, with a Copy button. Mirrors
// dsh_notebook/transcript/display.py, so the live card and the static transcript agree.
import { button, h } from "./dom";
import { highlight } from "./highlight";
import { copyText } from "./markdown";
import { htmlToFragment } from "./sanitize";
import type { ApprovalItem, ToolItem } from "./types";

export interface ToolCode {
  code: string;
  /** The argument that holds the code ("code", "command"). */
  argument: string;
  language: string;
  /** The remaining arguments (without the code and a description the heading shows). */
  otherArgs: Record<string, unknown>;
}

const CODE_ARGUMENTS: [tool: string, argument: string, language: string][] = [
  ["run_python", "code", "python"],
  ["bash", "command", "bash"],
];

/** A tool's name in words: ``mcp__notebook__run_python`` reads "run_python (notebook)"; other
 * names as they are. Mirrors ``tool_label`` in dsh_notebook/transcript/display.py. */
export function toolLabel(name: string): string {
  if (name.startsWith("mcp__")) {
    const rest = name.slice("mcp__".length);
    const cut = rest.indexOf("__");
    if (cut > 0 && cut + 2 < rest.length) return `${rest.slice(cut + 2)} (${rest.slice(0, cut)})`;
  }
  return name;
}

/** ``run_python`` is also ``mcp__notebook__run_python`` (an MCP server's tool). */
export function isTool(name: string, tool: string): boolean {
  return name === tool || name.endsWith(`__${tool}`);
}

export function toolCode(tool: ToolItem): ToolCode | null {
  const args = tool.args;
  if (!args || typeof args !== "object" || Array.isArray(args)) return null;
  const record = args as Record<string, unknown>;
  for (const [name, argument, language] of CODE_ARGUMENTS) {
    const code = record[argument];
    if (!isTool(tool.name || "", name) || typeof code !== "string") continue;
    const shown = [tool.description, tool.summary];
    const otherArgs = Object.fromEntries(
      Object.entries(record).filter(([k, v]) => k !== argument && !(k === "description" && shown.includes(v as string))),
    );
    return { code, argument, language, otherArgs };
  }
  return null;
}

/** The code of a ``run_python`` approval: the notebook server sends the code as the reason. */
export function approvalCode(node: ApprovalItem): string | null {
  if (!isTool(node.tool_name || "", "run_python")) return null;
  return node.reason && node.reason.trim() ? node.reason : null;
}

/** A complete code block (so it can be copied): language bar, Copy, highlighted ``<pre>``. */
export function codeBlock(code: string, language: string, label: string): HTMLElement {
  const el = h("code", { class: `language-${language}` });
  const html = highlight(code, language);
  if (html === null) {
    el.textContent = code;
  } else {
    el.appendChild(htmlToFragment(html)); // highlight.js escapes the code; the allowlist runs too
    el.classList.add("hljs");
  }
  const copy = button("Copy", `Copy ${label}`, () => copyText(code, copy), "dsh-btn dsh-copy");
  return h("div", { class: "dsh-code dsh-md" },
    h("div", { class: "dsh-code-bar" }, h("span", { class: "dsh-code-lang" }, language), copy),
    h("pre", { class: "dsh-code-pre", "aria-label": label }, el));
}
