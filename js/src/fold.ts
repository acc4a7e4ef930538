// Long text, folded: the first lines, and a "show more" button. Always text nodes.
import { button, h } from "./dom";
import type { Ctx } from "./context";

export function foldedText(
  text: string,
  key: string,
  ownerId: string,
  ctx: Ctx,
  opts: { lines?: number; chars?: number; cls?: string; label?: string } = {},
): HTMLElement {
  const lines = opts.lines ?? 8;
  const chars = opts.chars ?? 2000;
  const all = text.split("\n");
  const tooLong = all.length > lines || text.length > chars;
  const open = ctx.ui.open.has(key);
  let shown = text;
  if (tooLong && !open) {
    shown = all.slice(0, lines).join("\n");
    if (shown.length > chars) shown = shown.slice(0, chars);
  }
  const pre = h("pre", { class: opts.cls ?? "dsh-pre" }, shown);
  if (!tooLong) return pre;
  const hiddenLines = all.length - shown.split("\n").length;
  const more = open
    ? "show less"
    : hiddenLines > 0
      ? `show more (${hiddenLines} more line${hiddenLines === 1 ? "" : "s"})`
      : `show more (${text.length - shown.length} more characters)`;
  const toggle = button(more, `${open ? "Show less" : "Show more"} of ${opts.label ?? "this text"}`, () => {
    ctx.ui.toggle(key, ownerId);
    ctx.schedule();
  }, "dsh-link dsh-more");
  return h("div", { class: "dsh-fold" }, pre, toggle);
}

const VALUE_MAX = 160;

/** Pretty JSON as text, with long string values folded (each expandable on its own). */
export function prettyJson(value: unknown, key: string, ownerId: string, ctx: Ctx): HTMLElement {
  const pre = h("pre", { class: "dsh-pre dsh-json" });
  let counter = 0;
  const write = (s: string): void => {
    pre.appendChild(document.createTextNode(s));
  };
  const walk = (v: unknown, indent: string): void => {
    if (typeof v === "string") {
      const id = `${key}:${counter++}`;
      const literal = JSON.stringify(v);
      if (literal.length <= VALUE_MAX || ctx.ui.open.has(id)) {
        write(literal.length > VALUE_MAX ? v : literal);
        if (literal.length > VALUE_MAX) {
          pre.appendChild(button(" (fold)", "Fold this value", () => {
            ctx.ui.toggle(id, ownerId);
            ctx.schedule();
          }, "dsh-link dsh-more"));
        }
        return;
      }
      write(literal.slice(0, VALUE_MAX - 40) + "…");
      pre.appendChild(button(` (${v.length} characters, show all)`, "Show the whole value", () => {
        ctx.ui.toggle(id, ownerId);
        ctx.schedule();
      }, "dsh-link dsh-more"));
      return;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) return write("[]");
      write("[\n");
      v.forEach((x, i) => {
        write(indent + "  ");
        walk(x, indent + "  ");
        write(i < v.length - 1 ? ",\n" : "\n");
      });
      write(indent + "]");
      return;
    }
    if (v && typeof v === "object") {
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) return write("{}");
      write("{\n");
      entries.forEach(([k, x], i) => {
        write(`${indent}  ${JSON.stringify(k)}: `);
        walk(x, indent + "  ");
        write(i < entries.length - 1 ? ",\n" : "\n");
      });
      write(indent + "}");
      return;
    }
    write(JSON.stringify(v) ?? String(v));
  };
  walk(value, "");
  return pre;
}
