// The one Node API the tests use (the package has no @types/node): reading the stylesheet's
// text, for the tests of its rules (vitest stubs CSS imports, even with ?raw).
declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
}
