// Defense in depth for rendered markdown: markdown-it runs with html:false and a link validator,
// and its output is still parsed into an inert <template> and filtered through an allowlist
// before it reaches the page.

const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** True for http(s)/mailto URLs and in-page anchors; false for javascript:, data:, vbscript:, … */
export function isSafeUrl(raw: string): boolean {
  if (typeof raw !== "string") return false;
  // browsers ignore ASCII whitespace and control characters inside a scheme: strip them first
  let url = raw.replace(/[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\ufeff]/g, "");
  try {
    url = decodeURIComponent(url);
  } catch {
    // keep it as it was
  }
  url = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, "").toLowerCase();
  if (url.startsWith("#")) return true;
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(url);
  if (!scheme) return false; // relative URLs could reach the Jupyter server itself
  if (!SAFE_SCHEMES.has(`${scheme[1]}:`)) return false;
  return !/^(https?:)?\/\/[^/]*@/.test(url) || scheme[1] === "mailto";
}

const DROP = new Set([
  "SCRIPT", "STYLE", "IFRAME", "FRAME", "FRAMESET", "OBJECT", "EMBED", "SVG", "MATH", "IMG",
  "PICTURE", "VIDEO", "AUDIO", "SOURCE", "TRACK", "FORM", "INPUT", "BUTTON", "TEXTAREA", "SELECT",
  "OPTION", "LINK", "META", "BASE", "TEMPLATE", "NOSCRIPT", "CANVAS", "PORTAL", "APPLET", "AREA", "MAP",
]);

const ALLOWED = new Set([
  "P", "BR", "HR", "H1", "H2", "H3", "H4", "H5", "H6", "BLOCKQUOTE", "UL", "OL", "LI", "PRE", "CODE",
  "EM", "STRONG", "S", "DEL", "A", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD", "SPAN", "SUP", "SUB",
]);

const CLASS_OK = /^(hljs(-[\w-]+)?|language-[\w+#.-]+|[a-z]+_)$/;

function cleanClasses(value: string): string {
  return value
    .split(/\s+/)
    .filter((c) => CLASS_OK.test(c))
    .join(" ");
}

function cleanElement(el: Element): void {
  for (const attr of [...el.attributes]) {
    const name = attr.name.toLowerCase();
    const tag = el.tagName;
    let keep = false;
    if (tag === "A" && name === "href") keep = isSafeUrl(attr.value);
    else if (tag === "A" && name === "title") keep = true;
    else if (tag === "OL" && name === "start") keep = /^\d{1,9}$/.test(attr.value);
    else if ((tag === "CODE" || tag === "SPAN") && name === "class") {
      const cleaned = cleanClasses(attr.value);
      if (cleaned) {
        el.setAttribute("class", cleaned);
        continue;
      }
    } else if ((tag === "TH" || tag === "TD") && name === "style") {
      const align = /^text-align:\s*(left|right|center)\s*;?$/.exec(attr.value.trim());
      if (align) el.setAttribute("data-align", align[1]);
    }
    if (!keep) el.removeAttribute(attr.name);
  }
  if (el.tagName === "A") {
    if (el.hasAttribute("href")) {
      el.setAttribute("target", "_blank");
      el.setAttribute("rel", "noopener noreferrer nofollow");
    }
  }
}

/** Filter a parsed fragment in place: unknown elements unwrapped, dangerous ones removed. */
export function sanitizeTree(root: ParentNode): void {
  for (const node of [...root.childNodes]) {
    if (node.nodeType === 3) continue; // text
    if (node.nodeType !== 1) {
      node.parentNode?.removeChild(node); // comments, processing instructions
      continue;
    }
    const el = node as Element;
    const tag = el.tagName.toUpperCase();
    if (DROP.has(tag)) {
      el.remove();
      continue;
    }
    sanitizeTree(el);
    if (!ALLOWED.has(tag)) {
      // keep the text, lose the element
      const parent = el.parentNode;
      if (parent) {
        while (el.firstChild) parent.insertBefore(el.firstChild, el);
        parent.removeChild(el);
      }
      continue;
    }
    cleanElement(el);
  }
}

/** Parse trusted-shape HTML (markdown-it / highlight.js output) into a sanitized fragment. */
export function htmlToFragment(html: string): DocumentFragment {
  const template = document.createElement("template");
  template.innerHTML = html; // inert: nothing in a template runs or loads
  const fragment = template.content;
  sanitizeTree(fragment);
  return document.importNode(fragment, true);
}
