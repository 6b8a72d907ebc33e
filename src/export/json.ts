// Transcript -> JSON (any nesting depth; HTML- and terminal-safe escapes).
import { safeStringify } from '../session/json-safe.js';
import { jsonSafe } from './escape.js';
import type { Transcript } from './transcript.js';

export function toJson(t: Transcript): string {
  return jsonSafe(safeStringify({ format: 'dsh-transcript', version: 1, ...t }, 2)) + '\n';
}
