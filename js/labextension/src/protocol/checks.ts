/**
 * The checks every parser of the protocol builds on: a plain object, a bounded text, a cell
 * source, an integer, nbformat's multiline strings. Each is a type guard (or returns `null`) and
 * never throws, whatever it is given.
 */

import { MAX_CELL_SOURCE } from './constants';

/** The longest id, label or name field of a message. */
export const MAX_TEXT = 4096;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string of at most `MAX_TEXT` characters (`allowEmpty: false`: not empty either). */
export function isText(value: unknown, allowEmpty = true): value is string {
  return typeof value === 'string' && value.length <= MAX_TEXT && (allowEmpty || value.length > 0);
}

/** A cell's source: a string of at most `MAX_CELL_SOURCE` characters. */
export function isSource(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_CELL_SOURCE;
}

export function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** nbformat's multiline string (a string, or a list of strings joined), else `null`. */
export function multiline(value: unknown): string | null {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value) && value.every(v => typeof v === 'string')) {
    return value.join('');
  }
  return null;
}

/** The characters of every string in `value`, however deep. */
export function textSize(value: unknown): number {
  if (typeof value === 'string') {
    return value.length;
  }
  if (Array.isArray(value)) {
    return value.reduce((n: number, v) => n + textSize(v), 0);
  }
  if (isRecord(value)) {
    return Object.values(value).reduce((n: number, v) => n + textSize(v), 0);
  }
  return 0;
}
