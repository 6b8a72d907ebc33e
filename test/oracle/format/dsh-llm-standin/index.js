/** Stand-in for @deepseek-ai/dsh-llm: only the export that dsh-session-format-v1-to-v2 imports. */
export class AssistantStreamAccumulator {
  constructor() {
    throw new Error('[dsh-llm stand-in] AssistantStreamAccumulator is not available: folding top-level v1 assistant/chunk events needs the real @deepseek-ai/dsh-llm')
  }
}
