// What a person reads of a registered graph's run: the text of LangChain messages (as `model_dump()`
// gives them in `graph_part` `messages` parts and in the final state), the answer a final state holds,
// and an interrupt's value as words. Pure functions; no DOM.

const AI_TYPES = new Set(['ai', 'AIMessageChunk', 'AIMessage']);

/** The visible text of a message's `content`: a string, or the text blocks of a list of content blocks. */
export function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      if (typeof block === 'string') return block;
      return block?.type === 'text' && typeof block.text === 'string' ? block.text : '';
    })
    .join('');
}

/** True for a message the model wrote (a whole one or a streamed chunk). */
export function isAiMessage(message) {
  return isObject(message) && AI_TYPES.has(message.type);
}

/** True for a chunk of a message being streamed, whose content adds to what came before. */
export function isChunk(message) {
  return isObject(message) && typeof message.type === 'string' && message.type.endsWith('Chunk');
}

/**
 * The answer a graph's final state holds: its last AI message's text when it has `messages`; the text of
 * its `answer` when that is an object with one (the support agent's `{kind, text}`); else the state itself
 * when it is text; else its last non-empty text field (`report`, `answer`, ...); else null.
 */
export function answerOfOutput(output) {
  if (typeof output === 'string') return output;
  if (!isObject(output)) return null;
  if (Array.isArray(output.messages)) {
    const texts = output.messages.filter(isAiMessage).map((message) => contentText(message.content));
    const last = texts.filter(Boolean).at(-1);
    if (last) return last;
  }
  if (isObject(output.answer) && typeof output.answer.text === 'string' && output.answer.text !== '') {
    return output.answer.text;
  }
  const texts = Object.values(output).filter((value) => typeof value === 'string' && value.trim() !== '');
  return texts.at(-1) ?? null;
}

/**
 * An interrupt's value as a person reads it: `summary`, `action` and `args` when the value names them
 * (the way an approval request does), else the value itself as JSON.
 */
export function describeInterrupt(value) {
  if (isObject(value) && (typeof value.summary === 'string' || typeof value.action === 'string')) {
    return {
      summary: typeof value.summary === 'string' ? value.summary : '',
      action: typeof value.action === 'string' ? value.action : '',
      args: isObject(value.args) ? JSON.stringify(value.args, null, 2) : '',
      json: '',
    };
  }
  if (typeof value === 'string') return { summary: value, action: '', args: '', json: '' };
  return { summary: '', action: '', args: '', json: JSON.stringify(value ?? null, null, 2) };
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
