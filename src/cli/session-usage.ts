// A session's token usage for the headless listings: folded with the log's
// facts while it was read (log-facts.ts), so listing costs no second read.
import type { Session } from '../session/session.js';
import { withSplit, type SessionUsage } from '../session/usage.js';

export function usageForListing(s: Session): SessionUsage {
  return withSplit(s.facts.usage, s.seedLength);
}
