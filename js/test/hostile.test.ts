// Agent text is untrusted: nothing it says may become executable or loading content.
import { beforeEach, describe, expect, it } from "vitest";
import { MarkdownView, md, renderMarkdown } from "../src/markdown";
import { isSafeUrl } from "../src/sanitize";
import { FakeModel, approval, mount, question, snap, text, tool } from "./helpers";

const HOSTILE = [
  "<script>window.__pwned = 1</script>",
  "<img src=x onerror=\"window.__pwned=1\">",
  "<svg onload=\"window.__pwned=1\"><circle/></svg>",
  "<iframe src=\"javascript:window.__pwned=1\"></iframe>",
  "<a href=\"javascript:window.__pwned=1\">raw html link</a>",
  "<details open ontoggle=\"window.__pwned=1\">x</details>",
  "<style>body{display:none}</style>",
  "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=1>",
  "[click](javascript:window.__pwned=1)",
  "[click](JaVaScRiPt:window.__pwned=1)",
  "[click](  javascript:window.__pwned=1)",
  "[click](java\tscript:window.__pwned=1)",
  "[click](&#106;avascript:window.__pwned=1)",
  "[click](&#x6A;avascript&colon;window.__pwned=1)",
  "[click](javascript%3Awindow.__pwned=1)",
  "[click](%6Aavascript:window.__pwned=1)",
  "[click](vbscript:msgbox(1))",
  "[click](VBScript:msgbox(1))",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](DATA:text/html,<script>alert(1)</script>)",
  "[click](data:image/svg+xml,<svg onload=alert(1)>)",
  "[click](file:///etc/passwd)",
  "[ref][r]\n\n[r]: javascript:window.__pwned=1",
  "<javascript:window.__pwned=1>",
  "![img](https://evil.example/track.png)",
  "![img](x \"title\" onerror=alert(1))",
  "![img](javascript:alert(1))",
  "```html\n<script>window.__pwned=1</script>\n```",
  "```\n</code></pre><img src=x onerror=window.__pwned=1>\n```",
  "`<img src=x onerror=window.__pwned=1>`",
  "<!-- <img src=x onerror=window.__pwned=1> -->",
  "<div style=\"background:url(javascript:alert(1))\">x</div>",
  "<a href=\"#\" onclick=\"window.__pwned=1\">x</a>",
  "<form action=\"javascript:alert(1)\"><button>go</button></form>",
  "<object data=\"javascript:alert(1)\"></object><embed src=\"javascript:alert(1)\">",
  "<base href=\"javascript:alert(1)//\">",
  "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
  "www.example.com/<img src=x onerror=alert(1)>",
  "| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |",
];

const DANGEROUS_TAGS = "script, img, svg, iframe, object, embed, style, form, input, math, base, meta, link, video, audio, frame, template";

function assertInert(root: ParentNode): void {
  expect(root.querySelectorAll(DANGEROUS_TAGS.replace(/input, /, "")).length).toBe(0);
  for (const el of root.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      expect(attr.name.toLowerCase().startsWith("on"), `${el.tagName} ${attr.name}`).toBe(false);
      expect(["style", "src", "srcdoc", "action", "formaction", "xlink:href"]).not.toContain(attr.name.toLowerCase());
    }
  }
  for (const a of root.querySelectorAll("a")) {
    const href = a.getAttribute("href");
    if (href !== null) expect(href, href).toMatch(/^(https?:\/\/|mailto:|#)/i);
  }
  expect((window as any).__pwned).toBeUndefined();
}

describe("hostile agent text", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it.each(HOSTILE)("markdown %#: nothing executable", (payload) => {
    const host = document.createElement("div");
    host.appendChild(renderMarkdown(payload));
    assertInert(host);
    // and while it streams in, character by character chunks
    const view = new MarkdownView();
    for (let i = 1; i <= payload.length; i += 3) view.update(payload.slice(0, i), true);
    view.update(payload, true);
    assertInert(view.el);
  });

  it("keeps the text of what it neutralized visible", () => {
    const host = document.createElement("div");
    host.appendChild(renderMarkdown("<script>alert(1)</script> and [x](javascript:alert(1))"));
    expect(host.textContent).toContain("<script>alert(1)</script>");
    expect(host.textContent).toContain("[x](javascript:alert(1))");
  });

  it("keeps good links, opened safely", () => {
    const host = document.createElement("div");
    host.appendChild(renderMarkdown("[docs](https://example.com/a?b=c) and <mailto:me@example.com> and https://example.org"));
    const links = [...host.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual([
      "https://example.com/a?b=c", "mailto:me@example.com", "https://example.org",
    ]);
    for (const a of links) {
      expect(a.getAttribute("rel")).toBe("noopener noreferrer nofollow");
      expect(a.getAttribute("target")).toBe("_blank");
    }
  });

  it("has markdown-it refuse bad links itself, before the sanitizer", () => {
    expect(md.options.html).toBe(false);
    for (const bad of ["javascript:x", "vbscript:x", "data:image/png;base64,AAAA", "data:text/html,x", "/relative"]) {
      expect(md.validateLink(bad), bad).toBe(false);
    }
    expect(md.validateLink("https://example.com")).toBe(true);
  });

  it("classifies URLs", () => {
    for (const bad of ["javascript:x", " JAVASCRIPT:x", "java\nscript:x", "\u0000javascript:x", "vbscript:x", "data:text/html,x",
      "data:image/png;base64,AAAA", "file:///x", "javascript%3Ax", "/api/kernels", "../x", "//evil.example", "https://user@evil.example"]) {
      expect(isSafeUrl(bad), bad).toBe(false);
    }
    for (const good of ["https://example.com", "http://x.y/z?q=1#f", "mailto:a@b.c", "#section"]) {
      expect(isSafeUrl(good), good).toBe(true);
    }
  });

  it("shows tool output, arguments, names, reasons and questions as text only", () => {
    const payload = HOSTILE.join("\n");
    const s = snap({
      state: "waiting",
      prompt: payload,
      context: [{ token: "<img src=x onerror=alert(1)>", kind: "<svg onload=alert(1)>", summary: payload, chars: 1 }],
      header: { session_id: "<script>alert(1)</script>", title: "<img src=x onerror=alert(1)>", model: "<svg onload=alert(1)>" } as any,
      items: [
        text("i1", payload, true, "reasoning"),
        tool("i2", {
          name: "<img src=x onerror=alert(1)>", description: payload, summary: payload, result: payload,
          arguments: payload, args: { command: payload, nested: [payload, { k: payload }] }, is_error: true, error_code: "<b>x</b>",
          job: { job_id: "<script>", kind: "<img>", status: payload, detail: payload },
          approval: approval("i3", "a1", { tool_name: "<svg onload=alert(1)>", reason: payload }),
          subagent: {
            kind: "subagent", id: "i4", rev: 1, child_id: "<script>", label: payload, description: payload, mode: payload,
            prompt: payload, state: "running", status: null, stop_reason: payload, result: payload, turns: 1,
            usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
            items: [text("i5", payload), { kind: "<img src=x onerror=alert(1)>", id: "i6", rev: 1 }], items_omitted: 0,
          },
        }),
        question("i7", "q1", {
          questions: [{ id: "q", question: payload, header: payload, detail: payload, multi_select: true,
            options: [{ label: "<img src=x onerror=alert(1)>", description: payload }] }],
        }),
        { kind: "error", id: "i8", rev: 1, source: "turn", message: payload, code: payload, status: null, hint: payload, detail: payload },
        { kind: "note", id: "i9", rev: 1, note: "<x>", text: payload, count: 1 },
        { kind: "user", id: "i10", rev: 1, text: payload },
        text("i11", payload),
      ],
      pending: [
        { kind: "approval", id: "i3", request_id: "a1", session_id: "s1" },
        { kind: "question", id: "i7", request_id: "q1", session_id: "s1" },
      ],
      unknown: { "<img src=x onerror=alert(1)>": 1 },
    });
    const { el, flush } = mount(new FakeModel(s));
    // open everything that can be opened, then look again
    for (let round = 0; round < 4; round++) {
      for (const b of el.querySelectorAll<HTMLButtonElement>(".dsh-link")) if (!/less|hide|fold/i.test(b.textContent ?? "")) b.click();
      for (const d of el.querySelectorAll<HTMLDetailsElement>("details")) d.open = true;
      flush();
    }
    expect(el.querySelector(".dsh-children")).not.toBeNull();
    expect(el.querySelector(".dsh-prompt-full")).not.toBeNull();
    // form controls of our own cards are fine; nothing else dangerous
    for (const input of el.querySelectorAll("input")) expect(input.closest(".dsh-question")).not.toBeNull();
    for (const input of el.querySelectorAll("input")) input.remove();
    assertInert(el);
    expect(el.querySelector(".dsh-tool-name")!.textContent).toBe("<img src=x onerror=alert(1)>");
    expect(el.querySelector(".dsh-result")!.textContent).toContain("<script>window.__pwned = 1</script>");
  });
});
