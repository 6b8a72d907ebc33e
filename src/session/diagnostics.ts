/** A problem found while reading a file: where, how bad, a stable code, and what is wrong. */
export interface Diagnostic {
  file: string;
  line?: number;
  severity: 'error' | 'warning';
  code: string;
  message: string;
}
