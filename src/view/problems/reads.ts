// What the Problems view reads of the store (a part of the World).
import type { ProblemRow } from '../../session/problems.js';

export interface ProblemsReads {
  /** Every diagnostic and audit finding known so far, worst first (the audit runs in the background). */
  problems(): readonly ProblemRow[];
}
