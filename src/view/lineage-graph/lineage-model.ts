// Sessions -> lineage layout input (pure; shared by the CLI and the TUI).
import { resolveParents } from '../../session/lineage.js';
import { turnsBefore } from '../../session/log-facts.js';
import type { Session } from '../../session/session.js';
import { SessionStore } from '../../session/store.js';
import type { LineageNodeInput } from './lineage-layout.js';
import { sanitizeInline, truncate } from '../text/sanitize.js';

/** Longest label kept: the view fits it to the width (titles use all the room there is). */
const LABEL_MAX = 400;

export function lineageNodes(sessions: readonly Session[]): LineageNodeInput[] {
  const parents = resolveParents(sessions);
  const perId = new Map<string, number>();
  for (const s of sessions) perId.set(s.id, (perId.get(s.id) ?? 0) + 1);
  return sessions.map((s) => {
    const node: LineageNodeInput = {
      key: SessionStore.keyOf(s),
      id: s.id,
      kind: s.kind,
      label: truncate(sanitizeInline(s.id), 48) + (perId.get(s.id)! > 1 ? ' (DUPLICATE_ID)' : '') + (s.facts.title ? ` — ${truncate(sanitizeInline(s.facts.title), LABEL_MAX)}` : ''),
      createdAt: s.header.createdAt,
    };
    if (s.parentSession !== undefined) node.parentId = s.parentSession;
    const link = parents.get(node.key);
    if (link?.kind === 'resolved') node.parentKey = link.key;
    else if (link?.kind === 'ambiguous') node.parentAmbiguous = true;
    if (s.seedLength !== undefined) {
      node.seedLength = s.seedLength;
      node.forkTurn = turnsBefore(s.facts, s.seedLength);
      if (s.facts.forkCut !== undefined) node.forkInside = true;
    }
    return node;
  });
}
