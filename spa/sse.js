// A parser of `text/event-stream`, faithful to the WHATWG HTML "event stream interpretation":
// lines end in CR, LF or CRLF (a CRLF may be split across chunks), one leading BOM is ignored,
// `data` lines accumulate with LF between them, comments and unknown fields are ignored, `retry`
// takes ASCII digits only, an `id` containing NUL is ignored, and an event without data is not
// dispatched. An incomplete event at the end of the stream is discarded, never dispatched.
// It works on text; `SSEDecoder` puts a streaming UTF-8 decoder in front of it for bytes.

const DIGITS = /^[0-9]+$/;

export class SSEParser {
  #onEvent;
  #onRetry;
  #onComment;
  #pending = '';
  #afterCR = false;
  #started = false;
  #data = '';
  #eventType = '';
  #idBuffer = '';
  #lastEventId = '';

  /**
   * @param {{onEvent?: (event: {type: string, data: string, lastEventId: string}) => void,
   *          onRetry?: (ms: number) => void, onComment?: (text: string) => void}} handlers
   */
  constructor({ onEvent = () => {}, onRetry = () => {}, onComment = () => {} } = {}) {
    this.#onEvent = onEvent;
    this.#onRetry = onRetry;
    this.#onComment = onComment;
  }

  /** The last event ID string, as an EventSource would send it in `Last-Event-ID`. */
  get lastEventId() {
    return this.#lastEventId;
  }

  /** Feed decoded text, in chunks of any size. */
  push(text) {
    let chunk = text;
    if (!this.#started) {
      if (chunk === '') return;
      this.#started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.#afterCR && chunk !== '') {
      // a CR ended the previous chunk: an LF opening this one belongs to the same line end
      this.#afterCR = false;
      if (chunk.charCodeAt(0) === 0x0a) chunk = chunk.slice(1);
    }
    const lineEnd = /\r\n|\r|\n/g; // per call: a handler may feed another parser re-entrantly
    let start = 0;
    for (let match = lineEnd.exec(chunk); match !== null; match = lineEnd.exec(chunk)) {
      const line = this.#pending + chunk.slice(start, match.index);
      this.#pending = '';
      start = match.index + match[0].length;
      if (match[0] === '\r' && start === chunk.length) this.#afterCR = true;
      this.#line(line);
    }
    this.#pending += chunk.slice(start);
  }

  /** The stream ended: whatever was not terminated by a blank line is dropped. */
  end() {
    this.#pending = '';
    this.#data = '';
    this.#eventType = '';
    this.#afterCR = false;
  }

  #line(line) {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.charCodeAt(0) === 0x3a /* : */) {
      this.#onComment(line.slice(1));
      return;
    }
    const colon = line.indexOf(':');
    let field = line;
    let value = '';
    if (colon !== -1) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    }
    switch (field) {
      case 'event':
        this.#eventType = value;
        break;
      case 'data':
        this.#data += `${value}\n`;
        break;
      case 'id':
        if (!value.includes('\0')) this.#idBuffer = value;
        break;
      case 'retry':
        if (DIGITS.test(value)) this.#onRetry(Number.parseInt(value, 10));
        break;
      default:
        break;
    }
  }

  #dispatch() {
    this.#lastEventId = this.#idBuffer;
    if (this.#data === '') {
      this.#eventType = '';
      return;
    }
    const data = this.#data.endsWith('\n') ? this.#data.slice(0, -1) : this.#data;
    const type = this.#eventType || 'message';
    this.#data = '';
    this.#eventType = '';
    this.#onEvent({ type, data, lastEventId: this.#lastEventId });
  }
}

/** Bytes in, events out: a streaming UTF-8 decoder (a character may be split across chunks) and the parser. */
export class SSEDecoder {
  #decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  constructor(handlers) {
    this.parser = new SSEParser(handlers);
  }

  get lastEventId() {
    return this.parser.lastEventId;
  }

  /** @param {Uint8Array} bytes */
  feed(bytes) {
    this.parser.push(this.#decoder.decode(bytes, { stream: true }));
  }

  end() {
    this.parser.push(this.#decoder.decode());
    this.parser.end();
  }
}
