// Builds v4 test logs from real v3 ones by the harness's v3 -> v4 rules
// (packages/session/session-format-v3-to-v4, README and codec):
// the header's version becomes 4 (same closed key set); a `tool/result`
// message of role `user` holding exactly one `tool-result` block becomes role
// `tool` with `toolCallId` (= source.callId) and the block's content (and
// isError), other block fields as `plugin:result:<field>`; message sources
// are renamed (plugin `compact` -> kind `compact-checkpoint`, tools-code-mode /
// tools-ptc -> `ptc-mode`, dsh-compaction-basic -> `compact-basic`, the system
// prompt plugin -> `system-prompt` on a system message, else `runtime-context`,
// first-party names keep the name as the kind, others -> `plugin:<name>`);
// unknown ignorable event types -> `plugin:<type>`. No real v4 log with a
// seeded child exists in public, so the tests build them this way.
const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

const FIRST_PARTY = new Set(['agent-instructions', 'skill-catalog', 'subagent-settled', 'user-approval', 'goal', 'coordinator']);
const RENAMED: Record<string, string> = { compact: 'compact-checkpoint', 'tools-code-mode': 'ptc-mode', 'tools-ptc': 'ptc-mode', 'dsh-compaction-basic': 'compact-basic' };

function v4Source(src: unknown, role: string | undefined): unknown {
  if (!isObj(src) || src.kind !== 'plugin' || typeof src.plugin !== 'string') return src;
  const { plugin, kind: _k, ...rest } = src;
  let kind: string;
  if (plugin === '@deepseek-ai/dsh-system-prompt') kind = role === 'system' ? 'system-prompt' : 'runtime-context';
  else kind = RENAMED[plugin] ?? (FIRST_PARTY.has(plugin) ? plugin : `plugin:${plugin}`);
  return { kind, ...rest };
}

function v4Message(m: unknown): unknown {
  if (!isObj(m)) return m;
  return 'source' in m ? { ...m, source: v4Source(m.source, m.role) } : m;
}

/** A v3 tool/result message -> v4's flattened form (role tool, toolCallId, the block's content). */
function flattenToolResult(m: Record<string, any>): Record<string, any> {
  const blocks = Array.isArray(m.content) ? m.content : [];
  if (m.role !== 'user' || blocks.length !== 1 || blocks[0]?.type !== 'tool-result') return m;
  const { type: _t, toolCallId: _id, content, isError, ...other } = blocks[0];
  const out: Record<string, any> = { role: 'tool', source: m.source, toolCallId: m.source?.callId ?? blocks[0].toolCallId, content };
  if (isError !== undefined) out.isError = isError;
  for (const [k, v] of Object.entries(other)) out[`plugin:result:${k}`] = v;
  if (m.id !== undefined) out.id = m.id;
  for (const [k, v] of Object.entries(m)) if (!['role', 'source', 'content', 'id'].includes(k)) out[`plugin:message:${k}`] = v;
  return out;
}

const KNOWN_V3 = /^(turn|step|user|assistant|system|tool|session|subagent|todo|request|compaction|agent|approval|permission|sandbox|plan|model|goal|llm|hook|image|command|feedback|web|workspace|team|schedule|deliverables|developer|agent-preset|tool-workflow|session-log-deepseek)\//;

/** One parsed v3 event row -> its v4 row (a new object; the input is not touched). */
export function eventV3toV4(e: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...e };
  if (e.ignorable === true && !KNOWN_V3.test(e.type)) out.type = `plugin:${e.type}`;
  const d = e.data;
  if (!isObj(d)) return out;
  if (e.type === 'tool/result' && isObj(d.message)) out.data = { ...d, message: v4Message(flattenToolResult(d.message)) };
  else if (isObj(d.message)) out.data = { ...d, message: v4Message(d.message) };
  else if (e.type === 'user/message') out.data = v4Message(d);
  return out;
}

/** A whole v3 log's text -> the v4 log's text (header version 4, every row converted, key order kept). */
export function logV3toV4(text: string): string {
  const lines = text.split('\n');
  const tail = lines.pop();
  if (tail !== '') throw new Error('a v3 log ends with a newline');
  const header = JSON.parse(lines[0]);
  if (header.version !== 3) throw new Error(`not a v3 log (version ${header.version})`);
  const out = [JSON.stringify({ ...header, version: 4 })];
  for (const l of lines.slice(1)) out.push(JSON.stringify(eventV3toV4(JSON.parse(l))));
  return out.join('\n') + '\n';
}
